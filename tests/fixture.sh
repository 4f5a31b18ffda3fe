#!/usr/bin/env bash
# A testbed (scripts/pfs.sh, scripts/cluster.sh) as a CTest fixture:
#
#   fixture.sh SCRIPT up|down MARKER
#
# `up` starts it unless it is already up, and leaves MARKER when it did;
# `down` takes it down only then, so make test never stops a testbed somebody
# else started. A machine that cannot run it (SCRIPT exits 77: no FUSE, no
# GlusterFS, no namespaces, not root) is no failure: one line says why and the
# tests on it skip themselves.
set -u
script=$1 what=$2 marker=$3
name=$(basename "$script" .sh)
case "$what" in
  up)
    rm -f "$marker"
    if bash "$script" status >/dev/null 2>&1; then
      echo "$name: already up, left as it is"; exit 0
    fi
    bash "$script" up; rc=$?
    [ $rc -eq 0 ] && { touch "$marker"; exit 0; }
    [ $rc -eq 77 ] && exit 0
    exit $rc ;;
  down)
    [ -f "$marker" ] || { echo "$name: not started by this test run, left up"; exit 0; }
    rm -f "$marker"
    bash "$script" down ;;
  *) echo "usage: fixture.sh SCRIPT up|down MARKER" >&2; exit 2 ;;
esac
