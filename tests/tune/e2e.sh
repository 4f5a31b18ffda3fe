#!/usr/bin/env bash
# e2e.sh TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": a tiny tuning
# run writes a hints file, ferry reads every line of it back (source "file",
# no warning), and the report holds what it must.
set -u
. "$(dirname "$0")/common.sh"
h=$out/tune_e2e_hints.txt rep=$out/tune_e2e_report.txt csv=$out/tune_e2e_samples.csv
rm -f "$h" "$rep" "$csv"
"$tune" --pattern tile --ranks 2 --budget 30s --reps 1 --max-samples 4 \
  --only 'cb_buffer_size=1m|4m' --only ferry_write_strategy --always-write \
  --out "$h" --report "$rep" --samples "$csv" -q \
  -- --sz-tile-x 64 --sz-tile-y 32 -o "$out/tune_e2e.dat" >/dev/null || fail "ferry-tune failed"

# the report
for want in "ferry defaults" "best:" "native MPI-IO" "defaults again" "A/A control:" "speedup vs ferry's defaults" \
  "verdict:" "noise:" "reproduce:"; do
  grep -q "$want" "$rep" || fail "report lacks '$want'"
done
spent=$(sed -n 's/.*spent \([0-9]*\) s.*/\1/p' "$rep")
[ -n "$spent" ] && [ "$spent" -le 32 ] || fail "budget 30 s, spent '$spent' s"
[ "$(wc -l <"$csv")" -gt 5 ] || fail "samples CSV too short"

# the hints file: comments and "key value" lines only
bad=$(grep -v '^#' "$h" | grep -v '^$' | awk 'NF != 2' | head -1)
[ -z "$bad" ] || fail "malformed hints line: $bad"
keys=$(grep -v '^#' "$h" | awk 'NF == 2 {print $1}')
echo "hints file:"; cat "$h"
# cb_buffer_size is forced (1m or 4m, never ferry's default): it must be there
echo "$keys" | grep -qx cb_buffer_size || fail "no cb_buffer_size line"
grep -q '^# workload: ferry-bench tile' "$h" || fail "no provenance comment"

# ferry reads it: the report's own reproduce command, with the display on
cmd=$(sed -n 's/^  reproduce:  //p' "$rep")
[ -n "$cmd" ] || fail "no reproduce command"
disp=$out/tune_e2e_display.txt
eval "FERRY_HINTS_DISPLAY=1 $cmd" >/dev/null 2>"$disp" || { cat "$disp"; fail "the reproduce command failed"; }
for k in $keys; do
  v=$(awk -v k="$k" '$1 == k {print $2}' "$h")
  grep -Eq "^ +$k +.* file$" "$disp" || { cat "$disp"; fail "ferry did not take $k from the file"; }
  echo "ferry read $k = $v from the hints file"
done
if grep -Ei "^ferry:.*(ignored|malformed|warning|cannot)" "$disp"; then fail "ferry warned about the hints file"; fi
echo "tune_e2e: ok"
