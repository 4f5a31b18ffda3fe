#!/usr/bin/env bash
# What the shared-pointer and size calls cost on one host: `ferry-bench
# shared` (records through write_shared / read_shared) and `ferry-bench size`
# (set_size, preallocate, an append, get_size on every rank), through ferry
# against another ferry build (BEFORE=DIR, a tree with build/<mpi>/lib) and
# the native MPI-IO, in alternation. Cells:
#   shared      the MPI library's own transport (the pointer in a window)
#   shared-tcp  Open MPI over TCP (no window: the pointer's hidden file)
#   size        on DIR (default /tmp) and, where it is mounted, on the
#               GlusterFS testbed (scripts/pfs.sh: caches not coherent)
# Prints per cell the medians of the write and read phases' I/O seconds (size:
# all its calls in the first column), the
# ratio to the first ferry configuration, and a one-sided exact
# Mann-Whitney p-value that ferry is slower than before (bench/learn_goal.py).
#   bench/filestate.sh [ROUNDS] [DIR]
# BUILDS="openmpi mpich" picks the builds, CELLS="shared size shared-tcp" the
# cells, PFS=0 leaves the testbed out; RANKS (default 4; MPICH 2). Hold
# the bench lock:  flock /work/.locks/bench bench/filestate.sh 7
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-7} dir=${2:-/tmp}
builds=${BUILDS:-openmpi mpich}
pfs=/mnt/ferry-pfs/dist
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
before=""
[ -n "${BEFORE:-}" ] && before=$(cd "$BEFORE" && pwd)
for b in $builds; do
  [ -x "build/$b/bin/ferry-bench" ] || { echo "filestate: build first (make build)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"; rm -f "$dir"/ferry-filestate.$$.* "$pfs"/ferry-filestate.$$.* 2>/dev/null' EXIT

launch() { # build library(or "") tcp ferry-bench args...
  local b=$1 lib=$2 tcp=$3
  shift 3
  if [ "$b" = openmpi ]; then
    local net=(--mca btl self,vader)
    [ "$tcp" = 1 ] && net=(--mca btl tcp,self --mca osc rdma)
    # natively ROMIO 3.2.1: OMPIO's set_size fails after another rank's append
    [ -z "$lib" ] && net+=(--mca io romio321)
    mpiexec.openmpi --oversubscribe -n "${RANKS:-4}" --mca pml ob1 "${net[@]}" ${lib:+-x LD_PRELOAD="$lib"} "$@"
  else
    mpiexec.mpich -n "${RANKS:-2}" ${lib:+-genv LD_PRELOAD "$lib"} "$@"
  fi
}

want=" ${CELLS:-shared size shared-tcp} "
cells=()
for b in $builds; do
  [[ $want == *" shared "* ]] && cells+=("$b shared $dir 0")
  [[ $want == *" size "* ]] && cells+=("$b size $dir 0")
  [[ $want == *" shared-tcp "* ]] && [ "$b" = openmpi ] && cells+=("$b shared-tcp $dir 1")
  [[ $want == *" size "* ]] && [ "${PFS:-1}" = 1 ] && mountpoint -q "$pfs" 2>/dev/null && cells+=("$b size $pfs 0")
done

run() { # "build cell dir tcp":config round
  local spec=${1%%:*} c=${1##*:} lib=""
  local b cell d tcp
  read -r b cell d tcp <<<"$spec"
  case $c in
    ferry) lib=$PWD/build/$b/lib/libferry.so ;;
    before) lib=$before/build/$b/lib/libferry.so ;;
  esac
  # enough calls that a phase lasts a tenth of a second or more
  local pat=${cell%-tcp} args=(-n 5000)
  [ "$pat" = size ] && args=(-n 300)
  launch "$b" "$lib" "$tcp" "build/$b/bin/ferry-bench" "$pat" "${args[@]}" -o "$d/ferry-filestate.$$.$b" |
    awk -v k="$b $cell $d $c" '$2 == "write" { w = $6 } $2 == "read" { r = $6 } $2 == "size" { w = $5; r = 0 }
      /verify .*FAILED/ { bad = 1 }
      END { if (bad || w == "" || r == "") print "filestate: " k ": failed" > "/dev/stderr"; else print k, w, r }' \
    >>"$out/all"
}

configs=()
for cell in "${cells[@]}"; do
  configs+=("$cell:ferry")
  [ -n "$before" ] && configs+=("$cell:before")
  configs+=("$cell:native")
done
echo "shared-pointer and size calls: $rounds rounds, ferry $(git rev-parse --short HEAD)${before:+ against $(git -C "$before" rev-parse --short HEAD 2>/dev/null || echo "$before")}"
echo "load before: $(uptime)"
bench_rounds "$rounds" run "${configs[@]}"
echo "load after:  $(uptime)"
python3 - "$out/all" <<'EOF'
import sys
sys.path.insert(0, "bench")
from learn_goal import below, median

rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 6:
        continue
    b, cell, d, c, w, r = f
    rows.setdefault((b, cell, d), {}).setdefault(c, []).append((float(w), float(r)))
print("native: ROMIO 3.2.1 under Open MPI, MPICH's ROMIO; x ferry: write + read medians over ferry's")
print(f"{'build':8} {'cell':10} {'dir':18} {'config':7} {'write s':>9} {'read s':>9} {'x ferry':>8} {'p slower':>9} {'rounds':>6}")
for (b, cell, d), cs in rows.items():
    fw = median([w for w, _ in cs["ferry"]]) + median([r for _, r in cs["ferry"]])
    for c in ("ferry", "before", "native"):
        if c not in cs:
            continue
        ws, rs = [w for w, _ in cs[c]], [r for _, r in cs[c]]
        tot = median(ws) + median(rs)
        p = ""
        if c == "before":
            # ferry's per-round totals against before's: small p says ferry is slower
            p = f"{below([w + r for w, r in cs['before']], [w + r for w, r in cs['ferry']]):.3f}"
        print(f"{b:8} {cell:10} {d:18} {c:7} {median(ws):9.5f} {median(rs):9.5f} {tot / fw:8.2f} {p:>9} {len(ws):6d}")
EOF
