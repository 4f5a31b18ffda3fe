#!/usr/bin/env bash
# A hints file a hostile user could name, then the run:
#
#   rhints.sh CASE DIR -- CMD ARGS...
#
# CASE: huge (10 MiB of valid lines), endless (/dev/zero), fifo (no writer),
# dir, binary, missing: one warning naming FERRY_HINTS_FILE, MPI_Init
# without MPI_THREAD_MULTIPLE, start-up and run bounded (a hang before the
# fix: 60 s). comment (a comment that mentions forward): no warning, no
# MPI_THREAD_MULTIPLE. forward (the real hint): MPI_THREAD_MULTIPLE.
set -u
case_=$1 dir=$2
shift 3
mkdir -p "$dir"
f=$dir/hints
rm -rf "$f"
want_warn=1 thread=not-multiple
case "$case_" in
  huge) yes 'cb_nodes 1' | head -c 10485760 > "$f" ;;
  endless) f=/dev/zero ;;
  fifo) mkfifo "$f" ;;
  dir) mkdir "$f" ;;
  binary) { printf 'cb_nodes 1\n'; head -c 4096 /dev/urandom; printf '\0\n'; } > "$f" ;;
  missing) ;;
  comment) printf '# ferry_ind_write_strategy forward, some day\ncb_nodes 1\n' > "$f"; want_warn=0 ;;
  forward) printf 'ferry_ind_write_strategy forward\n' > "$f"; want_warn=0 thread=multiple ;;
  *) echo "rhints: unknown case $case_"; exit 2 ;;
esac
export FERRY_HINTS_FILE=$f R_THREAD=$thread FERRY_TEST_OUT=$dir
start=$(date +%s)
timeout --kill-after=5 60 "$@" > "$dir/out" 2> "$dir/err"
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$dir/out" "$dir/err"
warns=$(grep -c 'FERRY_HINTS_FILE' "$dir/err")
fail=0
if [ $rc -ne 0 ]; then echo "rhints: $case_: exit $rc after ${elapsed}s (124: a hang)"; fail=1; fi
if [ "$warns" -ne "$want_warn" ]; then echo "rhints: $case_: $warns warnings about the file, $want_warn wanted"; fail=1; fi
grep -q 'r_hints_env: passed' "$dir/out" || { echo "rhints: $case_: the program did not pass"; fail=1; }
rm -rf "$dir/hints"
[ $fail -eq 0 ] && echo "rhints: $case_: passed (${elapsed}s, $warns warning(s))"
exit $fail
