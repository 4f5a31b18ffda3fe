#!/usr/bin/env bash
# make bench: the full comparison (larger sizes, /tmp, /dev/shm and the testbed's
# sharded GlusterFS volume when it runs here, 5 rounds), then the same
# patterns on the emulated cluster at sizes for its links (docs/cluster.md),
# 3 rounds, into bench/out/cluster, when it can run here.
# Results go to bench/out; bench/results holds the committed record of one
# full run (copy table.md, table.txt, results.json and the PNGs there).
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
py=python3
for c in /usr/bin/python3 python3; do
  if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
# the GlusterFS testbed's sharded volume joins the comparison when it can
# start here (scripts/pfs.sh prints one line and exits 77 where it cannot)
bash scripts/pfs.sh up >/dev/null 2>&1 || true  # compare.py says in one line why it is left out
status=0
"$py" bench/compare.py --full --no-cluster --builds build/openmpi,build/mpich --out bench/out "$@" || status=$?
# scripts/cluster.sh prints one line and exits 77 where it cannot run
if up=$(bash scripts/cluster.sh up 2>&1) || { echo "${up##*$'\n'}"; false; }; then
  # every pattern, sized for the links (docs/cluster.md: its length); the
  # plain volume: the sharded one miscounts the size of a file that clients
  # on several nodes extend, natively too, whatever its options
  "$py" bench/compare.py --cluster --cluster-volume dist --builds build/openmpi,build/mpich \
    --out bench/out/cluster "$@" || status=$?
fi
exit $status
