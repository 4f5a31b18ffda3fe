#!/usr/bin/env bash
# What learning costs (docs/collective.md, "Learning"): patterns of repeated
# collective calls (BT-IO's steps, FLASH-IO's variables) through auto as a
# first run sees it (learning from nothing: no store), auto as the next run
# sees it (the store a previous run filled), auto without learning (the
# rules, ferry_learn=off) and each forced strategy. Whole-run seconds (open,
# I/O and close of the write and of the read phase, as ferry-bench times
# them), alternated round after round, medians; the ratios are to the
# fastest forced strategy of the same run.
#
#   bench/learn_cost.sh [ROUNDS] [BUILD] [DIR]      (defaults: 5, build/openmpi, /dev/shm)
#   PATTERNS="btio8|btio -n 48 --steps 8" bench/learn_cost.sh ...   (name|ferry-bench arguments, one per line)
#   RANKS=8 RPN=2 ...                                (ranks; FERRY_RANKS_PER_NODE for ferry's runs)
#   BASE=/work/main/build/openmpi ...                (adds `base`: a first run through that build's
#                                                     libferry, in the same alternation: before/after)
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} build=${2:-build/openmpi} dir=${3:-/dev/shm}
build=$(cd "$build" && pwd)
flavor=$(sed -n 's/^FERRY_MPI_FLAVOR:[A-Z]*=//p' "$build/CMakeCache.txt")
bench=$build/bin/ferry-bench lib=$build/lib/libferry.so
base=${BASE:+$(cd "$BASE" && pwd)/lib/libferry.so}
[ -z "$base" ] || [ -e "$base" ] || { echo "learn_cost: no $base" >&2; exit 1; }
[ -x "$bench" ] || { echo "learn_cost: build first (make build)" >&2; exit 1; }
if [ "$flavor" = mpich ]; then ranks=${RANKS:-2}; else ranks=${RANKS:-8}; fi
rpn=${RPN:-}
patterns=${PATTERNS:-"btio8|btio -n 48 --steps 8
btio16|btio -n 48 --steps 16
flash|flash --blocks 16"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
  HYDRA_LAUNCHER=fork
work=$(mktemp -d "$dir/ferry-learn-cost.XXXXXX") out=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
launch() { # hints store args...: one ferry-bench run through ferry ($use, or the build's); prints "write_s read_s"
  local hints=$1 store=$2 env=()
  shift 2
  local vars=("LD_PRELOAD=${use:-$lib}" "FERRY_LEARN_CACHE=$store")
  [ -n "$hints" ] && vars+=("FERRY_HINTS=*:$hints")
  [ -n "$rpn" ] && vars+=("FERRY_RANKS_PER_NODE=$rpn")
  for v in "${vars[@]}"; do
    if [ "$flavor" = mpich ]; then env+=(-genv "${v%%=*}" "${v#*=}"); else env+=(-x "$v"); fi
  done
  local mpiexec=mpiexec.$flavor extra=()
  [ "$flavor" = openmpi ] && extra=(--oversubscribe --mca pml ob1 --mca btl self,vader)
  "$mpiexec" "${extra[@]}" -n "$ranks" "${env[@]}" "$bench" "$@" </dev/null |
    awk '$2 == "write" || $2 == "read" { t[$2] = $5 + $6 + $7 }
         $2 == "verify" && !/OK/ { print "VERIFY FAILED" > "/dev/stderr"; exit 1 }
         END { printf "%.6f %.6f\n", t["write"], t["read"] }'
}
# the next run's store: one unmeasured learning run of each pattern fills it
while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  launch "" "$out/store.$name" $args -o "$work/$name.warm" >/dev/null
done <<<"$patterns"
run() { # config round
  local c=$1 hints="" store=off name args t use=""
  case $c in
    independent|twophase|local) hints="ferry_write_strategy=$c:ferry_read_strategy=$c" ;;
    rules) hints="ferry_learn=off" ;;
    first) ;;
    base) use=$base ;;
    next) store=next ;;
  esac
  while IFS='|' read -r name args; do
    [ "$store" = off ] || store=$out/store.$name
    # shellcheck disable=SC2086
    t=$(launch "$hints" "$store" $args -o "$work/$name.$c")
    echo "$name $c $t" >>"$out/all"
  done <<<"$patterns"
}
configs=(independent twophase local rules first next)
[ -z "$base" ] || configs+=(base)
bench_rounds "$rounds" run "${configs[@]}"
bench_medians 2 <"$out/all" | awk '{ print $1, $2, $3 + $4, $3, $4, $5 }' >"$out/med"
echo "learning cost: $flavor $ranks ranks${rpn:+ as virtual nodes of $rpn}, $dir, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)${base:+; base: $base}"
echo "whole-run seconds (write + read phases, open+I/O+close), medians; ratio = / fastest forced strategy"
awk -v cfgs="${configs[*]}" '
  { t[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  END {
    nc = split(cfgs, c, " ")
    printf "%-8s", "pattern"; for (i = 1; i <= nc; i++) printf " %11s", c[i]
    printf "  %7s %7s %7s", "first/", "next/", "rules/"; if (nc > 6) printf " %7s", "base/"; printf "\n"
    for (k = 1; k <= n; k++) {
      p = order[k]; best = t[p, "independent"]
      if (t[p, "twophase"] < best) best = t[p, "twophase"]
      if (t[p, "local"] < best) best = t[p, "local"]
      printf "%-8s", p; for (i = 1; i <= nc; i++) printf " %11.4f", t[p, c[i]]
      printf "  %6.2fx %6.2fx %6.2fx", t[p, "first"] / best, t[p, "next"] / best, t[p, "rules"] / best
      if (nc > 6) printf "  %6.2fx", t[p, "base"] / best; printf "\n"
    }
  }' "$out/med"
