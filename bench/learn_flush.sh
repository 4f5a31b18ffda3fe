#!/usr/bin/env bash
# What a trial of an aggregated write measures where client caches are not
# coherent (docs/collective.md, "Learning"): on a file system whose flush
# costs what is dirty (tests/learn/slowio.c, SLOWIO_SYNC_NS: 100 ns a byte),
# t_learn's 24 collective writes of 16 pieces of 8 KiB per rank, through
# auto with learning. The rules keep independent, whose writes no call
# flushes; the first trial of two-phase comes after about ten of them, and
# the flush that ends it would flush those too unless they are flushed
# first, off its clock. Configurations, alternated round after round:
#   trial   the seconds learning measured for its trial of two-phase
#           (learning.coll_write.tried, best_seconds of two-phase)
#   forced  two-phase forced (ferry_write_strategy=twophase), the seconds of
#           one call: the slowest rank's collective-write phases summed over
#           the run, divided by the calls
#   before  (BEFORE=BUILD_DIR) the trial through another build's libferry,
#           e.g. one without the flush before a trial
# The table gives medians over the rounds. tests/learn learn_flush checks
# the same property by counting bytes, not seconds.
#
#   bench/learn_flush.sh [ROUNDS] [BUILD] [DIR]    (defaults: 7, build/openmpi, /dev/shm)
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-7} build=${2:-build/openmpi} dir=${3:-/dev/shm}
build=$(cd "$build" && pwd)
flavor=$(sed -n 's/^FERRY_MPI_FLAVOR:[A-Z]*=//p' "$build/CMakeCache.txt")
lib=$build/lib/libferry.so slowio=$build/tests/learn/libferry_slowio.so prog=$build/tests/learn/t_learn
before=${BEFORE:+$(cd "$BEFORE" && pwd)/lib/libferry.so}
[ -x "$prog" ] && [ -e "$slowio" ] || { echo "learn_flush: build first (make build)" >&2; exit 1; }
[ -z "$before" ] || [ -e "$before" ] || { echo "learn_flush: no $before" >&2; exit 1; }
if [ "$flavor" = mpich ]; then ranks=${RANKS:-2}; else ranks=${RANKS:-4}; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HYDRA_LAUNCHER=fork
work=$(mktemp -d "$dir/ferry-learn-flush.XXXXXX") out=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT

launch() { # libferry hints: one t_learn run, its statistics record in $work/rec.json
  local use=$1 hints=$2 env=() v
  rm -f "$work/rec.json"
  for v in "LD_PRELOAD=$use:$slowio" SLOWIO_SYNC_NS=100 "FERRY_HINTS=*:ferry_cache_coherent=disable$hints" \
           FERRY_LEARN_CACHE=off "FERRY_STATS_JSON=$work/rec.json"; do
    if [ "$flavor" = mpich ]; then env+=(-genv "${v%%=*}" "${v#*=}"); else env+=(-x "$v"); fi
  done
  local extra=()
  [ "$flavor" = openmpi ] && extra=(--oversubscribe --mca pml ob1 --mca btl self,vader)
  "mpiexec.$flavor" "${extra[@]}" -n "$ranks" "${env[@]}" "$prog" "$work/f" 24 16 8192 </dev/null >"$work/out" 2>&1 ||
    { cat "$work/out" >&2; return 1; }
  grep -q "t_learn: passed" "$work/out" || { cat "$work/out" >&2; return 1; }
}

seconds() { # trial|forced: the seconds of the last run, from its record
  python3 - "$1" "$work/rec.json" <<'PY'
import json, sys
what, path = sys.argv[1], sys.argv[2]
rec = json.loads(open(path).read().splitlines()[-1])
if what == "trial":
    tried = rec["learning"]["coll_write"]["tried"]
    s = [t["best_seconds"] for t in tried if t["option"] == "twophase" and t["calls"] > 0]
    print("%.6f" % s[0] if s else "nan")
else:
    t = rec["timers"]
    calls = rec["counters"]["coll_writes"] / rec["ranks"]
    print("%.6f" % (sum(t[p]["max"] for p in ("meta", "exchange", "write", "sync")) / calls))
PY
}

run() { # config round
  case $1 in
    trial) launch "$lib" "" && echo "trial $(seconds trial)" >>"$out/all" ;;
    before) launch "$before" "" && echo "before $(seconds trial)" >>"$out/all" ;;
    forced) launch "$lib" ":ferry_write_strategy=twophase" && echo "forced $(seconds forced)" >>"$out/all" ;;
  esac
}

configs=(trial forced)
[ -z "$before" ] || configs+=(before)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
bench_rounds "$rounds" run "${configs[@]}"
echo "a trial of two-phase after independent writes, flush 100 ns per dirty byte: $flavor $ranks ranks, $dir,"
echo "$rounds rounds, load $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after${before:+; before: $before}"
printf '%-8s %12s %7s\n' config "seconds" rounds
grep -v ' nan$' "$out/all" | bench_medians 1 | awk '{ printf "%-8s %12.4f %7d\n", $1, $2, $3 }'
