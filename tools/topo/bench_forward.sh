#!/usr/bin/env bash
# Forwarding against direct independent I/O, two measurements:
#
# 1. This host: IOR-like segmented N:1 independent writes and reads (with
#    MPI_File_sync at the end of the write phase, so forwarded data is in the
#    file when the clock stops) under ferry's direct path and under forward
#    with 1 and 0 collectors per node, FERRY_RANKS_PER_NODE virtual nodes.
#    Configurations alternate round after round; the table gives medians of
#    every repetition and each ratio to direct. One host has one disk and no
#    interconnect: forwarding can only add copies and hops here, so this
#    shows its cost, not the network effect it exists for.
# 2. At scale, through the model: the same pattern run once forwarded on a
#    virtual BG/Q placement with FERRY_TRACE; ferry-topo replay costs the real
#    sends and writes on the model with the default and the route-aware
#    assignment (TRACE_RANKS ranks; one host cannot run a trace of thousands).
# 3. The modelled traffic of forwarding at the seed's scale (deterministic):
#    ferry-topo compare --coalesce on BG/Q 512 and 4096 nodes, 16 ranks per
#    node, 1 MiB per rank: one coalesced message per node to its gateway,
#    default against route-aware, refined and load-aware assignment.
#
#   tools/topo/bench_forward.sh [ROUNDS] [RANKS] [XFER] [BLOCK] [DIR]
#   env: BUILD (default build/openmpi), PPN (2), REPS (3), MACHINE (bgq:2x2x2x2x2),
#        TRACE_RANKS (RANKS)
set -eu
cd "$(dirname "$0")/../.."
. bench/alternate.sh
rounds=${1:-5} ranks=${2:-4} xfer=${3:-256k} block=${4:-8m} dir=${5:-/dev/shm}
reps=${REPS:-3} ppn=${PPN:-2} trace_ranks=${TRACE_RANKS:-$ranks} build=${BUILD:-build/openmpi} machine=${MACHINE:-bgq:2x2x2x2x2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench=$build/bin/ferry-bench lib=$PWD/$build/lib/libferry.so topo=$build/bin/ferry-topo
[ -x "$bench" ] || { echo "bench_forward: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-fwd.*' EXIT
fwd="ferry_ind_write_strategy=forward:ferry_ind_read_strategy=forward"
hints_of() {
  case $1 in
    direct) echo "*:ferry_ind_write_strategy=direct:ferry_ind_read_strategy=direct" ;;
    forward1) echo "*:$fwd:ferry_forward_collectors=1" ;;
    forward0) echo "*:$fwd:ferry_forward_collectors=0" ;;
  esac
}
run() { # config extra-env... -> ferry-bench text on stdout
  local c=$1 n=${NP:-$ranks}; shift
  mpiexec.openmpi --oversubscribe -n "$n" --mca pml ob1 --mca btl self,vader \
    -x LD_PRELOAD="$lib" -x FERRY_HINTS="$(hints_of "$c")" -x FERRY_RANKS_PER_NODE="$ppn" "$@" \
    "$bench" ior -t "$xfer" -b "$block" -s 2 -e -i "$reps" -o "$dir/ferry-fwd.$c"
}
sample() { # config round
  run "$1" | awk -v c="$1" '$2 == "write" || $2 == "read" { print c, $2, $8 }' >>"$out/all"
}
bench_rounds "$rounds" sample direct forward1 forward0
echo "independent, $ranks ranks, $ppn per virtual node, -t $xfer -b $block -s 2 -e, $dir, $rounds rounds x $reps reps (MiB/s, medians)"
bench_medians 2 <"$out/all" |
  awk '{ m[$1, $2] = $3; n[$1, $2] = $4 }
       END {
         for (i = 1; i <= 2; i++) {
           ph = i == 1 ? "write" : "read"
           printf "%-5s  direct %8.1f  forward(1 collector) %8.1f (%5.3fx)  forward(0) %8.1f (%5.3fx)  n=%d\n", ph,
             m["direct", ph], m["forward1", ph], m["forward1", ph] / m["direct", ph],
             m["forward0", ph], m["forward0", ph] / m["direct", ph], n["direct", ph]
         }
       }'
echo
echo "replay of one forwarded run ($trace_ranks ranks, FERRY_TOPOLOGY=$machine, $ppn ranks per node) on $machine:"
rm -f "$out/trace.json"
NP=$trace_ranks FERRY_TRACE=$out/trace.json run forward1 -x FERRY_TRACE -x FERRY_TOPOLOGY="$machine" >/dev/null
for a in default route-aware load-aware; do
  "$topo" replay "$out/trace.json" --machine "$machine" --ppn "$ppn" --assign "$a" | tail -1
done

echo
echo "modelled forwarding at scale (ferry-topo compare --coalesce, 16 ranks/node, 1 MiB per rank):"
for m in bgq:512 bgq:4096; do
  "$topo" compare --machine "$m" --ppn 16 --bytes-per-rank 1MiB --coalesce | grep -E "^(#|assignment|default|route-aware|refined|load-aware) "
done
