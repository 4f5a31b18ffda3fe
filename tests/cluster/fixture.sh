#!/usr/bin/env bash
# The emulated cluster as a CTest fixture: `up MARKER` starts it unless it is
# already up, and leaves MARKER when it did; `down MARKER` takes it down only
# then, so make test never stops a cluster somebody else started. A machine
# that cannot run it (not root, no namespaces, no FUSE, no GlusterFS) is no
# failure: one line says why and the tests on it skip themselves.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
what=$1 marker=$2
case "$what" in
  up)
    rm -f "$marker"
    if bash "$root/scripts/cluster.sh" status >/dev/null 2>&1; then
      echo "cluster: already up, left as it is"; exit 0
    fi
    bash "$root/scripts/cluster.sh" up; rc=$?
    [ $rc -eq 0 ] && { touch "$marker"; exit 0; }
    [ $rc -eq 77 ] && exit 0
    exit $rc ;;
  down)
    [ -f "$marker" ] || { echo "cluster: not started by this test run, left up"; exit 0; }
    rm -f "$marker"
    bash "$root/scripts/cluster.sh" down ;;
  *) echo "usage: fixture.sh up|down MARKER" >&2; exit 2 ;;
esac
