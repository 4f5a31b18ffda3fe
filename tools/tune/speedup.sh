#!/usr/bin/env bash
# The tuned-against-default speedup of ior, hacc, tile and btio on this
# machine (docs/tuning.md "Tuned on this machine"). For each
# pattern: ferry-tune searches for --budget and writes a hints file; then
# ferry-tune --compare runs ferry's defaults, that hints file (as a user
# applies it, FERRY_HINTS_FILE) and native MPI-IO in rotating order for
# --rounds launches each, a held-out measurement taken after the search.
# The table has the medians of those launches and the ratios of one run.
#
#   tools/tune/speedup.sh [--build DIR] [--size tiny|quick|full] [--budget T]
#                         [--rounds N] [--ranks N] [--dir D] [--out DIR]
#                         [--always-write] [PATTERN...]
#
# Defaults: build/openmpi, --size full (the sizes of make bench), --budget 10m,
# --rounds 10, ranks 4 under Open MPI and 2 under MPICH, test files in /tmp,
# results in <build>/tune-out/. Run it on a quiet machine: every number
# is a timing. --always-write compares the best found even when the search
# called it within noise (by default the file is compared as written, and a
# file of comments only is ferry's defaults again).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build/openmpi size=full budget=10m rounds=10 ranks="" dir=/tmp out="" always=()
pats=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --size) size=$2; shift ;;
    --budget) budget=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --dir) dir=$2; shift ;;
    --out) out=$2; shift ;;
    --always-write) always=(--always-write) ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    ior|hacc|tile|btio) pats+=("$1") ;;
    *) echo "speedup.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ ${#pats[@]} -gt 0 ] || pats=(ior hacc tile btio)
build=$(cd "$build" && pwd) || exit 2
tune=$build/bin/ferry-tune
[ -x "$tune" ] || { echo "speedup.sh: no $tune (build first)" >&2; exit 2; }
flavor=$(sed -n 's/^FERRY_MPI_FLAVOR:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$ranks" ] || { [ "$flavor" = mpich ] && ranks=2 || ranks=4; }
[ -n "$out" ] || out=$build/tune-out
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the sizes of bench/compare.py's profiles, a pattern's arguments at tiny
# (seconds per launch, to show the script works), quick and full
args_of() {
  local i a
  case $size in
    tiny) i=0 ;;
    quick) i=1 ;;
    full) i=2 ;;
    *) echo "speedup.sh: unknown size '$size'" >&2; exit 2 ;;
  esac
  case $1 in
    ior) a=("-c -t 16k -b 64k -s 2" "-c -t 64k -b 1m -s 4" "-c -t 64k -b 4m -s 4") ;;
    hacc) a=("-n 2000" "-n 50000" "-n 500000") ;;
    tile) a=("--sz-tile-x 64 --sz-tile-y 64 --sz-element 8" "--sz-tile-x 512 --sz-tile-y 512 --sz-element 8"
             "--sz-tile-x 1024 --sz-tile-y 1024 --sz-element 16") ;;
    btio) a=("-n 12 --steps 2" "-n 48 --steps 4" "-n 64 --steps 8") ;;
  esac
  echo "${a[$i]}"
}

table=$out/speedup.md
{
  echo "ferry-tune speedup: $(basename "$build") ($flavor), $ranks ranks, size $size, budget $budget, $rounds rounds; $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  echo
  echo "| pattern | options | tuner's best | tuner's verdict | defaults s | tuned s | native s | tuned vs defaults | p (faster) | p (slower) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
status=0
for p in "${pats[@]}"; do
  read -r -a a <<<"$(args_of "$p")"
  f=$dir/ferry-tune-speedup.$$.$p.dat
  echo "== $p: ferry-tune --pattern $p --ranks $ranks --budget $budget -- ${a[*]}" >&2
  if ! "$tune" --pattern "$p" --ranks "$ranks" --budget "$budget" "${always[@]}" -q \
    --out "$out/$p.hints" --report "$out/$p.report" --samples "$out/$p.samples.csv" \
    -- "${a[@]}" -o "$f" >/dev/null; then
    echo "| $p | ${a[*]} | ferry-tune failed | | | | | | | |" >>"$table"
    status=1
    continue
  fi
  # the search's samples as a box plot, when matplotlib is there
  python3 "$here/ferry_tune_plot.py" "$out/$p.samples.csv" "$out/$p.png" "ferry-tune $p ($flavor, $ranks ranks)" \
    >/dev/null 2>&1 || true
  echo "== $p: ferry-tune --compare $out/$p.hints --rounds $rounds" >&2
  if ! "$tune" --pattern "$p" --ranks "$ranks" --compare "$out/$p.hints" --rounds "$rounds" \
    -- "${a[@]}" -o "$f" >"$out/$p.compare"; then
    echo "| $p | ${a[*]} | --compare failed | | | | | | | |" >>"$table"
    status=1
    continue
  fi
  best=$(sed -n 's/^  best: //p' "$out/$p.report")
  [ -n "$best" ] || best="ferry's defaults"
  verdict=$(sed -n 's/^  verdict: //p' "$out/$p.report" | sed 's/ (.*//; s/:.*//')
  line=$(grep '^compare: ' "$out/$p.compare")
  val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  printf '| %s | %s | %s | %s | %.4f | %.4f | %.4f | %.2fx | %s | %s |\n' "$p" "${a[*]}" "$best" "$verdict" \
    "$(val defaults)" "$(val tuned)" "$(val native)" "$(val speedup)" "$(val p_faster)" "$(val p_slower)" >>"$table"
done
{
  echo
  echo "defaults / tuned / native: medians over the --compare launches (each the median of its repetitions,"
  echo "open + I/O + close of the write and read phases); the three ran in rotating order."
  echo "Per pattern, in $out: P.report (the search), P.hints, P.compare, P.samples.csv, P.png."
} >>"$table"
cat "$table"
exit $status
