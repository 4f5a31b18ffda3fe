#!/usr/bin/env bash
# rwarn.sh REGEX N -- CMD ARGS...: CMD must succeed and print exactly N lines
# matching REGEX (on stdout or stderr): "one clear warning, not silence".
set -u
re=$1 want=$2
shift 3
out=$(timeout --kill-after=5 120 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -c -E -- "$re")
if [ $rc -ne 0 ] || [ "$n" -ne "$want" ]; then
  echo "rwarn: exit $rc, $n line(s) matching /$re/, $want wanted"
  exit 1
fi
echo "rwarn: passed ($n line(s) matching)"
