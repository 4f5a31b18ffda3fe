#!/usr/bin/env bash
# Per-call latency of small two-phase collectives: 8 ranks on 4
# virtual nodes, IOR segmented 8 KiB transfers, ferry's two-phase against
# OMPIO in alternation; prints the median milliseconds per collective call and,
# from one extra counted run, the MPI calls ferry makes per collective call.
#   bench/latency.sh [ROUNDS] [RANKS] [BLOCK] [SEGMENTS] [DIR]
# BUILD=dir picks the ferry build (default build/openmpi); BEFORE=dir adds a
# second ferry build (e.g. an older commit) to the alternation.
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} ranks=${2:-8} block=${3:-4m} segs=${4:-4} dir=${5:-/dev/shm}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=$(cd "${BUILD:-build/openmpi}" 2>/dev/null && pwd) || { echo "latency: build first (make build)" >&2; exit 1; }
before=""
[ -n "${BEFORE:-}" ] && before=$(cd "$BEFORE" && pwd)
bench=$build/bin/ferry-bench
[ -x "$bench" ] || { echo "latency: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-latency.*' EXIT
rpn=$((ranks / 4)); [ "$rpn" -ge 1 ] || rpn=1
hints='*:ferry_write_strategy=twophase:ferry_read_strategy=twophase'
args=(ior -c -t 8k -b "$block" -s "$segs")
case ${block,,} in
  *k) unit=$((1 << 10)) ;; *m) unit=$((1 << 20)) ;; *g) unit=$((1 << 30)) ;; *) unit=1 ;;
esac
num=${block%[kKmMgG]}
[[ $num =~ ^[0-9]+$ ]] || { echo "latency: BLOCK must be a number with an optional k, m or g" >&2; exit 1; }
calls=$((num * unit / 8192 * segs))
configs=(ferry ompio)
[ -n "$before" ] && configs=(ferry before ompio)
run() { # config round
  local c=$1 sel
  case $c in
    ferry) sel=(-x LD_PRELOAD="$build/lib/libferry.so" -x FERRY_HINTS="$hints" -x FERRY_RANKS_PER_NODE=$rpn) ;;
    before) sel=(-x LD_PRELOAD="$before/lib/libferry.so" -x FERRY_HINTS="$hints" -x FERRY_RANKS_PER_NODE=$rpn) ;;
    ompio) sel=(--mca io ompio) ;;
  esac
  mpiexec.openmpi --oversubscribe -n "$ranks" "${sel[@]}" "$bench" "${args[@]}" -o "$dir/ferry-latency.$c" \
    | awk -v c="$c" '$2 == "write" || $2 == "read" { print c, $2, $6 }' >>"$out/all"
}
bench_rounds "$rounds" run "${configs[@]}"
echo "per-call latency, $ranks ranks ($rpn per virtual node), ${args[*]} ($calls calls per rank per phase), $dir, $rounds rounds"
bench_medians 2 <"$out/all" | LC_ALL=C sort -k1,1 -k2,2 |
  awk -v n="$calls" '{ printf "%-7s %-5s  %7.3f ms per call  (n=%d)\n", $1, $2, 1000 * $3 / n, $4 }'
# MPI calls per collective call, counted by a library loaded after libferry
mpicc.openmpi -O2 -shared -fPIC bench/mpicount.c -o "$out/mpicount.so" -ldl
for b in $build $before; do
  for ph in w r; do
    echo "MPI calls per rank, $b, phase $ph ($calls collective calls, plus open and close):"
    mpiexec.openmpi --oversubscribe -n "$ranks" -x LD_PRELOAD="$b/lib/libferry.so:$out/mpicount.so" \
      -x FERRY_HINTS="$hints" -x FERRY_RANKS_PER_NODE=$rpn "$bench" "${args[@]}" -$ph -k -o "$dir/ferry-latency.count" \
      2>&1 | grep '^rank' | sed 's/^/  /'
  done
done
