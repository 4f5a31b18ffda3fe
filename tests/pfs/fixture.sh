#!/usr/bin/env bash
# The testbed as a CTest fixture: `up MARKER` starts it unless it is already
# up, and leaves MARKER when it did; `down MARKER` takes it down only then, so
# make test never stops a testbed somebody else started. A machine that cannot
# run it (no FUSE, no GlusterFS, not root) is no failure: one line says why and
# the tests on it skip themselves.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
what=$1 marker=$2
case "$what" in
  up)
    rm -f "$marker"
    if bash "$root/scripts/pfs.sh" status >/dev/null 2>&1; then
      echo "pfs: testbed already up, left as it is"; exit 0
    fi
    bash "$root/scripts/pfs.sh" up; rc=$?
    [ $rc -eq 0 ] && { touch "$marker"; exit 0; }
    [ $rc -eq 77 ] && exit 0
    exit $rc ;;
  down)
    [ -f "$marker" ] || { echo "pfs: not started by this test run, left up"; exit 0; }
    rm -f "$marker"
    bash "$root/scripts/pfs.sh" down ;;
  *) echo "usage: fixture.sh up|down MARKER" >&2; exit 2 ;;
esac
