#!/usr/bin/env bash
# A link goes away for a few seconds under a running job (run by
# clusterrun.sh, or by hand against a running cluster): once the ranks are
# under way (t_ridethrough leaves "started"), VICTIM's link is taken away at
# its switch port (scripts/cluster.sh link) for DOWN seconds, then given
# back. GlusterFS's clients wait 42 s (network.ping-timeout) before they
# give a server up, and TCP retransmits MPI's messages, so a short outage
# must cost time only: the program's every call succeeds and every byte
# reads back, and the job ends within LIMIT seconds. The link comes back
# whatever happened.
#
#   linkfault.sh FLAVOR LIMIT VICTIM DOWN "LAUNCHER ARGS" -- PROG ARGS...
#   e.g. linkfault.sh openmpi 180 node3 5 "-n 8 -x LD_PRELOAD=.../libferry.so" -- t_ridethrough 20
set -u
flavor=$1 limit=$2 victim=$3 down=$4 extra=$5
shift 5
[ "${1:-}" = -- ] && shift
C=${FERRY_CLUSTER:-$(dirname "$0")/../../scripts/cluster.sh}
. "$(dirname "$0")/faultjob.sh"
# clusterrun.sh's fresh directory, or one of this script's own
dir=${FERRY_CLUSTER_DIR:-}
own=""
if [ -z "$dir" ]; then
  vol=${FERRY_CLUSTER_VOLUME:-shard}
  mnt=$(bash "$C" env | sed -n "s/^FERRY_CLUSTER_${vol^^}=//p")
  [ -n "$mnt" ] || { echo "linkfault: no $vol volume"; exit 1; }
  dir=$mnt/linkfault-$$ own=1
fi
bash "$C" exec node1 mkdir -p "$dir" || exit 1
if [ "$flavor" = openmpi ]; then fwd=(-x "FERRY_TEST_OUT=$dir"); else fwd=(-genv FERRY_TEST_OUT "$dir"); fi

out=$(mktemp)
restore() { bash "$C" link "$victim" up 2>/dev/null; }
trap 'restore; rm -f "$out"; [ -z "$own" ] || bash "$C" exec node1 rm -rf "$dir"' EXIT
start=$EPOCHREALTIME
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
fault_job_start "$limit" "$out" "$flavor" "$extra" "$@"
fault_job_wait_started "$dir"
if bash "$C" link "$victim" down; then
  echo "linkfault: $victim's link down at $(elapsed) s for $down s"
  sleep "$down"
  restore
  echo "linkfault: $victim's link up again"
else
  echo "linkfault: FAILED: cannot take $victim's link down"
  kill $job 2>/dev/null
fi
wait $job
rc=$?
took=$(elapsed)
grep -E '^t_ridethrough|^FAIL' "$out"
echo "linkfault: job ended with status $rc after $took s (limit $limit s)"
[ $rc -ne 124 ] || { echo "linkfault: FAILED: the job hung"; tail -20 "$out"; exit 1; }
exit $rc
