#!/usr/bin/env bash
# Decoupled I/O against traditional I/O (issue 6): sum, histogram and lookup
# over one file of doubles, with a compute loop between I/O calls.
#
# Per build, each round launches two jobs, in alternating order:
#   pair  1 compute + 1 data process: traditional and decoupled alternate
#         inside the job (ratios come from one run, so drift hits both)
#   equal 2 compute processes, no data process: traditional I/O with the
#         same two cores computing (the equal-hardware comparison)
# The table shows medians over every repetition of every round: time,
# bytes that reached compute processes, and the ratios.
#
#   bench/decouple.sh [SIZE] [ROUNDS] [WORK] [CALL] [DIR]
#   defaults:          2g     3        0.05   64m    /tmp
#   BUILDS="build/openmpi build/mpich" REPS=3 (repetitions per job)
set -eu
cd "$(dirname "$0")/.."
size=${1:-2g} rounds=${2:-3} work=${3:-0.05} call=${4:-64m} dir=${5:-/tmp}
reps=${REPS:-3}
builds=${BUILDS:-"build/openmpi build/mpich"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
file="$dir/ferry-decouple-bench.$$.dat"
out=$(mktemp -d)
trap 'rm -rf "$out" "$file"' EXIT

for b in $builds; do
  [ -x "$b/bin/ferry-run" ] && [ -x "$b/bin/ferry-decouple-bench" ] ||
    { echo "decouple.sh: $b is not built (make build)" >&2; exit 1; }
done

job() { # build, label, -np, -dp, mode
  local b=$1 label=$2
  "$b/bin/ferry-run" -np "$3" -dp "$4" "$b/bin/ferry-decouple-bench" -o "$file" -s "$size" -t "$call" \
    -w "$work" -r "$reps" --mode "$5" --json |
    sed -n "s|^{|{\"build\":\"$(basename "$b")\",\"job\":\"$label\",|p" >>"$out/records"
}

for r in $(seq 1 "$rounds"); do
  for b in $builds; do
    if [ $((r % 2)) -eq 1 ]; then
      job "$b" pair 1 1 both
      job "$b" equal 2 0 traditional
    else
      job "$b" equal 2 0 traditional
      job "$b" pair 1 1 both
    fi
  done
  echo "decouple.sh: round $r of $rounds done" >&2
done

echo "decoupled I/O: $size of doubles in $dir, $call per call, ${work} s computation per call," \
  "$rounds rounds x $reps repetitions, medians (s)"
python3 - "$out/records" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
runs, moved, agree = {}, {}, {}
for r in recs:
    k = (r["build"], r["op"], r["job"], r["mode"])
    runs.setdefault(k, []).extend(r["runs_s"])
    moved[k] = r["bytes_to_compute"]
    agree[(r["build"], r["op"])] = agree.get((r["build"], r["op"]), True) and r["agree"]
    size = r["file_bytes"]
def med(k):
    return statistics.median(runs[k]) if k in runs else float("nan")
print("| build | op | traditional 1c | decoupled 1c+1d | dec/trad | traditional 2c | dec/trad-2c "
      "| bytes to compute, trad | decoupled | reduction | results |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
bad = 0
for b in sorted({k[0] for k in runs}):
    for op in ("sum", "histogram", "lookup"):
        t1 = med((b, op, "pair", "traditional"))
        d1 = med((b, op, "pair", "decoupled"))
        t2 = med((b, op, "equal", "traditional"))
        bt = moved.get((b, op, "pair", "traditional"), 0)
        bd = moved.get((b, op, "pair", "decoupled"), 0)
        ok = agree.get((b, op), False)
        bad |= not ok
        print(f"| {b} | {op} | {t1:.3f} | {d1:.3f} | {d1 / t1:.2f} | {t2:.3f} | {d1 / t2:.2f} "
              f"| {bt} | {bd} | {bt / bd if bd else float('nan'):.3g}x | {'agree' if ok else 'DIFFER'} |")
n = {k: len(v) for k, v in runs.items()}
print(f"samples per cell: {min(n.values())}..{max(n.values())}; file {size} bytes")
sys.exit(1 if bad else 0)
PY
