#!/usr/bin/env bash
# The cluster's smoke test: ferry-bench's IOR pattern through a preloaded
# ferry across every compute node, collective writes, every byte read back
# and verified by ferry-bench. Then: ferry counted the nodes the MPI library
# reports (MPI_COMM_TYPE_SHARED), not one host; the file has every byte, as
# the clients of the first and the last node both see it once their caches
# have expired (GlusterFS's FUSE client keeps attributes and data about 1 s;
# what MPI's consistency rules promise sooner is for the consistency tests).
#
#   smoke.sh DIR NODES RANKS JSON -- LAUNCH...
#
# LAUNCH is the launch command up to and including ferry-bench (with ferry
# preloaded and FERRY_STATS_JSON=JSON forwarded); DIR is on the cluster's
# volume.
set -u
dir=$1 nodes=$2 ranks=$3 json=$4
shift 4
[ "${1:-}" = -- ] && shift
rm -f "$json"
block=$((1024 * 1024)) segs=2
"$@" ior -c -e -t 64k -b 1m -s $segs -k -o "$dir/smoke" || { echo "smoke: FAIL: ferry-bench failed"; exit 1; }
fail=0
rec=$(tail -n 1 "$json" 2>/dev/null)
[ -n "$rec" ] || { echo "smoke: FAIL: no statistics record in $json"; exit 1; }
n=$(grep -o '"nodes":[0-9]*' <<<"$rec" | head -1 | cut -d: -f2)
r=$(grep -o '"ranks":[0-9]*' <<<"$rec" | head -1 | cut -d: -f2)
[ "$n" = "$nodes" ] || { echo "smoke: FAIL: ferry saw ${n:-no} nodes, the cluster has $nodes"; fail=1; }
[ "$r" = "$ranks" ] || { echo "smoke: FAIL: ferry saw ${r:-no} ranks, $ranks were started"; fail=1; }
want=$((ranks * block * segs))
sleep 2
sums=""
for node in node1 "node$nodes"; do
  size=$(bash "$FERRY_CLUSTER" exec "$node" stat -c %s "$dir/smoke")
  [ "$size" = "$want" ] || { echo "smoke: FAIL: $node sees $size bytes, $want were written"; fail=1; }
  sums="$sums $(bash "$FERRY_CLUSTER" exec "$node" md5sum "$dir/smoke" | cut -d' ' -f1)"
done
set -- $sums
[ "$1" = "$2" ] || { echo "smoke: FAIL: node1 and node$nodes read different bytes ($1, $2)"; fail=1; }
[ $fail = 0 ] && echo "smoke: passed: $ranks ranks on $n nodes, $want bytes seen alike from node1 and node$nodes"
exit $fail
