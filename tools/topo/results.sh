#!/usr/bin/env bash
# Regenerates the tables in docs/topology-results.md from ferry-topo.
# usage: tools/topo/results.sh [path/to/ferry-topo] > tables.md
set -euo pipefail
B=${1:-build-topo/bin/ferry-topo}
SIZES="512 1024 2048 4096 8192"
BYTES="256KiB 1MiB 4MiB"

# markdown row fields: 1 empty, 2 name, 3 avg_hops, 4 max_hops, 5 max_link,
# 6 hop_bytes, 7 gw_msgs, 8 gw_bytes, 9 time, 10 fair, 11 transit, 12 moved
rows() { "$B" compare --machine "$1" --ppn 16 --bytes-per-rank "$2" ${3:-} --markdown --detail | tail -n +3; }

echo "## Per-size tables (16 ranks/node, 1 MiB per rank, one message per rank)"
for n in $SIZES; do
  echo
  echo "### bgq:$n"
  echo
  "$B" compare --machine "bgq:$n" --ppn 16 --bytes-per-rank 1MiB --markdown --detail
done

echo
echo "## Summary over sizes and write sizes"
echo
echo "Times are modelled_time_s; percentages are against default independent I/O."
echo
echo "| nodes | per rank | coalesce | default s | route-aware s | refined s | coll-default s | coll-bridge-ring s | coll-topology s | busiest bridge msgs default / route-aware | moved (route-aware) |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
  for b in $BYTES; do
    for c in "" "--coalesce"; do
      rows "bgq:$n" "$b" "$c" | awk -F'|' -v n="$n" -v b="$b" -v c="${c:+on}" '
        { name=$2; gsub(/ /,"",name); t[name]=$9+0; m[name]=$7+0; mv[name]=$12+0 }
        END {
          d=t["default"]
          printf "| %s | %s | %s | %.4f | %.4f (%+.0f%%) | %.4f (%+.0f%%) | %.4f (%+.0f%%) | %.4f (%+.0f%%) | %.4f (%+.0f%%) | %d / %d | %d |\n",
            n, b, (c==""?"off":c), d,
            t["route-aware"], 100*(t["route-aware"]/d-1), t["refined"], 100*(t["refined"]/d-1),
            t["collective-default"], 100*(t["collective-default"]/d-1),
            t["collective-bridge-ring"], 100*(t["collective-bridge-ring"]/d-1),
            t["collective-topology"], 100*(t["collective-topology"]/d-1),
            m["default"], m["route-aware"], mv["route-aware"]
        }'
    done
  done
done

echo
echo "## Sensitivity (bgq:4096, 1 MiB per rank)"
for v in "" ",bridge=0.0.0.0.0" ",default=nearest" ",order=longest" ",iobw=8e9" ",bridge=0.0.0.0.0,iobw=8e9"; do
  echo
  echo "### bgq:4096$v"
  echo
  "$B" compare --machine "bgq:4096$v" --ppn 16 --bytes-per-rank 1MiB --markdown --detail
done

echo
echo "## Per-request cost at the gateway (bgq:4096, 16 x 1 MiB per node = 64 GiB, default assignment)"
echo
echo "| msg-cost (s per request) | one message per rank: s | GB/s | coalesced: s | GB/s | ratio |"
echo "|---:|---:|---:|---:|---:|---:|"
for mc in 0 1e-4 1e-3 1e-2 1e-1; do
  a=$(rows bgq:4096 1MiB "--msg-cost $mc" | awk -F'|' '$2 ~ /^ default / {print $9+0}')
  c=$(rows bgq:4096 1MiB "--msg-cost $mc --coalesce" | awk -F'|' '$2 ~ /^ default / {print $9+0}')
  awk -v mc="$mc" -v a="$a" -v c="$c" 'BEGIN {
    g = 4096 * 16 * 1048576 / 1e9
    printf "| %s | %.4f | %.1f | %.4f | %.1f | %.1fx |\n", mc, a, g / a, c, g / c, a / c }'
done

echo
echo "## Other machines (16 ranks/node, 1 MiB per rank)"
for mach in dragonfly:theta "fattree:k=16,levels=3"; do
  echo
  echo "### $mach"
  echo
  "$B" compare --machine "$mach" --ppn 16 --bytes-per-rank 1MiB --markdown --detail
done
