#!/usr/bin/env bash
# proxy.sh CASE TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": runs a
# pattern with FERRY_STATS_JSON, rebuilds a proxy from the record
# (ferry-tune --from), runs the proxy under the record's hints and checks
# that its record has the same calls, bytes and holes (ferry-tune --check).
# Sizes are odd on purpose. Most cases go through ferry's independent path,
# where holes are counted; tile_local keeps ferry's defaults (local
# aggregation, holes not counted: the proxy fits the piece size auto reports).
set -u
case=$1
pat=${case%%_*}
shift
. "$(dirname "$0")/common.sh"
rec=$out/tune_proxy_$case.json
ind="FERRY_HINTS=*:ferry_write_strategy=independent:ferry_read_strategy=independent"
rm -f "$rec"
hints=()
case $case in
  tile)       args=(--sz-tile-x 24 --sz-tile-y 10 --sz-element 12) hints=("$ind") ;;
  tile_local) args=(--sz-tile-x 24 --sz-tile-y 10 --sz-element 12) ;;
  hacc)       args=(-n 3001) hints=("$ind") ;;
  ior)        args=(-c -t 12k -b 48k -s 3) ;;
  btio)       args=(-n 10 --steps 3) hints=("$ind") ;;
esac
run 2 FERRY_STATS_JSON="$rec" "${hints[@]}" -- "$bench" "$pat" "${args[@]}" -o "$out/tune_proxy_$case.dat" \
  || fail "the original $pat run failed"
[ -s "$rec" ] || fail "no statistics record"
"$tune" --from "$rec" --print-proxy || fail "no proxy"
"$tune" --from "$rec" --check --file "$out/tune_proxy_${case}_replay.dat" || fail "the proxy does not reproduce the record"
# the proxy is the same pattern here (the originals are ferry-bench's own)
"$tune" --from "$rec" --print-proxy | grep -q "proxy   ferry-bench $pat " || fail "the fit chose another pattern"
echo "tune_proxy_$case: ok"
