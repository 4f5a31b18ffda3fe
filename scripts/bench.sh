#!/usr/bin/env bash
# make bench: the full comparison (larger sizes, /tmp and /dev/shm, 5 rounds).
# Results go to bench/out; bench/results holds the committed record of one
# full run (copy table.md, table.txt, results.json and the PNGs there).
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
py=python3
for c in /usr/bin/python3 python3; do
  if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
exec "$py" bench/compare.py --full --builds build/openmpi,build/mpich --out bench/out "$@"
