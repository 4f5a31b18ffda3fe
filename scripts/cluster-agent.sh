#!/usr/bin/env bash
# The "ssh" of the emulated cluster (scripts/cluster.sh): MPI launchers call
# it as they call ssh, `cluster-agent.sh [ssh options] NODE COMMAND...`, and it
# runs COMMAND with /bin/sh -c inside NODE's namespaces, in the home
# directory, with the few variables an ssh login gives (what the launcher
# forwards comes on its command line, as it would over ssh).
set -u
state=${FERRY_CLUSTER_ROOT:-/var/lib/ferry-cluster}/state
while [ $# -gt 0 ]; do
  case $1 in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;   # ssh's options that take a value
    -*) shift ;;
    *) break ;;
  esac
done
node=${1:?usage: cluster-agent.sh [ssh options] NODE COMMAND...}
shift
pid=$(cat "$state/$node.pid" 2>/dev/null)
ns=$(cat "$state/$node.ns" 2>/dev/null)
if [ -z "$pid" ] || [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" != "$ns" ]; then
  echo "cluster-agent: $node is not a running node of the cluster" >&2
  exit 255
fi
home=$(getent passwd "$(id -un)" | cut -d: -f6)
exec nsenter -t "$pid" -n -u -m -i --wd="${home:-/}" -- env -i HOME="${home:-/}" USER="$(id -un)" \
  LOGNAME="$(id -un)" SHELL=/bin/sh PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/sh -c "$*"
