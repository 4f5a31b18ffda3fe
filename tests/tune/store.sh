#!/usr/bin/env bash
# store.sh TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": tuning offline
# and learning online are one mechanism. A tiny search whose only candidate
# is two-phase adds it to a store of learned choices; the workload run
# through ferry with that store then starts at two-phase, without trials,
# and says it learned it from ferry-tune; --show-store lists it.
set -u
. "$(dirname "$0")/common.sh"
store=$out/tune_store.json rec=$out/tune_store_rec.json
rm -f "$store" "$store.lock" "$rec"
args=(-n 12 --steps 4)
"$tune" --pattern btio --ranks 2 --budget 40s --reps 1 --max-samples 2 --min-samples 2 --no-control --no-native \
  --only 'ferry_write_strategy=twophase' --only 'ferry_read_strategy=twophase' --always-write \
  --store "$store" --out "$out/tune_store_hints.txt" -q -- "${args[@]}" -o "$out/tune_store.dat" >/dev/null \
  || fail "ferry-tune failed"
"$tune" --show-store --store "$store" >"$out/tune_store_list.txt" || fail "--show-store failed"
cat "$out/tune_store_list.txt"
grep -q "^  writes .*2 ranks on 1 node" "$out/tune_store_list.txt" || fail "no write pattern listed"
grep -q "choice twophase (ferry-tune" "$out/tune_store_list.txt" || fail "no ferry-tune choice listed"
run 2 FERRY_LEARN_CACHE="$store" FERRY_STATS_JSON="$rec" -- "$bench" btio "${args[@]}" -o "$out/tune_store.dat" \
  >/dev/null || fail "the run through ferry failed"
"$check" "$rec" -r 1 strategies.coll_write.strategy '~' twophase \
  strategies.coll_write.reason '~' "learned in an earlier run (ferry-tune)" \
  learning.coll_write.from_store == true learning.coll_write.trials == 0 || fail "the write did not start there"
"$check" "$rec" -r 2 strategies.coll_read.reason '~' "learned in an earlier run (ferry-tune)" || fail "the read"
echo "tune store: passed"
