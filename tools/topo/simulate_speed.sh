#!/usr/bin/env bash
# How long `ferry-topo simulate` takes on 4096 nodes x 16 ranks (all seven
# rows), network-only and file-system costs, balanced and uneven writers:
# ROUNDS rounds in rotating order (bench/alternate.sh), medians of wall
# seconds, CPU seconds and peak memory. Hold the bench lock:
#   flock /work/.locks/bench tools/topo/simulate_speed.sh [ferry-topo] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../../bench/alternate.sh
. bench/alternate.sh
B=${1:-build/openmpi/bin/ferry-topo}
ROUNDS=${2:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() { # config round
  local costs=${1%%/*} w=${1#*/} extra=()
  [ "$costs" = fs ] && extra=(--fs)
  /usr/bin/time -f "%e %U %S %M" -o "$out.t" "$B" simulate --machine bgq:4096 --ppn 16 --bytes-per-rank "$w" \
    "${extra[@]}" > /dev/null 2> "$out.err"
  read -r wall user sys rss < "$out.t"
  local progress
  # both kinds: a row's start once the run passed 10 s, and the engine's
  progress=$(grep -c -e "writes, simulated" -e "s so far" "$out.err" || true)
  # the first line's time: how long the run was silent
  local first
  first=$(grep -m1 -o -e "[0-9]* s wall" -e "[0-9]* s so far" "$out.err" | grep -o "^[0-9]*" || echo 0)
  echo "$1 $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $((rss / 1024)) $progress $first" >> "$out"
}
echo "# $(uptime)"
bench_rounds "$ROUNDS" run net/1MiB net/1MiB:25%x4 fs/1MiB fs/1MiB:25%x4
echo "# $(uptime)"
echo "# costs/writers wall_s cpu_s peak_MiB progress_lines first_line_s(0: none) rounds (medians)"
bench_medians 1 < "$out"
rm -f "$out.t" "$out.err"
