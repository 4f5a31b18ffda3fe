#!/usr/bin/env bash
# Overlap of nonblocking collective I/O with computation (issue 4): ferry's
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
rounds=${1:-5} ranks=${2:-2} xfer=${3:-1m} block=${4:-8m} ms=${5:-20} dir=${6:-/dev/shm}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=${BUILD:-build/openmpi}
bench=$build/bin/ferry-bench lib=$PWD/$build/lib/libferry.so
[ -x "$bench" ] || { echo "overlap: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-overlap.*' EXIT
configs="ferry ferry-noworker ompio"
[ "${MPICH:-0}" = 1 ] && configs="mpich-ferry mpich-ferry-noworker mpich-romio"
args=(ior -c -t "$xfer" -b "$block" -s 2 --overlap-ms "$ms")
for r in $(seq 1 "$rounds"); do
  for c in $configs; do
    case $c in
      ferry) run=(mpiexec.openmpi --oversubscribe -n "$ranks" -x LD_PRELOAD="$lib" -x FERRY_ASYNC=1) ;;
      ferry-noworker) run=(mpiexec.openmpi --oversubscribe -n "$ranks" -x LD_PRELOAD="$lib" -x FERRY_ASYNC=0) ;;
      ompio) run=(mpiexec.openmpi --oversubscribe -n "$ranks" --mca io ompio) ;;
      mpich-ferry) run=(mpiexec.mpich -n "$ranks" -genv LD_PRELOAD "$lib" -genv FERRY_ASYNC 1) ;;
      mpich-ferry-noworker) run=(mpiexec.mpich -n "$ranks" -genv LD_PRELOAD "$lib" -genv FERRY_ASYNC 0) ;;
      mpich-romio) run=(mpiexec.mpich -n "$ranks") ;;
    esac
    "${run[@]}" "$bench" "${args[@]}" -o "$dir/ferry-overlap.$c" \
      | awk -v c="$c" '$1 == "overlap" { print c, $2, $4, $7, $10, $16 }' >>"$out/all"
  done
  configs="$(echo $configs | awk '{ for (i = 2; i <= NF; i++) printf "%s ", $i; print $1 }')"
done
echo "overlap, $ranks ranks, ior -c -t $xfer -b $block -s 2, $ms ms of computation per call, $dir, $rounds rounds (medians)"
python3 - "$out/all" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    c, ph, io, comp, both, pct = line.split()
    v.setdefault((c, ph), []).append((float(io), float(comp), float(both), float(pct)))
for (c, ph), rows in sorted(v.items()):
    med = [statistics.median(r[i] for r in rows) for i in range(4)]
    print(f"{c:22s} {ph:5s}  io {med[0]:7.3f} s  compute {med[1]:7.3f} s  both {med[2]:7.3f} s"
          f"  overlap {med[3]:5.0f} %  (n={len(rows)})")
PY
