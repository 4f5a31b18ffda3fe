#!/usr/bin/env bash
# Files on the emulated cluster's volume, which only its nodes mount (for
# tests/mpi/diffrun.sh --remote-cmd):
#
#   remote.sh prep DIR        DIR exists there, empty
#   remote.sh get DIR LOCAL   copies DIR's files into LOCAL (here)
set -u
cluster=$(cd "$(dirname "$0")/../.." && pwd)/scripts/cluster.sh
case ${1:-} in
  prep) bash "$cluster" exec node1 sh -c 'rm -rf "$1" && mkdir -p "$1"' sh "$2" ;;
  get)
    mkdir -p "$3" || exit 1
    bash "$cluster" exec node1 tar -C "$2" -cf - . | tar -C "$3" -xf - ;;
  *) echo "usage: remote.sh prep DIR | get DIR LOCAL" >&2; exit 2 ;;
esac
