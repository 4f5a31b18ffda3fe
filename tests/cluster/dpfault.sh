#!/usr/bin/env bash
# A data process on an I/O node killed under t_dc_outage (tests/cluster/
# fault.sh dp:ion1), launched as seed 001's launcher does: ferry-run puts
# 8 compute ranks on the compute nodes and 2 data processes on the I/O
# nodes (the cluster up with --io-nodes 2). MPICH runs with --survive: the
# ranks the dead process served get MPI_ERR_OTHER within the timeout and
# the others go on. Open MPI 4.1's launcher does not end the job after a
# failure under --enable-recovery across nodes (docs/reliability.md), so it
# runs without it: the launcher ends the whole job at once.
#
#   dpfault.sh FLAVOR LIMIT FERRY_RUN T_DC_OUTAGE [SECONDS]
set -u
flavor=$1 limit=$2 run=$3 prog=$4 seconds=${5:-15}
C=$(dirname "$0")/../../scripts/cluster.sh
hosts=$(bash "$C" hosts all "$([ "$flavor" = mpich ] && echo hydra || echo openmpi)") || exit 1
if [ "$flavor" = mpich ]; then
  via="--via $run --survive -np 8 -dp 2 -f $hosts -genv FERRY_DECOUPLE_TIMEOUT 10"
else
  via="--via $run -np 8 -dp 2 -f $hosts -x FERRY_DECOUPLE_TIMEOUT=10"
fi
exec bash "$(dirname "$0")/fault.sh" "$flavor" "$limit" dp:ion1 "$via" -- "$prog" "$seconds"
