#!/usr/bin/env bash
# Learning end to end (docs/collective.md, "Learning"): t_learn through
# ferry with a store of its own, its statistics record checked with
# learn_check. One case per run:
#   learn.sh CASE MPIEXEC FLAVOR NP LIBFERRY SLOWIO T_LEARN CHECK OUTDIR "EXTRA"
# agree    one rank's I/O delayed at random: the ranks still agree, bytes right
# bounded  60 calls, noisy times: trials stay within ferry_learn_trials
# second   a second run starts from what the first learned (the statistics say so)
# once     a pattern seen once per run: auto keeps the rules; explore learns over runs
# report   FERRY_REPORT: the job report, also when only some ranks ask, alone, or
#          beside a FERRY_STATS that differs between ranks
# badstore a store that is not one: one warning, left as it was, the run fine
# off      ferry_learn=off: the rules alone, no learning in the record
# window   local's node window (made once per open) delayed 2 s: not in any option's call time
# flush    caches not coherent: a trial's clock counts no flush of the writes before it
# finalize two opens in one process: the second starts from what the first
#          learned, and the store file is written at MPI_Finalize, not at close
set -u
case=$1 mpiexec=$2 flavor=$3 np=$4 lib=$5 slowio=$6 prog=$7 check=$8 out=$9 extra=${10:-}
dir=$out/learn_$case
rm -rf "$dir"
mkdir -p "$dir"
store=$dir/store.json rec=$dir/rec.json
fail() { echo "FAIL: $*"; exit 1; }
# run [VAR=VALUE...] -- ARGS: t_learn under mpiexec, libferry (and the
# shim) preloaded, the case's own store and record, each VAR on every rank
run() {
  local env=() pre=$lib
  while [ "$1" != "--" ]; do
    case ${1%%=*} in SLOWIO_RANK|SLOWIO_WIN_US|SLOWIO_SYNC_NS|SLOWIO_CLOCK) pre="$lib:$slowio" ;; esac
    if [ "$flavor" = mpich ]; then env+=(-genv "${1%%=*}" "${1#*=}"); else env+=(-x "$1"); fi
    shift
  done
  shift
  if [ "$flavor" = mpich ]; then env+=(-genv LD_PRELOAD "$pre"); else env+=(-x "LD_PRELOAD=$pre"); fi
  # shellcheck disable=SC2086
  FERRY_LEARN_CACHE=$store FERRY_STATS_JSON=$rec timeout 240 "$mpiexec" $extra -n "$np" "${env[@]}" "$prog" "$dir/f" "$@"
}
# ... and nothing left allocated in MPI at MPI_Finalize (MPICH says
# "yaksa: N leaked handle pool objects" for each type ferry did not free)
expect_pass() {
  grep -q "t_learn: passed" "$1" || { cat "$1"; fail "t_learn did not pass"; }
  ! grep -qi "leaked" "$1" || { cat "$1"; fail "MPI objects leaked"; }
}

case $case in
agree)
  for slow in 1 0; do
    rm -f "$rec" "$store" # each pass learns from nothing
    run SLOWIO_RANK=$slow SLOWIO_US=20000 "FERRY_HINTS=*:ferry_learn_trials=6" -- 24 >"$dir/out" 2>&1
    expect_pass "$dir/out"
    "$check" "$rec" learning.coll_write.agreed == true learning.coll_read.agreed == true \
      learning.coll_write.calls == 24 learning.coll_read.calls == 24 \
      learning.coll_write.trials '>=' 1 learning.coll_write.trials '<=' 6 \
      learning.coll_read.trials '>=' 1 learning.coll_read.trials '<=' 6 || fail "record (rank $slow slow)"
  done ;;
bounded)
  for cap in 0 2; do
    rm -f "$rec" "$store"
    run SLOWIO_RANK=1 SLOWIO_US=40000 "FERRY_HINTS=*:ferry_learn_trials=$cap" -- 60 16 >"$dir/out" 2>&1
    expect_pass "$dir/out"
    "$check" "$rec" learning.coll_write.calls == 60 learning.coll_write.trials '<=' $cap \
      learning.coll_read.trials '<=' $cap learning.coll_write.agreed == true || fail "cap $cap"
  done ;;
