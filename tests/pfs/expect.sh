#!/usr/bin/env bash
# expect.sh REGEX -- CMD ARGS...: runs CMD; passes when it exits 0 and its
# output (stdout and stderr) matches the extended REGEX, e.g. the reason
# FERRY_STATS gives for a strategy choice.
set -u
re=$1; shift
[ "${1:-}" = -- ] && shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "expect: exit status $rc"; exit $rc; }
printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "expect: no line matches: $re"; exit 1; }
