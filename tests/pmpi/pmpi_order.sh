#!/usr/bin/env bash
# A profiling library (prof.c) preloaded before or after libferry, or alone:
#   pmpi_order.sh ORDER TOOL LIBFERRY PROGRAM TMPDIR -- LAUNCHER...
# ORDER: native (the tool alone: what it sees without ferry), before
# (LD_PRELOAD=tool:libferry), after (LD_PRELOAD=libferry:tool), after-refused
# (after, with a tool that reaches the MPI library past ferry: ferry must say
# how to order them, and the program's I/O still goes through ferry), linked
# (TOOL is "-": the program has the tool linked in and exports its wrappers;
# its own files are the program's, and so is the tool's log then).
# Checks that the tool recorded exactly the calls the program made, that
# the I/O went through ferry (its record of the program's file), and that
# ferry reports nothing of the tool's own log.
set -u
order=$1 tool=$2 lib=$3 prog=$4 dir=$5
shift 6
launcher=("$@")
tag="pmpi-$order-$(basename -- "$tool" .so)-$$"
data="$dir/$tag.dat" log="$dir/$tag.log" json="$dir/$tag.json" out="$dir/$tag.out" err="$dir/$tag.err"
rm -f "$data" "$log" "$json"
first=${PMPI_PRELOAD_FIRST:+$PMPI_PRELOAD_FIRST:} # a sanitizer's runtime
case $order in
  native) pre=$tool ;;
  before) pre=$tool:$lib ;;
  after | after-refused) pre=$lib:$tool ;;
  linked) pre=$lib ;;
  *) echo "pmpi_order.sh: unknown order $order"; exit 2 ;;
esac
# the launcher's own way of passing the environment to every rank
envs=(LD_PRELOAD="$first$pre" PROF_LOG="$log" FERRY_STATS_JSON="$json" FERRY_STATS=1)
pass=()
case "${launcher[0]}" in
  *mpich* | *hydra*) for e in "${envs[@]}"; do pass+=(-genv "${e%%=*}" "${e#*=}"); done ;;
  *) for e in "${envs[@]}"; do pass+=(-x "$e"); done ;;
esac
"${launcher[@]}" "${pass[@]}" "$prog" "$data" >"$out" 2>"$err"
rc=$?
fail=0
no() { echo "FAIL ($order): $*"; fail=1; }
[ $rc -eq 0 ] || no "the program exited with $rc"
# what the tool saw, against what the program did
want=$(grep '^rank ' "$out" | sort)
got=$(tr -s ' ' <"$log" 2>/dev/null | sed 's/ *$//' | grep '^rank ' | sort)
[ -n "$want" ] || no "the program printed no calls"
if [ "$order" = after-refused ]; then
  # the tool saw none of the program's calls, and ferry said how to order them
  echo "$got" | grep -q ' open 0,' || no "a tool that skips ferry was handed calls"
  grep -q "preload it first, LD_PRELOAD=.*$(basename "$tool"):.*libferry" "$err" ||
    no "ferry did not say how to order the libraries"
  [ "$(grep -c 'preload it first' "$err")" = 1 ] || no "the ordering advice is not one line"
else
  [ "$got" = "$want" ] || { no "the tool recorded other calls than the program made"; diff <(echo "$want") <(echo "$got"); }
fi
if [ "$order" != native ]; then
  # through ferry: its record of the program's file, none of the tool's log
  grep -q "\"file\":\"$data\"" "$json" 2>/dev/null || no "no ferry record for the program's file"
  grep -q "statistics for \"$data\"" "$err" || no "no ferry statistics for the program's file"
fi
if [ "$order" != native ] && [ "$order" != linked ]; then
  ! grep -q "$log" "$json" 2>/dev/null || no "ferry recorded the tool's own log"
  ! grep -q "statistics for \"$log\"" "$err" || no "ferry printed statistics for the tool's own log"
fi
if [ $fail -ne 0 ]; then
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; echo "--- tool log"; cat "$log" 2>/dev/null
  exit 1
fi
rm -f "$data" "$log" "$json" "$out" "$err"
echo "ok ($order)"