second)
  # the first run tries every option (explore: no budget), so the second has nothing left to try
  run "FERRY_HINTS=*:ferry_learn=explore" -- 12 >"$dir/out1" 2>&1
  expect_pass "$dir/out1"
  "$check" "$rec" learning.coll_write.from_store == false learning.coll_write.trials '>=' 1 || fail "first run"
  "$check" "$store" ferry_learned == 1 || fail "no store after the first run"
  run -- 12 >"$dir/out2" 2>&1
  expect_pass "$dir/out2"
  "$check" "$rec" learning.coll_write.from_store == true learning.coll_read.from_store == true \
    learning.coll_write.first_why '~' "learned in an earlier run (online)" \
    learning.coll_read.first_why '~' "learned in an earlier run (online)" || fail "second run" ;;
once)
  # one call each way per run: auto keeps the rules' choice run after run;
  # explore takes an untried option in each next run
  for mode in auto explore; do
    rm -f "$rec" "$store"
    run "FERRY_HINTS=*:ferry_learn=$mode" -- 1 >"$dir/out1" 2>&1
    expect_pass "$dir/out1"
    "$check" "$rec" learning.coll_write.calls == 1 learning.coll_write.trials == 0 \
      learning.coll_write.first_why '!~' "trial" || fail "$mode: first run"
    run "FERRY_HINTS=*:ferry_learn=$mode" -- 1 >"$dir/out2" 2>&1
    expect_pass "$dir/out2"
    if [ $mode = auto ]; then
      "$check" "$rec" learning.coll_write.trials == 0 learning.coll_write.first_why '!~' "trial" || fail "auto: second run"
    else
      "$check" "$rec" learning.coll_write.from_store == true learning.coll_write.trials == 1 \
        learning.coll_write.first_why '~' "continued from an earlier run" || fail "explore: second run"
    fi
  done ;;
report)
  run "FERRY_REPORT=$dir/report.txt" -- 12 >"$dir/out" 2>&1
  expect_pass "$dir/out"
  for re in "^ferry job report, ferry [0-9.]+ \((openmpi|mpich)\): $np ranks, 1 file open in 1 group" "^  f +1 +$np " \
            "^time per phase" "writes of f: .*: .*\(12 calls, [0-9]+ trials?\)" "reads of f: " \
            "^recommendations"; do
    grep -Eq "$re" "$dir/report.txt" || { cat "$dir/report.txt"; fail "report: no line matches $re"; }
  done
  # only rank 0 asks, then only the others: the ranks agree (no hang), one warning
  # (Open MPI takes -x per program of the command line, MPICH -genv for all)
  if [ "$flavor" = mpich ]; then pre=(-genv LD_PRELOAD "$lib"); pre2=(); else pre=(-x "LD_PRELOAD=$lib"); pre2=("${pre[@]}"); fi
  for who in first rest; do
    rm -f "$dir/report.txt"
    a=() b=()
    if [ $who = first ]; then a=(env "FERRY_REPORT=$dir/report.txt"); else b=(env FERRY_REPORT=1); fi
    # shellcheck disable=SC2086
    FERRY_LEARN_CACHE=off timeout 240 "$mpiexec" $extra "${pre[@]}" -n 1 "${a[@]}" "$prog" "$dir/f" 6 : \
      "${pre2[@]}" -n $((np - 1)) "${b[@]}" "$prog" "$dir/f" 6 >"$dir/out" 2>&1
    expect_pass "$dir/out"
    [ "$(grep -c "FERRY_REPORT differs between ranks" "$dir/out")" = 1 ] || { cat "$dir/out"; fail "$who: one warning"; }
    if [ $who = first ]; then grep -q "^ferry job report" "$dir/report.txt" || fail "$who: no report file"
    else grep -q "^ferry job report" "$dir/out" || fail "$who: no report on standard error"; fi
  done
  # FERRY_REPORT alone (no other statistics switch), then with FERRY_STATS on
  # rank 0 only (a switch that differs is off for the file): the report
  # still has the file and its bytes
  for stats in none first; do
    rm -f "$dir/report.txt"
    a=() b=()
    [ $stats = first ] && a=(env FERRY_STATS=1)
    # shellcheck disable=SC2086
    env -u FERRY_STATS_JSON -u FERRY_STATS FERRY_REPORT="$dir/report.txt" FERRY_LEARN_CACHE=off \
      timeout 240 "$mpiexec" $extra "${pre[@]}" -n 1 "${a[@]}" "$prog" "$dir/f" 6 : \
      "${pre2[@]}" -n $((np - 1)) "${b[@]}" "$prog" "$dir/f" 6 >"$dir/out" 2>&1
    expect_pass "$dir/out"
    for re in "^ferry job report.*: $np ranks, 1 file open in 1 group, [0-9.]+ [KM]iB read, [0-9.]+ [KM]iB written" \
              "^  f +1 +$np +[0-9.]+ [KM]iB +[0-9.]+ [KM]iB "; do
      grep -Eq "$re" "$dir/report.txt" || { cat "$dir/out" "$dir/report.txt"; fail "FERRY_STATS $stats: no line matches $re"; }
    done
  done ;;
