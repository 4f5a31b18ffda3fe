#!/usr/bin/env bash
# from.sh TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": tuning without
# rerunning the application. A ferry-unaware run leaves a FERRY_STATS_JSON
# record; ferry-tune --from tunes the proxy it rebuilds and writes a hints
# file that names the record's file, and --compare checks that hints file
# on the same proxy.
set -u
. "$(dirname "$0")/common.sh"
rec=$out/tune_from.json h=$out/tune_from_hints.txt rep=$out/tune_from_report.txt res=$out/tune_from_compare.txt
rm -f "$rec" "$h" "$rep" "$res"
run 2 FERRY_STATS_JSON="$rec" -- "$bench" hacc -n 1500 -o "$out/tune_from_app.dat" || fail "the application run failed"
[ -s "$rec" ] || fail "no statistics record"

"$tune" --from "$rec" --budget 40s --reps 1 --min-samples 2 --max-samples 4 --no-control \
  --only 'cb_buffer_size=1m|4m' --only ferry_write_strategy --always-write \
  --file "$out/tune_from_proxy.dat" --out "$h" --report "$rep" -q >/dev/null || fail "ferry-tune --from failed"
grep -q "proxy of  $out/tune_from_app.dat" "$rep" || { cat "$rep"; fail "the report does not name the record's file"; }
grep -q "workload  ferry-bench hacc " "$rep" || fail "the proxy is not hacc"
grep -q "^# proxy of: $out/tune_from_app.dat" "$h" || fail "the hints file does not name the record's file"
grep -q '^cb_buffer_size ' "$h" || fail "no cb_buffer_size line"
cat "$h"

"$tune" --from "$rec" --compare "$h" --rounds 2 --reps 1 --no-native --file "$out/tune_from_proxy.dat" >"$res" \
  || { cat "$res"; fail "--compare --from failed"; }
grep -Eq '^compare: defaults=[0-9.]+ tuned=[0-9.]+ native=0\.000000 speedup=[0-9.]+ .* n=2$' "$res" \
  || { cat "$res"; fail "no summary line"; }
echo "tune_from: ok"
