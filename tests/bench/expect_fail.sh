#!/usr/bin/env bash
# expect_fail.sh REGEX CMD...: passes when CMD exits non-zero AND its output
# (stdout and stderr) has a line matching REGEX, so a test of a failure
# cannot pass on a crash that merely happens to exit non-zero.
set -u
re=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_fail: the command exited 0; a failure was expected"
  exit 1
fi
if ! grep -Eq -- "$re" <<<"$out"; then
  echo "expect_fail: exit status $rc, but no line matches /$re/"
  exit 1
fi
echo "expect_fail: failed as expected (exit status $rc)"
