#!/usr/bin/env bash
# Regenerates the simulated table of docs/topology-results.md: `ferry-topo
# simulate ... --json` for BG/Q 512 to 4096 nodes, 16 ranks per node, 1 MiB
# per rank, at simulate's calibrated per-request cost (or MSG_COST=S to
# override), rendered as markdown.
# usage: tools/topo/simulate_results.sh [path/to/ferry-topo] > table.md
set -euo pipefail
B=${1:-build/openmpi/bin/ferry-topo}
SIZES=${SIZES:-"512 1024 2048 4096"}
extra=()
[ -n "${MSG_COST:-}" ] && extra=(--msg-cost "$MSG_COST")
for n in $SIZES; do
  "$B" simulate --machine "bgq:$n" --ppn 16 --bytes-per-rank 1MiB --json "${extra[@]}"
done | python3 -c '
import json, sys
docs = [json.loads(l) for l in sys.stdin if l.strip()]
print("Per-request cost %.4g s at the gateway; GB/s = bytes written / simulated time." % docs[0]["msg_cost_s"])
print()
print("| nodes | row | avg hops | busiest gateway msgs | busiest bridge msgs (incl. transit) | transit msgs, all bridges | moved | floor s | simulated s | GB/s | sim wall s |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for d in docs:
    for r in d["results"]:
        print("| %d | %s | %.3f | %d | %d | %d | %d | %.4f | %.4f | %.2f | %.1f |" % (d["nodes"], r["assignment"], r["avg_hops"],
              r["max_gateway_msgs"], r["max_bridge_msgs"], r["bridge_transit_msgs"], r["moved_nodes"], r["floor_time_s"], r["simulated_time_s"],
              r["bandwidth_gbps"], r["wall_s"]))
print()
print("| nodes | route-aware vs default (goal <= -30 %) | busiest-bridge msgs default / route-aware (goal >= 1.2) | aggregated GB/s / default (goal >= 5 at 4096) |")
print("|---:|---:|---:|---:|")
for d in docs:
    print("| %d | %+.1f %% | %.2f | %.1f |" % (d["nodes"], 100 * d["route_aware_vs_default"],
          d["bridge_msgs_default_over_route_aware"], d["aggregated_bandwidth_over_default"]))
'
