#!/usr/bin/env bash
# What opening and closing cost: PAIRS open+close pairs of one
# shared file on 2 ranks (`ferry-bench open`), ferry against the build's own
# MPI-IO (OMPIO for Open MPI, ROMIO for MPICH), both builds, in alternation.
# Prints the medians per open and per close, ferry's ratio to native, and
# the MPI calls ferry makes per pair (counted by bench/mpicount.c).
#   bench/openclose.sh [ROUNDS] [PAIRS] [DIR]
# CREATE=1 passes MPI_MODE_CREATE at every open; BUILDS="openmpi mpich"
# picks the builds; BEFORE=dir (a tree with build/<mpi>/lib) adds an older
# ferry to the alternation. Hold the bench lock:
#   flock /work/.locks/bench bench/openclose.sh 7 1000
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} pairs=${2:-1000} dir=${3:-/tmp}
builds=${BUILDS:-openmpi mpich}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
before=""
[ -n "${BEFORE:-}" ] && before=$(cd "$BEFORE" && pwd)
create=()
[ "${CREATE:-0}" = 1 ] && create=(--create)
for b in $builds; do
  [ -x "build/$b/bin/ferry-bench" ] || { echo "openclose: build first (make build)" >&2; exit 1; }
done
out=$(mktemp -d)
file=$dir/ferry-openclose.$$
trap 'rm -rf "$out" "$file".*' EXIT

launch() { # build library(or "") ferry-bench args...
  local b=$1 lib=$2
  shift 2
  if [ "$b" = openmpi ]; then
    mpiexec.openmpi -n 2 --mca pml ob1 --mca btl self,vader ${lib:+-x LD_PRELOAD="$lib"} "$@"
  else
    mpiexec.mpich -n 2 ${lib:+-genv LD_PRELOAD "$lib"} "$@"
  fi
}

run() { # build:config round
  local b=${1%%:*} c=${1#*:} lib=""
  case $c in
    ferry) lib=$PWD/build/$b/lib/libferry.so ;;
    before) lib=$before/build/$b/lib/libferry.so ;;
  esac
  # the text report: --json would have ferry collect statistics at every close
  launch "$b" "$lib" "build/$b/bin/ferry-bench" open -n "$pairs" "${create[@]}" -o "$file.$b" |
    awk -v k="$b $c" -v n="$pairs" '$2 == "open" { printf "%s %.3f %.3f\n", k, 1e6 * $4 / n, 1e6 * $6 / n }' >>"$out/all"
}

configs=()
for b in $builds; do
  configs+=("$b:native" "$b:ferry")
  [ -n "$before" ] && configs+=("$b:before")
done
echo "open+close cost: 2 ranks, $pairs pairs${create:+ (MPI_MODE_CREATE at every open)}, $dir, $rounds rounds"
echo "load before: $(uptime)"
bench_rounds "$rounds" run "${configs[@]}"
echo "load after:  $(uptime)"
bench_medians 2 <"$out/all" |
  awk '{ op[$1, $2] = $3; cl[$1, $2] = $4; n[$1, $2] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 } }
       END {
         printf "%-8s %-7s %10s %10s %10s %9s %7s\n", "build", "config", "open us", "close us", "pair us", "x native", "rounds"
         for (i = 1; i <= nb; i++) {
           b = order[i]; nat = op[b, "native"] + cl[b, "native"]
           split("native ferry before", cs, " ")
           for (j = 1; j <= 3; j++) {
             c = cs[j]; if (!((b, c) in op)) continue
             p = op[b, c] + cl[b, c]
             printf "%-8s %-7s %10.1f %10.1f %10.1f %9.2f %7d\n", b, c, op[b, c], cl[b, c], p, (nat > 0 ? p / nat : 0), n[b, c]
           }
         }
       }'
# MPI calls per pair: a counting library loaded after libferry sees every
# MPI call ferry makes (the MPI library's own internal calls are not
# visible); runs of 101 and 1 pairs differ by 100 pairs
count() { # build pairs
  launch "$1" "$PWD/build/$1/lib/libferry.so:$out/mpicount.$1.so" "build/$1/bin/ferry-bench" open -n "$2" \
    "${create[@]}" -o "$file.$1" 2>&1 >/dev/null | sed -n 's/^rank 0: *//p' | tr ' ' '\n'
}
for b in $builds; do
  mpicc.$b -O2 -shared -fPIC bench/mpicount.c -o "$out/mpicount.$b.so" -ldl
  count "$b" 1 >"$out/c1"
  count "$b" 101 >"$out/c101"
  echo "MPI calls ferry makes per open+close pair ($b, rank 0):" \
    "$(awk -F= 'FNR == NR { one[$1] = $2; next } $2 - one[$1] > 0 { printf " %s %.2f", $1, ($2 - one[$1]) / 100 }' \
      "$out/c1" "$out/c101")"
done
