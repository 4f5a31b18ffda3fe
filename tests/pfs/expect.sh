#!/usr/bin/env bash
# expect.sh REGEX... -- CMD ARGS...: runs CMD; passes when it exits 0 and its
# output (stdout and stderr) has a line matching each extended REGEX, e.g.
# the reason FERRY_STATS gives for a strategy choice, and no line matching
# a REGEX written as !REGEX.
set -u
res=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do res+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "expect: exit status $rc"; exit $rc; }
for re in "${res[@]}"; do
  if [ "${re#!}" != "$re" ]; then
    printf '%s\n' "$out" | grep -Eq -- "${re#!}" && { echo "expect: a line matches: ${re#!}"; exit 1; }
  else
    printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "expect: no line matches: $re"; exit 1; }
  fi
done
exit 0
