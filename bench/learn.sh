#!/usr/bin/env bash
# What auto's learning achieves and costs, in one go (bench/results/learn.md
# explains the measurements):
#   1. make demo's comparison (bench/compare.py --quick: both builds, /dev/shm
#      and the GlusterFS testbed's sharded volume when it is up) with auto
#      learning from an empty store of its own, and auto without learning
#      (ferry-rules) beside it: what a first `make demo` on a new machine sees;
#   2. the same again with the store the first one left: the next run;
#   3. bench/learn_goal.py on both: the cells where auto is within 0.9x of
#      the best configuration, and those below 0.8x the best native;
#   4. bench/learn_cost.sh for each build on /dev/shm and on the sharded
#      volume: whole-run time through auto on repeated patterns against the
#      best forced strategy.
#
#   flock /work/.locks/bench bench/learn.sh [OUT] [ROUNDS]   (default bench/out/learn, 3)
# The emulated cluster is left out (--no-cluster): its runs need the
# cluster's shared lock, and compare.py's default volume there is the sharded
# one, where every verification fails (docs/cluster.md).
# Keep the builds unchanged while it runs: the runs load build/*/lib/libferry.so.
set -u
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-bench/out/learn}" && cd "${1:-bench/out/learn}" && pwd) rounds=${2:-3}
py=python3
for c in /usr/bin/python3 python3; do
  if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
store=$out/store.json
rm -f "$store" "$store.lock"
log() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
log "bench/learn.sh at $(git rev-parse --short HEAD), $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for pass in first next; do
  log "== compare.py --quick, $pass run (store $store)"
  "$py" bench/compare.py --quick --rounds "$rounds" --rules --learn-store "$store" --no-plots --no-cluster \
    --out "$out/$pass" >"$out/$pass.log" 2>&1 || status=1
  "$py" bench/learn_goal.py "$out/$pass/results.json" | tee -a "$out/summary.txt"
done
eval "$(bash scripts/pfs.sh env)"
shard=""
bash scripts/pfs.sh status >/dev/null 2>&1 && shard=$FERRY_PFS_SHARD
# /dev/shm for both builds first: minutes, where the testbed's runs take an
# hour under load (independent BT-IO on GlusterFS), so a cut-short run still
# has both builds' costs. MPICH's yaksa handle-leak lines are its, not ours.
for fs in /dev/shm $shard; do
  for b in build/openmpi build/mpich; do
    rpn=""
    # 4 virtual nodes, as compare.py runs the testbed
    [ "$fs" = "$shard" ] && [ "$b" = build/openmpi ] && rpn=2
    log "== learn_cost.sh $b $fs"
    RPN=$rpn bash bench/learn_cost.sh "$rounds" "$b" "$fs" 2>&1 | grep -v 'yaksa: .* leaked' |
      tee -a "$out/summary.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
  done
done
log "done $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