badstore)
  printf 'my notes, not a store\n' >"$store"
  cp "$store" "$dir/before"
  run -- 24 >"$dir/out" 2>&1   # a trial waits for ten calls' time
  expect_pass "$dir/out"
  [ "$(grep -c "learned-choices store $store: not JSON" "$dir/out")" = 1 ] || { cat "$dir/out"; fail "one warning"; }
  cmp -s "$store" "$dir/before" || fail "the file was changed"
  "$check" "$rec" learning.coll_write.trials '>=' 1 || fail "no learning" ;;
off)
  run "FERRY_HINTS=*:ferry_learn=off" -- 12 >"$dir/out" 2>&1
  expect_pass "$dir/out"
  "$check" "$rec" learning absent - strategies.coll_write.reason '~' ":" || fail "learning off"
  [ ! -e "$store" ] || fail "a store was written" ;;
window)
  # one node, two options (the rules' and local or independent), both
  # measured by the second call of each direction (explore: no budget to
  # wait for); local's first call makes the window. Charged to that call,
  # local would look 2 s slow and lose to options it beats on every later call.
  run SLOWIO_WIN_US=2000000 "FERRY_HINTS=*:ferry_learn=explore" -- 12 >"$dir/out" 2>&1
  expect_pass "$dir/out"
  "$check" "$rec" learning.coll_write.tried.0.calls '>=' 1 learning.coll_write.tried.1.calls '>=' 1 \
    learning.coll_write.tried.0.best_seconds '<' 1 learning.coll_write.tried.1.best_seconds '<' 1 \
    learning.coll_read.tried.0.best_seconds '<' 1 learning.coll_read.tried.1.best_seconds '<' 1 \
    learning.coll_write.agreed == true || fail "window" ;;
flush)
  # where client caches are not coherent an aggregated write ends in a
  # flush, which would also flush what the independent calls before a trial
  # wrote: that is flushed first, off the trial's clock. SLOWIO_CLOCK=bytes
  # makes ferry's clock count the bytes a rank writes and flushes: while a
  # trial's clock runs, a rank writes at most the call's extent (NP ranks x
  # 16 pieces of 8 KiB) and flushes at most what it wrote, so no trial may
  # measure more than twice that. Charged the flush of the independent calls
  # before it (the first trial comes after about ten), it would measure
  # several times more. (What the flush costs in seconds: bench/learn_flush.sh.)
  run SLOWIO_CLOCK=bytes "FERRY_HINTS=*:ferry_cache_coherent=disable" -- 24 16 8192 >"$dir/out" 2>&1
  expect_pass "$dir/out"
  most=$(awk -v n="$np" 'BEGIN { printf "%.9f", 2 * n * 16 * 8192 * 1e-9 * 1.00001 }') # the record keeps 6 digits
  "$check" "$rec" learning.coll_write.rule '~' independent learning.coll_write.trials '>=' 1 \
    learning.coll_write.tried.0.option '~' independent \
    learning.coll_write.tried.1.best_seconds '<=' "$most" learning.coll_write.tried.2.best_seconds '<=' "$most" \
    learning.coll_write.agreed == true || { cat "$rec"; fail "a trial was charged the flush of earlier writes"; }
  # on that clock the run ends the same way every time, waiting for the
  # next trial: the reason reaches the record whole
  "$check" "$rec" strategies.coll_write.reason '~' "the next trial waits for the pattern's time (at most 10% of it)" \
    learning.coll_write.why '~' "(at most 10% of it)" || fail "a reason cut short" ;;
finalize)
  run "FERRY_HINTS=*:ferry_learn=explore" T_LEARN_WATCH="$store" -- 12 64 512 2 >"$dir/out" 2>&1
  expect_pass "$dir/out"
  grep -q "between opens, $store absent" "$dir/out" || { cat "$dir/out"; fail "the store was written before MPI_Finalize"; }
  "$check" "$rec" -r 1 learning.coll_write.from_store == false learning.coll_write.trials '>=' 1 || fail "first open"
  "$check" "$rec" -r 2 learning.coll_write.from_store == true learning.coll_read.from_store == true \
    learning.coll_write.first_why '~' "learned by an earlier open in this job" || fail "second open"
  "$check" "$store" ferry_learned == 1 || fail "no store after MPI_Finalize" ;;
*) fail "unknown case $case" ;;
esac
echo "learn $case: passed"
