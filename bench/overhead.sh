#!/usr/bin/env bash
# Independent contiguous I/O: ferry against the native MPI-IO components of
# Open MPI in the same run: what ferry's own layer costs. Configurations run in
# alternation, round after round, so machine drift spreads over all of them;
# each launch does REPS repetitions and the table shows medians over every
# repetition of every round, with ferry's ratio to the best native.
# BEFORE=dir adds a second ferry build (e.g. an older commit) to the
# alternation and a line comparing the two.
#   bench/overhead.sh [ROUNDS] [RANKS] [XFER] [BLOCK] [DIR]
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-7} ranks=${2:-4} xfer=${3:-1m} block=${4:-16m} dir=${5:-/dev/shm}
reps=${REPS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench=build/openmpi/bin/ferry-bench lib=$PWD/build/openmpi/lib/libferry.so
before=""
[ -n "${BEFORE:-}" ] && before=$(cd "$BEFORE" && pwd)
[ -x "$bench" ] || { echo "overhead: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-overhead.*' EXIT
run() { # config round
  local c=$1 sel
  case $c in
    ferry) sel=(-x LD_PRELOAD="$lib") ;;
    before) sel=(-x LD_PRELOAD="$before/lib/libferry.so") ;;
    *) sel=(--mca io "$c") ;;
  esac
  mpiexec.openmpi --oversubscribe -n "$ranks" --mca pml ob1 --mca btl self,vader "${sel[@]}" \
    "$bench" ior -t "$xfer" -b "$block" -s 2 -i "$reps" -o "$dir/ferry-overhead.$c" \
    | awk -v c="$c" '$2 == "write" || $2 == "read" { print c, $2, $8 }' >>"$out/all"
}
configs=(ompio romio321 ferry)
[ -n "$before" ] && configs+=(before)
bench_rounds "$rounds" run "${configs[@]}"
echo "independent contiguous, $ranks ranks, -t $xfer -b $block -s 2, $dir, $rounds rounds x $reps reps (MiB/s, medians)"
bench_medians 2 <"$out/all" >"$out/med"
awk 'FNR == NR { m[$1, $2] = $3; n[$1, $2] = $4; next }
     $1 == "ferry" { k = $2; if (!(k in lo) || $3 < lo[k]) lo[k] = $3; if (!(k in hi) || $3 > hi[k]) hi[k] = $3 }
     END {
       for (i = 1; i <= 2; i++) {
         ph = i == 1 ? "write" : "read"
         best = m["ompio", ph] > m["romio321", ph] ? m["ompio", ph] : m["romio321", ph]
         printf "%-5s  ompio %8.1f  romio %8.1f  ferry %8.1f  ferry/best-native %5.3f  (ferry runs %.0f..%.0f, n=%d)\n",
           ph, m["ompio", ph], m["romio321", ph], m["ferry", ph], m["ferry", ph] / best, lo[ph], hi[ph], n["ferry", ph]
         if (("before", ph) in m)
           printf "%-5s  before %8.1f  ferry/before %5.3f  (n=%d)\n", ph, m["before", ph], m["ferry", ph] / m["before", ph], n["before", ph]
       }
     }' "$out/med" "$out/all"
