#!/usr/bin/env bash
# A fault from outside the job under a running one (run by clusterrun.sh, or
# by hand against a running cluster: docs/reliability.md's matrix). Once the
# ranks are under way (t_ridethrough leaves "started" in its directory):
#
#   link:VICTIM:SECONDS   VICTIM's link is taken away at its switch port
#                         (scripts/cluster.sh link), then given back
#   brick:SECONDS         the brick that holds the program's file (FAULT_FILE,
#                         ridethrough.dat) is killed, then started again
#   stop:SECONDS          that brick is stopped (SIGSTOP: a server that neither
#                         answers nor fails), then let go on
#   slow:VICTIM:RATE      VICTIM's link is shaped to RATE for the whole run
#                         (from before the job starts)
#   full:SIZE             the job writes to a volume of its own whose one brick
#                         holds SIZE (scripts/cluster.sh small), and fills it
#   dp:NODE               the data process (decoupled I/O) on NODE, an I/O node,
#                         is killed: PROG must be the program ferry-run runs
#                         (FAULT_PROG names it when PROG is ferry-run itself)
#   none                  no fault: the same job, for comparison
#
# What must hold is the program's to check (t_ridethrough: no call fails
# and every byte is back; with T_EXPECT=errors, one class on every rank and
# every part it was told is written back). This script checks the job ends
# within LIMIT seconds, and puts back what it took away whatever happened.
#
#   fault.sh FLAVOR LIMIT FAULT "LAUNCHER ARGS" -- PROG ARGS...
#   e.g. fault.sh openmpi 180 link:node3:5 "-n 8 -x LD_PRELOAD=.../libferry.so" -- t_ridethrough 20
set -u
flavor=$1 limit=$2 fault=$3 extra=$4
shift 4
[ "${1:-}" = -- ] && shift
C=${FERRY_CLUSTER:-$(dirname "$0")/../../scripts/cluster.sh}
. "$(dirname "$0")/faultjob.sh"
IFS=: read -r kind a b <<<"$fault"
case $kind in
  link | slow) [ -n "$a" ] && [ -n "$b" ] || { echo "fault: $kind needs VICTIM and a value ($fault)"; exit 2; } ;;
  dp) [ -n "$a" ] || { echo "fault: dp needs an I/O node ($fault)"; exit 2; } ;;
  brick | stop | full) [ -n "$a" ] || { echo "fault: $kind needs a value ($fault)"; exit 2; } ;;
  none) ;;
  *) echo "fault: unknown fault $fault (link:VICTIM:SECONDS, brick:SECONDS, stop:SECONDS, slow:VICTIM:RATE, full:SIZE, dp:NODE, none)"; exit 2 ;;
esac
# clusterrun.sh's fresh directory, or one of this script's own
dir=${FERRY_CLUSTER_DIR:-}
own=""
if [ "$kind" = full ]; then
  bash "$C" small up "$a" >/dev/null || { echo "fault: FAILED: no small volume"; exit 1; }
  dir=${FERRY_CLUSTER_MNT:-/mnt/ferry-cluster}/small/fault-$$ own=1
elif [ -z "$dir" ]; then
  vol=${FERRY_CLUSTER_VOLUME:-shard}
  mnt=$(bash "$C" env | sed -n "s/^FERRY_CLUSTER_${vol^^}=//p")
  [ -n "$mnt" ] || { echo "fault: no $vol volume"; exit 1; }
  dir=$mnt/fault-$$ own=1
fi
vol=${dir#"${FERRY_CLUSTER_MNT:-/mnt/ferry-cluster}"/}
vol=${vol%%/*}
bash "$C" exec node1 mkdir -p "$dir" || exit 1
# the MPI tests' directory and the decoupled ones'
if [ "$flavor" = openmpi ]; then fwd=(-x "FERRY_TEST_OUT=$dir" -x "FERRY_TEST_TMP=$dir")
else fwd=(-genv FERRY_TEST_OUT "$dir" -genv FERRY_TEST_TMP "$dir"); fi

out=$(mktemp)
restore() {
  case $kind in
    link) bash "$C" link "$a" up 2>/dev/null ;;
    slow) bash "$C" rate "$a" default 2>/dev/null ;;
    brick) bash "$C" brick "$vol" b1 up 2>/dev/null ;;
    stop) bash "$C" brick "$vol" "$dir/${FAULT_FILE:-ridethrough.dat}" cont 2>/dev/null ;;
  esac
}
trap 'restore; rm -f "$out"; [ -z "$own" ] || bash "$C" exec node1 rm -rf "$dir"; [ "$kind" != full ] || bash "$C" small down' EXIT
start=$EPOCHREALTIME
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# take it away for $b seconds (the command's DOWN word, then restore)
outage() { # down what...
  local word=$1
  shift
  if bash "$C" "$@" "$word"; then
    echo "fault: $* $word at $(elapsed) s for $b s"
    # or until the job ends
    for ((i = 0; i < b * 5; i++)); do kill -0 "$job" 2>/dev/null || break; sleep 0.2; done
    restore
    echo "fault: $* up again at $(elapsed) s"
  else
    echo "fault: FAILED: cannot $word $*"
    kill $job 2>/dev/null
  fi
}
if [ "$kind" = slow ]; then
  bash "$C" rate "$a" "$b" || { echo "fault: FAILED: cannot shape $a's link to $b"; exit 1; }
  echo "fault: $a's link at $b for the run"
fi
fault_job_start "$limit" "$out" "$flavor" "$extra" "$@"
fault_job_wait_started "$dir"
case $kind in
  link) outage down link "$a" ;;
  brick) b=$a; outage down brick "$vol" "$dir/${FAULT_FILE:-ridethrough.dat}" ;;
  stop) b=$a; outage stop brick "$vol" "$dir/${FAULT_FILE:-ridethrough.dat}" ;;
  dp)
    prog=${FAULT_PROG:-$1}
    pid=$(bash "$C" pids "$a" "$(basename "$prog")" | head -1)
    if [ -n "$pid" ]; then
      kill -9 "$pid"
      echo "fault: killed $(basename "$prog") (pid $pid) in $a at $(elapsed) s"
    else
      echo "fault: FAILED: no $(basename "$prog") in $a"
      kill $job 2>/dev/null
    fi ;;
esac
wait $job
rc=$?
took=$(elapsed)
# (T_DEBUG's lines "rN: round ...": the first wrong bytes of a part)
grep -E '^t_ridethrough|^t_dc_outage|^FAIL|^ferry: error|^r[0-9]+: round' "$out"
echo "fault: job ended with status $rc after $took s (limit $limit s)"
# a failure on a sharded volume: was a block created twice?
if [ $rc -ne 0 ] && [ "$vol" = shard ]; then
  twice=$(bash "$C" shards "$vol" 2>/dev/null)
  if [ -n "$twice" ]; then echo "fault: shard blocks held on more than one brick:"; echo "$twice" | head -20
  else echo "fault: no shard block is held on more than one brick"; fi
fi
[ $rc -ne 124 ] || { echo "fault: FAILED: the job hung"; tail -20 "$out"; exit 1; }
exit $rc
