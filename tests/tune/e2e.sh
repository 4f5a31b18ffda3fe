#!/usr/bin/env bash
# e2e.sh CASE TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": a tiny
# tuning run of one ferry-bench pattern (ior, hacc, tile, btio) explores
# more than one configuration, records every sample, keeps its budget,
# writes a hints file ferry reads every line of back (source "file", no
# warning), and a report that holds what it must.
set -u
case=$1
shift
. "$(dirname "$0")/common.sh"
# tile also runs the A/A control (ferry's defaults twice); the others skip
# it, so that under a heavy load the baseline still leaves the screen time
control=(--no-control) parts=()
case $case in
  tile) args=(--sz-tile-x 64 --sz-tile-y 32) control=() parts=("defaults again" "A/A control:") ;;
  ior)  args=(-c -t 16k -b 64k -s 2) ;;
  hacc) args=(-n 2000) ;;
  btio) args=(-n 12 --steps 2) ;;
  *) fail "unknown case $case" ;;
esac
budget=40
h=$out/tune_e2e_${case}_hints.txt rep=$out/tune_e2e_${case}_report.txt csv=$out/tune_e2e_${case}_samples.csv
rm -f "$h" "$rep" "$csv"
# cb_buffer_size is forced to values that are never ferry's default, so the
# hints file has lines for ferry to read back whatever the search finds
"$tune" --pattern "$case" --ranks 2 --budget ${budget}s --reps 1 --max-samples 4 \
  --min-samples 2 "${control[@]}" --only 'cb_buffer_size=1m|4m' --only ferry_write_strategy --always-write \
  --out "$h" --report "$rep" --samples "$csv" -q \
  -- "${args[@]}" -o "$out/tune_e2e_$case.dat" >/dev/null || fail "ferry-tune failed"

# the report
for want in "ferry defaults" "best:" "native MPI-IO" "speedup vs ferry's defaults" "verdict:" "noise:" "reproduce:" \
  "workload  ferry-bench $case " "${parts[@]}"; do
  grep -q "$want" "$rep" || fail "report lacks '$want'"
done
spent=$(sed -n 's/.*spent \([0-9]*\) s.*/\1/p' "$rep")
[ -n "$spent" ] && [ "$spent" -le $((budget + 2)) ] || fail "budget $budget s, spent '$spent' s"

# the samples: a header, then configuration,stage,confirm,seconds rows;
# the search went beyond the origin (the space has 2 x 4 points)
head -1 "$csv" | grep -qx 'configuration,stage,confirm,seconds' || fail "samples CSV header"
bad=$(tail -n +2 "$csv" | grep -Ev '^"[^"]*",[a-z]+,[01],[0-9.e+-]+$' | head -1)
[ -z "$bad" ] || fail "malformed samples row: $bad"
configs=$(tail -n +2 "$csv" | grep -v ',reference,' | cut -d'"' -f2 | sort -u | wc -l)
# Exploring needs launches: on a machine so loaded that fewer than 10 fit
# in the budget, the tool must stop at the budget instead (and say so);
# otherwise it must have gone beyond the origin.
launches=$(sed -n 's/.*spent [0-9]* s: \([0-9]*\) launches.*/\1/p' "$rep")
if [ "$configs" -lt 2 ]; then
  sed -n '/^  budget/p' "$rep"
  [ "${launches:-0}" -lt 10 ] && grep -q "the budget cut a stage short" "$rep" \
    || fail "only $configs configuration(s) measured in $launches launches"
  echo "note: only $launches launches fit in $budget s on this loaded machine; the budget ended the search"
fi
grep -q '"native MPI-IO",reference,' "$csv" || fail "native MPI-IO not sampled"
echo "$configs configurations measured, $(($(wc -l <"$csv") - 1)) samples"

# the hints file: comments and "key value" lines only
bad=$(grep -v '^#' "$h" | grep -v '^$' | awk 'NF != 2' | head -1)
[ -z "$bad" ] || fail "malformed hints line: $bad"
keys=$(grep -v '^#' "$h" | awk 'NF == 2 {print $1}')
echo "hints file:"; cat "$h"
echo "$keys" | grep -qx cb_buffer_size || fail "no cb_buffer_size line"
grep -q "^# workload: ferry-bench $case " "$h" || fail "no provenance comment"

# ferry reads it: the report's own reproduce command, with the display on
cmd=$(sed -n 's/^  reproduce:  //p' "$rep")
[ -n "$cmd" ] || fail "no reproduce command"
disp=$out/tune_e2e_${case}_display.txt
eval "FERRY_HINTS_DISPLAY=1 $cmd" >/dev/null 2>"$disp" || { cat "$disp"; fail "the reproduce command failed"; }
for k in $keys; do
  v=$(awk -v k="$k" '$1 == k {print $2}' "$h")
  grep -Eq "^ +$k +.* file$" "$disp" || { cat "$disp"; fail "ferry did not take $k from the file"; }
  echo "ferry read $k = $v from the hints file"
done
if grep -Ei "^ferry:.*(ignored|malformed|warning|cannot)" "$disp"; then fail "ferry warned about the hints file"; fi
echo "tune_e2e_$case: ok"
