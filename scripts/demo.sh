#!/usr/bin/env bash
# The main job, quick size: an unmodified N:1 program writes, reads back and
# verifies a shared file through ferry, with ferry's statistics and timers on.
set -eu
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d /tmp/ferry-demo.XXXXXX)
trap 'rm -rf "$out"' EXIT
b=build/openmpi
echo "ferry demo: 4 ranks, segmented N:1, 1 MiB transfers, collective, through ferry (LD_PRELOAD)"
FERRY_TEST_OUT=$out FERRY_STATS=1 FERRY_TIMERS=1 \
  mpiexec.openmpi --oversubscribe -n 4 -x LD_PRELOAD="$PWD/$b/lib/libferry.so" \
  "$b/tests/mpi/t_ior" -t 1048576 -b 4194304 -s 4 -c | grep -v '^REPORT'
