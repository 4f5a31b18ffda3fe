#!/usr/bin/env bash
# Runs one test on the GlusterFS testbed (scripts/pfs.sh):
#
#   pfsrun.sh NAME -- CMD ARGS...
#
# CMD runs with FERRY_TEST_OUT and FERRY_TEST_TMP set to a fresh directory on
# the sharded volume, and @DIR@ in ARGS replaced by it; FERRY_PFS_SHARD and
# FERRY_PFS_DIST are exported. The directory is removed when CMD passes and
# kept for inspection when it fails. Exit 77 (skipped) with one line when the
# testbed is not mounted.
set -u
name=$1; shift
[ "${1:-}" = -- ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
eval "$(bash "$root/scripts/pfs.sh" env)"
export FERRY_PFS_SHARD FERRY_PFS_DIST
if ! bash "$root/scripts/pfs.sh" status >/dev/null 2>&1; then
  echo "pfs: skipped: the GlusterFS testbed is not mounted on $FERRY_PFS_SHARD (scripts/pfs.sh up says why)"
  exit 77
fi
dir=$FERRY_PFS_SHARD/ferry-tests/${FERRY_PFS_TAG:-default}/$name
rm -rf "$dir"
# Two tests starting together on a fresh volume both create the shared
# parents; GlusterFS's distribute layer can answer one of them EIO while the
# other's mkdir is still settling on the bricks (CI saw it once, right after
# pfs_up). The retry is bounded; a volume that stays broken still fails.
for try in 1 2 3 4 5 6 7 8 9 10; do
  err=$(mkdir -p "$dir" 2>&1) && break
  [ $try -eq 10 ] && { echo "pfs: cannot create $dir: $err"; exit 1; }
  sleep 1
done
args=()
for a in "$@"; do args+=("${a//@DIR@/$dir}"); done
FERRY_TEST_OUT=$dir FERRY_TEST_TMP=$dir "${args[@]}"
rc=$?
[ $rc -eq 0 ] && rm -rf "$dir"
exit $rc
