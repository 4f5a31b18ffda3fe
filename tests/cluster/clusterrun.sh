#!/usr/bin/env bash
# Runs one test on the emulated cluster (scripts/cluster.sh, docs/cluster.md):
#
#   clusterrun.sh NAME -- CMD ARGS...
#
# CMD runs on the host (typically `bash scripts/cluster.sh mpirun FLAVOR
# [launcher args] PROG [ARGS]`, which starts the ranks inside the nodes),
# with @DIR@ in ARGS replaced by a fresh directory on the cluster's sharded
# volume (FERRY_CLUSTER_VOLUME=dist: the plain distribute one), as the nodes see it (the host does not: each node mounts the volume
# through its own client; look inside with `cluster.sh exec NODE ...`).
# Exported to CMD: FERRY_CLUSTER (the path of cluster.sh), FERRY_CLUSTER_DIR
# (that directory) and what `cluster.sh env` prints (FERRY_CLUSTER_SHARD,
# _DIST, _NODES, _SLOTS, _RATE, _STORAGE_RATE). The directory is removed when
# CMD passes and kept for inspection when it fails. Exit 77 (skipped) with
# one line when the cluster is not up, or, with FERRY_CLUSTER_NEEDS_IONS
# set, up without 2 or more I/O nodes.
set -u
name=$1; shift
[ "${1:-}" = -- ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
FERRY_CLUSTER=$root/scripts/cluster.sh
if ! bash "$FERRY_CLUSTER" status >/dev/null 2>&1; then
  echo "cluster: skipped: the emulated cluster is not up (scripts/cluster.sh up says why)"
  exit 77
fi
eval "$(bash "$FERRY_CLUSTER" env)"
# the tests of the I/O-node tier (ionodes.cmake) ask for it
if [ -n "${FERRY_CLUSTER_NEEDS_IONS:-}" ] && [ "${FERRY_CLUSTER_IO_NODES:-0}" -lt 2 ]; then
  echo "cluster: skipped: the test needs the cluster with I/O nodes (scripts/cluster.sh up --io-nodes 2; make test's step \"tests on the cluster with I/O nodes\" runs it so)"
  exit 77
fi
export FERRY_CLUSTER FERRY_CLUSTER_SHARD FERRY_CLUSTER_DIST FERRY_CLUSTER_NODES FERRY_CLUSTER_SLOTS \
  FERRY_CLUSTER_RATE FERRY_CLUSTER_STORAGE_RATE
case ${FERRY_CLUSTER_VOLUME:-shard} in
  dist) vol=$FERRY_CLUSTER_DIST ;;
  *) vol=$FERRY_CLUSTER_SHARD ;;
esac
dir=$vol/ferry-tests/${FERRY_CLUSTER_TAG:-default}/$name
export FERRY_CLUSTER_DIR=$dir
bash "$FERRY_CLUSTER" exec node1 sh -c 'rm -rf "$1" && mkdir -p "$1"' sh "$dir" ||
  { echo "cluster: cannot create $dir in node1"; exit 1; }
args=()
for a in "$@"; do args+=("${a//@DIR@/$dir}"); done
"${args[@]}"
rc=$?
[ $rc -eq 0 ] && bash "$FERRY_CLUSTER" exec node1 rm -rf "$dir"
exit $rc
