#!/usr/bin/env bash
# compare.sh TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": ferry-tune
# --compare runs ferry's defaults, a hints file and native MPI-IO in
# rotating order and prints one row each and a summary line; the hints file
# reaches ferry in the tuned runs (a file with a bad value makes ferry warn,
# and the comparison refuses to report on runs that ignored a hint).
set -u
. "$(dirname "$0")/common.sh"
good=$out/tune_compare_good.txt bad=$out/tune_compare_bad.txt res=$out/tune_compare_out.txt
printf '# written by hand\nferry_write_strategy twophase\ncb_buffer_size 1m\n' >"$good"
printf 'cb_buffer_size banana\n' >"$bad"
args=(--sz-tile-x 32 --sz-tile-y 16 -o "$out/tune_compare.dat")

"$tune" --pattern tile --ranks 2 --compare "$good" --rounds 3 --reps 1 -- "${args[@]}" >"$res" \
  || { cat "$res"; fail "--compare failed"; }
cat "$res"
grep -q "applies: ferry_write_strategy=twophase cb_buffer_size=1m" "$res" || fail "the applied hints are not listed"
for row in "ferry defaults" "tuned \\(hints file\\)" "native MPI-IO"; do
  grep -Eq "^  $row +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9]+% +3 +[0-9.]+x$" "$res" || fail "no row '$row' with 3 samples"
done
grep -q "tuned vs defaults: " "$res" || fail "no speedup line"
grep -Eq '^compare: defaults=[0-9.]+ tuned=[0-9.]+ native=[0-9.]+ speedup=[0-9.]+ p_faster=[0-9.]+ p_slower=[0-9.]+ n=3$' \
  "$res" || fail "no summary line"

# --no-native: two configurations only
"$tune" --pattern tile --ranks 2 --compare "$good" --rounds 2 --reps 1 --no-native -- "${args[@]}" >"$res" \
  || fail "--compare --no-native failed"
if grep -q "^  native MPI-IO" "$res"; then fail "native MPI-IO ran under --no-native"; fi
grep -q "native=0.000000" "$res" || fail "summary line under --no-native"

# the tuned runs read the file: ferry ignores the bad value and says so
if "$tune" --pattern tile --ranks 2 --compare "$bad" --rounds 1 --reps 1 --no-native -- "${args[@]}" >"$res" 2>&1; then
  cat "$res"
  fail "--compare accepted runs in which ferry ignored a hint of the file"
fi
grep -q "FERRY_HINTS_FILE line 1: hint cb_buffer_size" "$res" || { cat "$res"; fail "no word of the bad line"; }
echo "tune_compare: ok"
