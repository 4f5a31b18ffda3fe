#!/usr/bin/env bash
# Decoupled I/O against traditional I/O (docs/decoupled.md): sum, histogram and lookup
# over one file of doubles, with a compute loop between I/O calls.
#
# Each round launches two jobs per build, the order rotating round by round:
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
. bench/alternate.sh
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

job() { # build, label, -np, -dp, mode: one sample line per timed run, one line of facts per record
  local b=$1 label=$2
  "$b/bin/ferry-run" -np "$3" -dp "$4" "$b/bin/ferry-decouple-bench" -o "$file" -s "$size" -t "$call" \
    -w "$work" -r "$reps" --mode "$5" --json |
    awk -v b="$(basename "$b")" -v j="$label" -v samples="$out/samples" -v facts="$out/facts" '
      function field(k,   m) {
        if (!match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) return ""
        m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", m); return m
      }
      /^\{/ {
        op = field("op"); mode = field("mode")
        match($0, /"runs_s":\[[^]]*\]/); n = split(substr($0, RSTART + 10, RLENGTH - 11), t, ",")
        for (i = 1; i <= n; i++) print b, op, j, mode, t[i] >>samples
        print b, op, j, mode, field("bytes_to_compute"), field("agree"), field("file_bytes") >>facts
      }'
}
sample() { # build:label round
  local b=${1%:*}
  case ${1##*:} in
    pair) job "$b" pair 1 1 both ;;
    equal) job "$b" equal 2 0 traditional ;;
  esac
}
bench_round_done() { echo "decouple.sh: round $1 of $rounds done" >&2; }
configs=()
for b in $builds; do configs+=("$b:pair" "$b:equal"); done
bench_rounds "$rounds" sample "${configs[@]}"

echo "decoupled I/O: $size of doubles in $dir, $call per call, ${work} s computation per call," \
  "$rounds rounds x $reps repetitions, medians (s)"
bench_medians 4 <"$out/samples" >"$out/medians"
awk 'function f(x, fmt) { return x == "" ? "nan" : sprintf(fmt, x) }
     function ratio(a, b, fmt) { return a == "" || b == "" || b == 0 ? "nan" : sprintf(fmt, a / b) }
     FNR == NR { k = $1 " " $2 " " $3 " " $4; med[k] = $5; nb[$1] = 1
                 if (lo == "" || $6 < lo) lo = $6; if (hi == "" || $6 > hi) hi = $6; next }
     { k = $1 " " $2 " " $3 " " $4; moved[k] = $5; size = $7
       a = $1 " " $2; was = (a in ag) ? ag[a] : 1; ag[a] = was && $6 == "true" }
     END {
       print "| build | op | traditional 1c | decoupled 1c+1d | dec/trad | traditional 2c | dec/trad-2c " \
             "| bytes to compute, trad | decoupled | reduction | results |"
       print "|---|---|---|---|---|---|---|---|---|---|---|"
       n = 0; for (b in nb) bs[++n] = b
       for (i = 2; i <= n; i++) { t = bs[i]; for (j = i - 1; j >= 1 && bs[j] > t; j--) bs[j + 1] = bs[j]; bs[j + 1] = t }
       split("sum histogram lookup", ops, " ")
       bad = 0
       for (i = 1; i <= n; i++)
         for (o = 1; o <= 3; o++) {
           b = bs[i]; op = ops[o]
           t1 = med[b " " op " pair traditional"]; d1 = med[b " " op " pair decoupled"]; t2 = med[b " " op " equal traditional"]
           bt = moved[b " " op " pair traditional"] + 0; bd = moved[b " " op " pair decoupled"] + 0
           ok = ((b " " op) in ag) ? ag[b " " op] : 0
           bad = bad || !ok
           printf "| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %sx | %s |\n", b, op, f(t1, "%.3f"), f(d1, "%.3f"),
             ratio(d1, t1, "%.2f"), f(t2, "%.3f"), ratio(d1, t2, "%.2f"), bt, bd, ratio(bt, bd, "%.3g"), ok ? "agree" : "DIFFER"
         }
       printf "samples per cell: %d..%d; file %s bytes\n", lo, hi, size
       exit bad
     }' "$out/medians" "$out/facts"
