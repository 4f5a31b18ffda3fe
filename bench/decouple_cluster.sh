#!/usr/bin/env bash
# Seed 001's operations across real links: sum and histogram over one shared
# file, data processes on the cluster's I/O nodes against the traditional
# read-and-reduce on the compute nodes (docs/cluster.md, "I/O nodes").
#
# Needs the cluster with its I/O-node tier (scripts/cluster.sh up --io-nodes M).
# Each round launches two jobs per build, the order rotating round by round:
#   traditional  -np NP -dp 0: the compute ranks read their parts through
#                their own clients, each byte crossing its node's link
#   decoupled    -np NP -dp D -f (compute nodes, then I/O nodes): the data
#                processes sit on the I/O nodes, read next to the storage
#                and send the compute ranks only the results
# One operation per job. Around each job the switch's counters give the bytes that crossed the
# compute nodes' links and the I/O nodes' storage links. The report gives,
# per build and operation, the medians over the rounds, the ratios, and a
# one-sided exact Mann-Whitney p-value that decoupled is faster.
#
#   bench/decouple_cluster.sh [SIZE] [ROUNDS] [VOLUME] [CALL]
#   defaults:                  128m   5        shard    4m
#   BUILDS="build/openmpi" NP=8 DP=(I/O nodes x their slots) OUT=dir (keeps samples)
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
size=${1:-128m} rounds=${2:-5} volume=${3:-shard} call=${4:-4m}
builds=${BUILDS:-"build/openmpi"}
np=${NP:-8}
cl() { bash scripts/cluster.sh "$@"; }
eval "$(cl env | grep -E '^FERRY_CLUSTER_(IO_NODES|IO_SLOTS|SHARD|DIST)=')"
ions=${FERRY_CLUSTER_IO_NODES:-0}
if [ "$ions" -lt 1 ]; then
  echo "decouple_cluster.sh: the cluster has no I/O nodes (scripts/cluster.sh down; scripts/cluster.sh up --io-nodes 2)" >&2
  exit 77
fi
dp=${DP:-$((ions * ${FERRY_CLUSTER_IO_SLOTS:-1}))}
case $volume in
  shard) mnt=$FERRY_CLUSTER_SHARD ;;
  dist) mnt=$FERRY_CLUSTER_DIST ;;
  *) echo "decouple_cluster.sh: VOLUME is shard or dist" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
: >"$out/samples"
file="$mnt/ferry-decouple-cluster.$$.dat"
trap 'cl exec node1 rm -f "$file"; [ -n "${OUT:-}" ] || rm -rf "$out"' EXIT

for b in $builds; do
  [ -x "$b/bin/ferry-run" ] && [ -x "$b/bin/ferry-decouple-bench" ] ||
    { echo "decouple_cluster.sh: $b is not built (make build)" >&2; exit 1; }
done

# "compute BYTES ionstorage BYTES" from two readings of the counters
links() { # before after
  awk 'FNR == NR && $1 == "link" { a[$2] = $4 + $5; next }
       $1 == "link" { d = $4 + $5 - a[$2]; if ($2 ~ /^node/) c += d; if ($2 ~ /\/storage$/) s += d }
       END { printf "%d %d\n", c, s }' "$1" "$2"
}

job() { # build, mode, operation, round
  local b=$1 mode=$2 op=$3 flavor hosts=() before after j d=0
  flavor=$(basename "$b")
  if [ "$mode" = decoupled ]; then
    d=$dp
    # compute nodes first, then I/O nodes: the data processes take the last
    if [ "$flavor" = mpich ]; then hosts=(-f "$(cl hosts all hydra)"); else hosts=(-f "$(cl hosts all openmpi)"); fi
  fi
  before=$(mktemp) after=$(mktemp) j=$(mktemp)
  cl counters >"$before"
  cl mpirun "$flavor" --via "$PWD/$b/bin/ferry-run" -np "$np" -dp "$d" "${hosts[@]}" \
    "$PWD/$b/bin/ferry-decouple-bench" -o "$file" -s "$size" -t "$call" -w 0 -r 1 \
    --ops "$op" --mode "$mode" --json >"$j"
  cl counters >"$after"
  read -r cbytes sbytes < <(links "$before" "$after")
  # one line per operation: build op mode round seconds bytes_to_compute compute_link_bytes agree
  awk -v b="$flavor" -v m="$mode" -v r="$4" -v c="$cbytes" -v s="$sbytes" '
    function field(k,   x) {
      if (!match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) return ""
      x = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", x); return x
    }
    /^\{/ && field("mode") == m { print b, field("op"), m, r, field("median_s"), field("bytes_to_compute"), c, s, field("agree") }' \
    "$j" >>"$out/samples"
  rm -f "$before" "$after" "$j"
}

# the file is made before the first timed job, so that no job pays for it
b=${builds%% *}
cl mpirun "$(basename "$b")" --via "$PWD/$b/bin/ferry-run" -np "$np" -dp 0 \
  "$PWD/$b/bin/ferry-decouple-bench" -o "$file" -s "$size" -t "$call" -w 0 -r 1 --ops sum --mode traditional >/dev/null
sample() { # build:mode:operation round
  local b=${1%%:*} rest=${1#*:}
  job "$b" "${rest%%:*}" "${rest#*:}" "$2"
}
bench_round_done() { echo "decouple_cluster.sh: round $1 of $rounds done" >&2; }
configs=()
for b in $builds; do
  for op in sum histogram; do configs+=("$b:traditional:$op" "$b:decoupled:$op"); done
done
bench_rounds "$rounds" sample "${configs[@]}"

echo "seed 001's operations on the cluster: $size of doubles on the $volume volume, $call per call," \
  "$np compute ranks, $dp data processes on $ions I/O nodes, $rounds rounds"
python3 bench/decouple_cluster_report.py "$out/samples"
