#!/usr/bin/env bash
# What the flush after aggregated collective writes costs where client caches
# are not coherent (docs/filesystems.md, "Reading back what an aggregator
# wrote"): ROMIO, ferry as detected (it flushes) and ferry with
# ferry_cache_coherent=enable (no flush; an experiment on a volume with
# write-behind on: it gives up MPI's read-your-own-writes guarantee there),
# alternated round after round in one run, write MiB/s medians.
#   bench/cache_flush.sh [ROUNDS] [DIR]     (DIR: the sharded volume by default)
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} dir=${2:-}
if [ -z "$dir" ]; then
  eval "$(bash scripts/pfs.sh env)"
  bash scripts/pfs.sh status >/dev/null 2>&1 || { echo "cache_flush: the testbed is not up (make pfs-up)"; exit 77; }
  dir=$FERRY_PFS_SHARD
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench=$PWD/build/openmpi/bin/ferry-bench lib=$PWD/build/openmpi/lib/libferry.so
[ -x "$bench" ] || { echo "cache_flush: build first (make build)" >&2; exit 1; }
work=$(mktemp -d "$dir/ferry-cache-flush.XXXXXX") out=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
patterns=("btio|btio -n 64 --steps 8|"
          "tile|tile --sz-tile-x 1024 --sz-tile-y 1024 --sz-element 16|"
          "ior-64k-twophase|ior -a mpiio -c -t 64k -b 1m -s 16|:ferry_write_strategy=twophase")
run() { # config round
  local c=$1 p name args extra sel
  for p in "${patterns[@]}"; do
    IFS='|' read -r name args extra <<<"$p"
    case $c in
      romio321) sel=(--mca io romio321) ;;
      flush) sel=(-x LD_PRELOAD="$lib" -x FERRY_RANKS_PER_NODE=2)
             [ -n "$extra" ] && sel+=(-x "FERRY_HINTS=*$extra") ;;
      vouched) sel=(-x LD_PRELOAD="$lib" -x FERRY_RANKS_PER_NODE=2 -x "FERRY_HINTS=*$extra:ferry_cache_coherent=enable") ;;
    esac
    # shellcheck disable=SC2086
    mpiexec.openmpi --oversubscribe -n 8 "${sel[@]}" "$bench" $args -o "$work/$name.$c" \
      | awk -v c="$c" -v n="$name" '$2 == "write" { print n, c, $8 } $2 == "verify" && !/OK/ { print "VERIFY FAILED", n, c > "/dev/stderr" }' >>"$out/all"
  done
}
bench_rounds "$rounds" run romio321 flush vouched
echo "collective writes, Open MPI 8 ranks as 4 virtual nodes, $dir, $rounds rounds (write MiB/s, medians)"
bench_medians 2 <"$out/all" >"$out/med"
awk '{ m[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
     END { printf "%-18s %9s %9s %9s %13s %15s\n", "pattern", "romio321", "flush", "vouched", "flush/romio", "vouched/romio"
           for (i = 1; i <= n; i++) { p = order[i]
             printf "%-18s %9.1f %9.1f %9.1f %13.2f %15.2f\n", p, m[p, "romio321"], m[p, "flush"], m[p, "vouched"],
               m[p, "flush"] / m[p, "romio321"], m[p, "vouched"] / m[p, "romio321"] } }' "$out/med"
