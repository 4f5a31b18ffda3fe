#!/usr/bin/env bash
# rwrongabi.sh DIR -- CMD...: runs CMD (the wrong build of ferry preloaded
# into a program of the other MPI) in DIR and passes when it stopped with a
# non-zero status and exactly one line of ferry's naming both MPIs: no
# crash, no MPI error stack, the program never went on.
set -u
dir=$1
shift 2
mkdir -p "$dir" && cd "$dir" || exit 2
timeout --kill-after=5 120 "$@" > out 2>&1
rc=$?
cat out
lines=$(grep -c '^ferry: error: .* build, but this program runs .*: use the .* build of ferry' out)
fail=0
[ "$rc" -ne 0 ] || { echo "rwrongabi: exit status 0"; fail=1; }
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || { echo "rwrongabi: a hang"; fail=1; }
[ "$lines" -eq 1 ] || { echo "rwrongabi: $lines lines from ferry, 1 wanted"; fail=1; }
if grep -qiE 'segmentation|signal [0-9]|invalid communicator|error stack|went on' out; then
  echo "rwrongabi: a crash, an MPI error or the program went on"; fail=1
fi
[ $fail -eq 0 ] && echo "rwrongabi: passed"
exit $fail
