#!/usr/bin/env bash
# A node's file-system client dies mid-write (run by clusterrun.sh): every
# compute node mounts the sharded volume once more, through a client of
# this test's own at a path of its own (the cluster's mounts, which other
# programs use, are not touched); the ranks write there (t_nodefault); once
# they are under way, the client of the third node is killed (by the
# process id its mount point names). Every rank must then report one MPI
# error class and the job must end within LIMIT seconds. The test's mounts
# go at the end, whatever happened.
#
#   nodefault.sh FLAVOR LIMIT "LAUNCHER ARGS" -- PROG ARGS...
set -u
flavor=$1 limit=$2 extra=$3
shift 3
[ "${1:-}" = -- ] && shift
C=$FERRY_CLUSTER
. "$(dirname "$0")/faultjob.sh"
mnt=/mnt/ferry-fault-${FERRY_CLUSTER_TAG:-default}
src=$(bash "$C" exec node1 awk -v m="$FERRY_CLUSTER_SHARD" '$2 == m {print $1; exit}' /proc/mounts)
[ -n "$src" ] || { echo "nodefault: no sharded volume mounted in node1"; exit 1; }
nodes=$(seq 1 "${FERRY_CLUSTER_NODES:-4}")
victim=node3

cleanup() {
  for i in $nodes; do bash "$C" exec "node$i" sh -c 'umount -l "$1" 2>/dev/null; rmdir "$1" 2>/dev/null' sh "$mnt"; done
}
trap cleanup EXIT
for i in $nodes; do
  bash "$C" exec "node$i" sh -c 'mkdir -p "$1" && { mountpoint -q "$1" || mount -t glusterfs "$2" "$1"; }' sh "$mnt" "$src" ||
    { echo "nodefault: cannot mount $src at $mnt in node$i"; exit 1; }
done
dir=$mnt/${FERRY_CLUSTER_TAG:-default}-$$
bash "$C" exec node1 mkdir -p "$dir" || exit 1
if [ "$flavor" = openmpi ]; then fwd=(-x "FERRY_TEST_OUT=$dir"); else fwd=(-genv FERRY_TEST_OUT "$dir"); fi

out=$(mktemp)
start=$(date +%s)
fault_job_start "$limit" "$out" "$flavor" "$extra" "$@"
# the first round is in: the victim's client goes
fault_job_wait_started "$dir"
pid=$(bash "$C" exec $victim ps -eo pid=,args= | awk -v m="$mnt" '$2 ~ /glusterfs$/ && $NF == m {print $1; exit}')
if [ -z "$pid" ]; then echo "nodefault: no client of $mnt found in $victim"; cat "$out"; exit 1; fi
kill -9 "$pid"
echo "nodefault: killed $victim's client of $mnt (pid $pid) after $(( $(date +%s) - start )) s"
wait $job
rc=$?
took=$(( $(date +%s) - start ))
grep -E '^t_nodefault|^FAIL' "$out"
ranks=$(grep -c 'failed with' "$out")
classes=$(grep -o 'failed with MPI_ERR_[A-Z_]*' "$out" | sort -u | wc -l)
echo "nodefault: job ended with status $rc after $took s (limit $limit s)"
rm -f "$out"
bash "$C" exec node1 rm -rf "$dir"
[ $rc -ne 124 ] || { echo "nodefault: FAILED: the job hung"; exit 1; }
[ "$ranks" -gt 0 ] && [ "$classes" -eq 1 ] || { echo "nodefault: FAILED: $ranks failure lines, $classes classes"; exit 1; }
exit $rc
