#!/usr/bin/env bash
# Two jobs on one volume at once (run by clusterrun.sh, or by hand against a
# running cluster): job A on node1 and node2, job B on node3 and node4, 2
# ranks a node, both through the same launcher arguments (ferry preloaded,
# or a native). Two cases:
#   files    each job writes and reads back a shared file of its own
#            (ferry-bench ior, collective, synced, every byte verified);
#   readers  job A rewrites a shared file in place with the bytes it holds
#            already (ferry-bench ior --in-place) while job B reads it and
#            checks every byte: old or new, a read can only see those bytes,
#            so a stale page, a cut or a hole is caught.
# With ROUNDS > 0, each round also runs each job alone (the order turning
# round by round) and the last lines give each job's speed together against
# alone (medians of its I/O time over the rounds). ROUNDS 0 runs the jobs
# together once, for correctness only: no hang (the limit), no byte wrong.
#
#   neighbours.sh FLAVOR ROUNDS SIZE "LAUNCHER ARGS" BENCH   (SIZE per rank, e.g. 32m)
set -u
flavor=$1 rounds=$2 size=$3 extra=$4 bench=$5
C=${FERRY_CLUSTER:-$(dirname "$0")/../../scripts/cluster.sh}
limit=${NEIGHBOURS_LIMIT:-300}
dir=${FERRY_CLUSTER_DIR:-}
own=""
if [ -z "$dir" ]; then
  mnt=$(bash "$C" env | sed -n "s/^FERRY_CLUSTER_${FERRY_CLUSTER_VOLUME:-shard}=//Ip")
  [ -n "$mnt" ] || { echo "neighbours: no volume"; exit 1; }
  dir=$mnt/neighbours-$$ own=1
fi
bash "$C" exec node1 mkdir -p "$dir" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "$own" ] || bash "$C" exec node1 rm -rf "$dir"' EXIT
if [ "$flavor" = openmpi ]; then hosts=(--host); else hosts=(-hosts); fi
declare -A where=([A]=node1:2,node2:2 [B]=node3:2,node4:2)

# job NAME OUT BENCH-ARGS...: one launch in the background, its pid in $pid
job() {
  local name=$1 out=$2
  shift 2
  # shellcheck disable=SC2086
  timeout "$limit" bash "$C" mpirun "$flavor" -n 4 "${hosts[@]}" "${where[$name]}" $extra \
    "$bench" ior -a mpiio -c -t 1m -b "$size" -e --json "$@" >"$out" 2>&1 &
  pid=$!
}
# the I/O time of a launch's record (open, write, read, close), or why not
io_time() {
  grep -o '"time":{[^}]*}' "$1" | head -1 | tr -d '"{}' | tr ',' '\n' | awk -F: '{ s += $2 } END { if (NR) printf "%.3f", s }'
}
failed=0
check() { # name out what
  local rc=$4
  if [ "$rc" -eq 124 ]; then echo "neighbours: FAILED: $1 ($3) hung past $limit s"; failed=1; return; fi
  if [ "$rc" -ne 0 ] || ! grep -q '"verify":{"ok":true' "$2"; then
    echo "neighbours: FAILED: $1 ($3) ended with status $rc:"; grep -v '^{' "$2" | tail -5; failed=1
  fi
}
# run CASE MODE: MODE alone-A, alone-B or together; the times go to $tmp/CASE.MODE.NAME
run() {
  local c=$1 mode=$2 pa="" pb="" argsA argsB
  case $c in
    files) argsA=(-o "$dir/a.dat") argsB=(-o "$dir/b.dat") ;;
    readers) argsA=(-w -k --in-place -o "$dir/c.dat") argsB=(-r -k -C -o "$dir/c.dat") ;;
  esac
  case $mode in
    alone-A) job A "$tmp/out.A" "${argsA[@]}"; pa=$pid ;;
    alone-B) job B "$tmp/out.B" "${argsB[@]}"; pb=$pid ;;
    together) job A "$tmp/out.A" "${argsA[@]}"; pa=$pid; job B "$tmp/out.B" "${argsB[@]}"; pb=$pid ;;
  esac
  local rc
  if [ -n "$pa" ]; then wait "$pa"; rc=$?; check A "$tmp/out.A" "$c $mode" $rc; io_time "$tmp/out.A" >>"$tmp/$c.${mode%-A}.A"; echo >>"$tmp/$c.${mode%-A}.A"; fi
  if [ -n "$pb" ]; then wait "$pb"; rc=$?; check B "$tmp/out.B" "$c $mode" $rc; io_time "$tmp/out.B" >>"$tmp/$c.${mode%-B}.B"; echo >>"$tmp/$c.${mode%-B}.B"; fi
}
median() { sort -g "$1" | awk 'NF { v[++n] = $1 } END { if (n) printf "%.2f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }

for c in files readers; do
  # the file job B reads, there before anyone rewrites it
  [ $c = readers ] && { job A "$tmp/out.A" -w -k -o "$dir/c.dat"; wait $pid; check A "$tmp/out.A" "readers: the first write" $?; }
  modes=(alone-A alone-B together)
  for ((r = 0; r < (rounds > 0 ? rounds : 1); r++)); do
    if [ "$rounds" -eq 0 ]; then run $c together; continue; fi
    for ((k = 0; k < 3; k++)); do run $c "${modes[(k + r) % 3]}"; done
  done
  echo "neighbours: $c: together in $(paste -sd' ' "$tmp/$c.together.A") s (A) and $(paste -sd' ' "$tmp/$c.together.B") s (B)"
  if [ "$rounds" -gt 0 ]; then
    for n in A B; do
      a=$(median "$tmp/$c.alone.$n") t=$(median "$tmp/$c.together.$n")
      echo "neighbours: $c: job $n: I/O $a s alone, $t s together (medians of $rounds): $(awk -v a="$a" -v t="$t" 'BEGIN { printf "%.2f", a / t }')x its speed alone"
    done
  fi
done
[ $failed -eq 0 ] && echo "neighbours: passed" || exit 1
