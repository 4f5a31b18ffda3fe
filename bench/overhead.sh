#!/usr/bin/env bash
# Independent contiguous I/O: ferry against the native MPI-IO components of
# Open MPI in the same run (issue 2's overhead goal). Configurations run in
# alternation, round after round, so machine drift spreads over all of them;
# each launch does REPS repetitions and the table shows medians over every
# repetition of every round, with ferry's ratio to the best native.
#   bench/overhead.sh [ROUNDS] [RANKS] [XFER] [BLOCK] [DIR]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-7} ranks=${2:-4} xfer=${3:-1m} block=${4:-16m} dir=${5:-/dev/shm}
reps=${REPS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench=build/openmpi/bin/ferry-bench lib=$PWD/build/openmpi/lib/libferry.so
[ -x "$bench" ] || { echo "overhead: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-overhead.*' EXIT
configs="ompio romio321 ferry"
for r in $(seq 1 "$rounds"); do
  for c in $configs; do
    case $c in
      ferry) sel=(-x LD_PRELOAD="$lib") ;;
      *) sel=(--mca io "$c") ;;
    esac
    mpiexec.openmpi --oversubscribe -n "$ranks" --mca pml ob1 --mca btl self,vader "${sel[@]}" \
      "$bench" ior -t "$xfer" -b "$block" -s 2 -i "$reps" -o "$dir/ferry-overhead.$c" \
      | awk -v c="$c" '$2 == "write" || $2 == "read" { print c, $2, $8 }' >>"$out/all"
  done
  configs="$(echo $configs | awk '{ for (i = 2; i <= NF; i++) printf "%s ", $i; print $1 }')"
done
echo "independent contiguous, $ranks ranks, -t $xfer -b $block -s 2, $dir, $rounds rounds x $reps reps (MiB/s, medians)"
python3 - "$out/all" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    c, ph, bw = line.split()
    v.setdefault((c, ph), []).append(float(bw))
for ph in ("write", "read"):
    m = {c: statistics.median(v[(c, ph)]) for c in ("ompio", "romio321", "ferry")}
    best = max(m["ompio"], m["romio321"])
    lo, hi = min(v[("ferry", ph)]), max(v[("ferry", ph)])
    print(f"{ph:5s}  ompio {m['ompio']:8.1f}  romio {m['romio321']:8.1f}  ferry {m['ferry']:8.1f}"
          f"  ferry/best-native {m['ferry'] / best:5.3f}  (ferry runs {lo:.0f}..{hi:.0f}, n={len(v[('ferry', ph)])})")
PY
