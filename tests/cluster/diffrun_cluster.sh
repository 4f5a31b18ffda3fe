#!/usr/bin/env bash
# tests/mpi/diffrun.sh with ferry across the emulated cluster's nodes (run
# by clusterrun.sh, which exports FERRY_CLUSTER*; ferry's files go to the
# directory it made on the sharded volume), against the natives run on this
# host, where caches are coherent: what ferry writes and reads across nodes
# must be what a native writes and reads where nothing is stale. (On the
# cluster the natives themselves read stale bytes and leave wrong sizes:
# cluster_consist_native.) A native's run is kept for the next test of the
# same program (NATIVE_OUT), its bytes do not depend on ferry's strategy.
#
#   diffrun_cluster.sh FLAVOR RANKS LIBFERRY OUT NATIVE_OUT "HOST MPIEXEC" "LAUNCHER ARGS" "K=V ..." -- PROG ARGS...
set -u
flavor=$1 np=$2 lib=$3 out=$4 native_out=$5 host_mpiexec=$6 extra=$7 envs=$8
shift 8
[ "${1:-}" = -- ] && shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$native_out"
exec bash "$here/../mpi/diffrun.sh" --mpiexec "bash $FERRY_CLUSTER mpirun $flavor" --np "$np" --lib "$lib" \
  --flavor "$flavor" --out "$out" --extra "$extra" --env "$envs" \
  --remote "$FERRY_CLUSTER_DIR" --remote-cmd "bash $here/remote.sh" \
  --native-mpiexec "$host_mpiexec" --native-out "$native_out" --native-reuse -- "$@"
