#!/usr/bin/env bash
# Medians of alternating runs of bench_sieve: ferry (automatic sieving and
# sieving off) against the native MPI-IO with sieving on.
#   bench_sieve.sh BUILD_DIR openmpi|mpich [RUNS] [ROWS]
set -eu
build=$1 flavor=$2 runs=${3:-5} rows=${4:-2048}
prog=$build/tests/views/bench_sieve lib=$build/lib/libferry.so
dir=${TMPDIR:-/tmp}/bench_sieve.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HYDRA_LAUNCHER=fork
if [ "$flavor" = openmpi ]; then
  variants="ferry ferry_direct romio ompio"
else
  variants="ferry ferry_direct romio"
fi
run() { # variant -> ms per read
  local v=$1 ds=enable args=()
  case "$flavor:$v" in
    openmpi:ferry) args=(-x LD_PRELOAD="$lib"); ds=automatic ;;
    openmpi:ferry_direct) args=(-x LD_PRELOAD="$lib"); ds=disable ;;
    openmpi:romio) args=(--mca io romio321) ;;
    openmpi:ompio) args=(--mca io ompio) ;;
    mpich:ferry) args=(-genv LD_PRELOAD "$lib"); ds=automatic ;;
    mpich:ferry_direct) args=(-genv LD_PRELOAD "$lib"); ds=disable ;;
  esac
  if [ "$flavor" = openmpi ]; then
    mpiexec.openmpi --oversubscribe -n 4 "${args[@]}" "$prog" -y "$rows" -d $ds -f "$dir/f" 2>/dev/null | awk '/^bench_sieve:/ {print $9, $(NF-3)}'
  else
    mpiexec.mpich -n 4 "${args[@]}" "$prog" -y "$rows" -d $ds -f "$dir/f" 2>/dev/null | awk '/^bench_sieve:/ {print $9, $(NF-3)}'
  fi
}
for i in $(seq "$runs"); do
  for v in $variants; do echo "$v $(run "$v")"; done
done > "$dir/all"
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for v in $variants; do
  printf '%-13s median %s ms per read, cpu %s ms per read (wall runs: %s)\n' "$v" \
    "$(awk -v v="$v" '$1 == v {print $2}' "$dir/all" | median)" \
    "$(awk -v v="$v" '$1 == v {print $3}' "$dir/all" | median)" \
    "$(awk -v v="$v" '$1 == v {printf "%s ", $2}' "$dir/all")"
done
