#!/usr/bin/env bash
# Overlap of nonblocking collective I/O with computation: ferry's
# worker (MPI_THREAD_MULTIPLE) against ferry completing at the start
# (FERRY_ASYNC=0) and native OMPIO, in alternation, round after round. Each
# launch times the same iwrite_at_all/iread_at_all transfers as blocking
# collectives, the computation alone, and both together (ferry-bench ior
# --overlap-ms); the table shows medians of the achieved overlap,
# (io + compute - both) / min(io, compute), and of each time.
# ROMIO 3.2.1 in Open MPI crashes in iwrite_at_all at MPI_THREAD_MULTIPLE on
# this machine, so it is left out; MPICH runs with MPICH=1 (its ROMIO).
#   bench/overlap.sh [ROUNDS] [RANKS] [XFER] [BLOCK] [COMPUTE_MS] [DIR]
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} ranks=${2:-2} xfer=${3:-1m} block=${4:-8m} ms=${5:-20} dir=${6:-/dev/shm}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=${BUILD:-build/openmpi}
bench=$build/bin/ferry-bench lib=$PWD/$build/lib/libferry.so
[ -x "$bench" ] || { echo "overlap: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-overlap.*' EXIT
configs=(ferry ferry-noworker ompio)
[ "${MPICH:-0}" = 1 ] && configs=(mpich-ferry mpich-ferry-noworker mpich-romio)
args=(ior -c -t "$xfer" -b "$block" -s 2 --overlap-ms "$ms")
run() { # config round
  local c=$1 launch
  case $c in
    ferry) launch=(mpiexec.openmpi --oversubscribe -n "$ranks" -x LD_PRELOAD="$lib" -x FERRY_ASYNC=1) ;;
    ferry-noworker) launch=(mpiexec.openmpi --oversubscribe -n "$ranks" -x LD_PRELOAD="$lib" -x FERRY_ASYNC=0) ;;
    ompio) launch=(mpiexec.openmpi --oversubscribe -n "$ranks" --mca io ompio) ;;
    mpich-ferry) launch=(mpiexec.mpich -n "$ranks" -genv LD_PRELOAD "$lib" -genv FERRY_ASYNC 1) ;;
    mpich-ferry-noworker) launch=(mpiexec.mpich -n "$ranks" -genv LD_PRELOAD "$lib" -genv FERRY_ASYNC 0) ;;
    mpich-romio) launch=(mpiexec.mpich -n "$ranks") ;;
  esac
  "${launch[@]}" "$bench" "${args[@]}" -o "$dir/ferry-overlap.$c" \
    | awk -v c="$c" '$1 == "overlap" { print c, $2, $4, $7, $10, $16 }' >>"$out/all"
}
bench_rounds "$rounds" run "${configs[@]}"
echo "overlap, $ranks ranks, ior -c -t $xfer -b $block -s 2, $ms ms of computation per call, $dir, $rounds rounds (medians)"
bench_medians 2 <"$out/all" | LC_ALL=C sort -k1,1 -k2,2 |
  awk '{ printf "%-22s %-5s  io %7.3f s  compute %7.3f s  both %7.3f s  overlap %5.0f %%  (n=%d)\n", $1, $2, $3, $4, $5, $6, $7 }'
