#!/usr/bin/env bash
# An emulated cluster on this host (docs/cluster.md): compute nodes and
# storage nodes as Linux namespaces (network, hostname, mounts, IPC; one
# holder process each), joined by a bridge in a "switch" namespace of its own
# over veth links rate-limited with tbf in both directions. The storage nodes
# run GlusterFS (their own /run, /var/lib/glusterd, /var/log/glusterfs, so the
# host's testbed of scripts/pfs.sh keeps running beside them) and serve a
# sharded volume and a plain distribute one, which EVERY compute node mounts
# through its own FUSE client at $MNT/shard and $MNT/dist.
#
# With --io-nodes M, I/O nodes ion1..ionM stand between the compute nodes and
# the storage nodes, as the I/O nodes of a Blue Gene/Q or the LNET routers
# of a Lustre site: a compute network (10.77.0.0/24: compute nodes, the I/O
# nodes' first links) and a storage network (10.78.0.0/24: the I/O nodes'
# second links, the storage nodes), each its own bridge; the I/O nodes
# forward IP between them, and every compute node's route to storage goes
# through its I/O node (compute nodes in blocks: node1..nodeN/M through ion1,
# and so on). Compute nodes keep their own file-system clients, so an
# unmodified program runs as before, its storage traffic crossing its I/O
# node; the I/O nodes mount the volumes too, for the ranks ferry places
# there (aggregators, forwarders, data processes).
#
#   cluster.sh up [options]     build or repair what is missing (idempotent; rates re-applied)
#   cluster.sh down             undo what up made, ending its processes by their ids
#   cluster.sh status           one line per node; exit 0 when all is up and mounted
#   cluster.sh env              FERRY_CLUSTER_* settings of the running cluster (for eval)
#   cluster.sh exec NODE CMD... run CMD inside NODE (caller's environment and directory)
#   cluster.sh machine          the running cluster as ferry-topo's --machine spec
#                               (cluster:nodes=N,ions=M,rate=...; rates in bytes/s)
#   cluster.sh hosts ROLE [openmpi|hydra]
#                               the path of a hostfile of the role's nodes: compute
#                               (mpirun's default), io, or all (compute nodes first)
#   cluster.sh counters         bytes through each link, CPU ticks of the cluster's processes
#   cluster.sh link NODE[/storage] down|up
#                               take NODE's link away at its switch port, or give it
#                               back (a pulled cable: the node keeps its address and
#                               routes, its packets go nowhere); NODE/storage is an
#                               I/O node's storage-side link
#   cluster.sh rate NODE[/storage] RATE|default
#                               shape NODE's link to RATE (tc's form: 1mbit), or
#                               back to what up gave it: a slow link for a run
#   cluster.sh brick VOLUME bN|PATH down|up|stop|cont
#                               kill brick bN of VOLUME (shard or dist; or the
#                               brick that holds PATH, a path on the volume as
#                               the nodes mount it) at once, as a server that
#                               crashes, or start the volume's dead bricks again;
#                               stop it (SIGSTOP: a server that neither answers
#                               nor fails) and let it go on
#   cluster.sh shards VOLUME    the shard blocks of the sharded VOLUME held as data
#                               on more than one brick (GlusterFS's distribute
#                               layer created one block twice: each client reads
#                               and writes the copy it resolved); nothing when none
#   cluster.sh pids NODE NAME   the ids of the processes named NAME in NODE (by
#                               its network namespace: the nodes share the host's
#                               process ids)
#   cluster.sh small up SIZE|down
#                               a sharded volume of its own whose one brick is a
#                               tmpfs of SIZE (mount's form: 64m) in storage1,
#                               mounted on every compute and I/O node at
#                               $MNT/small: a storage target that fills up
#   cluster.sh mpirun openmpi|mpich [--hosts ROLE] [--via LAUNCHER] [launcher args] PROG [ARGS...]
#                               run an MPI program from node1 across the compute nodes
#                               (--hosts all: and the I/O nodes, for what spawns there);
#                               the arguments pass unchanged to mpiexec after the
#                               cluster's own settings (which a later option overrides);
#                               --via runs LAUNCHER (ferry-run, which passes launcher
#                               options through) instead, with FERRY_MPIEXEC naming
#                               the cluster's mpiexec
#
# up's options (or variables): --nodes N (FERRY_CLUSTER_NODES, 4), --storage M
# (FERRY_CLUSTER_STORAGE, 1), --slots S ranks per node (FERRY_CLUSTER_SLOTS, 2),
# --rate R of a compute node's link (FERRY_CLUSTER_RATE, 50mbit), --storage-rate R
# of a storage node's link (FERRY_CLUSTER_STORAGE_RATE, 200mbit); rates as tc
# takes them (500mbit, 1gbit), `none` for no limit; --io-nodes M
# (FERRY_CLUSTER_IO_NODES, 0: none), --io-rate R of an I/O node's link to
# the compute network (FERRY_CLUSTER_IO_RATE, 100mbit: its compute nodes'
# links together), --io-storage-rate R of its link to the storage network
# (FERRY_CLUSTER_IO_STORAGE_RATE, 200mbit: I/O nodes sit close to storage,
# as Blue Gene/Q's on InfiniBand and seed 001's data nodes), --io-slots S
# ranks per I/O node (FERRY_CLUSTER_IO_SLOTS, 1); with I/O nodes, --storage
# defaults to 2.
# FERRY_CLUSTER_ROOT
# (/var/lib/ferry-cluster) holds the state and the bricks; FERRY_CLUSTER_MNT
# (/mnt/ferry-cluster) is where the nodes mount the volumes.
# Nodes are node1..nodeN (10.77.0.1..N), ion1..ionM (10.77.0.101.. and
# 10.78.0.101..) and storage1..storageM (10.77.0.201.., with I/O nodes
# 10.78.0.201..), with no route out of the cluster's subnets.
# Exit status 77 means "cannot run here" (not root, no namespaces, no FUSE,
# no GlusterFS) or "the cluster is not up": callers skip. One line says why.
set -uo pipefail

SKIP=77
here=$(cd "$(dirname "$0")" && pwd)
ROOT=${FERRY_CLUSTER_ROOT:-/var/lib/ferry-cluster}
MNT=${FERRY_CLUSTER_MNT:-/mnt/ferry-cluster}
STATE=$ROOT/state
NET=10.77.0
SNET=10.78.0 # the storage network, where there are I/O nodes
VOLS=(ferry-shard ferry-dist)
SMALL=ferry-small # `cluster.sh small`'s volume, made only on demand
AGENT=$here/cluster-agent.sh

say() { echo "cluster: $*"; }
# shellcheck source=scripts/gluster.sh
. "$here/gluster.sh"
# shellcheck source=scripts/mpich-runtime.sh
. "$here/mpich-runtime.sh"

# The configuration of the running cluster (written by up) under the
# caller's variables.
load_config() {
  # shellcheck disable=SC1091
  [ -f "$STATE/config" ] && . "$STATE/config"
  NODES=${FERRY_CLUSTER_NODES:-${C_NODES:-4}}
  IONS=${FERRY_CLUSTER_IO_NODES:-${C_IONS:-0}}
  [[ $IONS =~ ^[0-9]+$ ]] || { echo "cluster.sh: --io-nodes takes a number, not '$IONS'" >&2; exit 2; }
  local storage_default=1
  [ "$IONS" -gt 0 ] && storage_default=2
  NSTORAGE=${FERRY_CLUSTER_STORAGE:-${C_STORAGE:-$storage_default}}
  SLOTS=${FERRY_CLUSTER_SLOTS:-${C_SLOTS:-2}}
  IOSLOTS=${FERRY_CLUSTER_IO_SLOTS:-${C_IOSLOTS:-1}}
  RATE=${FERRY_CLUSTER_RATE:-${C_RATE:-50mbit}}
  IORATE=${FERRY_CLUSTER_IO_RATE:-${C_IORATE:-100mbit}}
  IOSRATE=${FERRY_CLUSTER_IO_STORAGE_RATE:-${C_IOSRATE:-200mbit}}
  SRATE=${FERRY_CLUSTER_STORAGE_RATE:-${C_SRATE:-200mbit}}
}

compute_nodes() { local i; for ((i = 1; i <= NODES; i++)); do echo "node$i"; done; }
storage_nodes() { local i; for ((i = 1; i <= NSTORAGE; i++)); do echo "storage$i"; done; }
io_nodes() { local i; for ((i = 1; i <= IONS; i++)); do echo "ion$i"; done; }
# a node's address on the network its first link (eth0) joins
addr_of() {
  case $1 in
    node*) echo "$NET.${1#node}" ;;
    ion*) echo "$NET.$((100 + ${1#ion}))" ;;
    storage*) if [ "$IONS" -gt 0 ]; then echo "$SNET.$((200 + ${1#storage}))"; else echo "$NET.$((200 + ${1#storage}))"; fi ;;
  esac
}
# an I/O node's address on the storage network (its eth1)
saddr_of() { echo "$SNET.$((100 + ${1#ion}))"; }
rate_of() { case $1 in node*) echo "$RATE" ;; ion*) echo "$IORATE" ;; *) echo "$SRATE" ;; esac; }
srate_of() { echo "$IOSRATE"; } # an I/O node's storage-side link
# the bridge a node's first link joins: storage nodes are on the storage
# network where there are I/O nodes
bridge_of() { case $1 in storage*) [ "$IONS" -gt 0 ] && { echo br1; return; } ;; esac; echo br0; }
# The I/O node of a compute node: blocks of consecutive compute nodes, as
# Blue Gene/Q's psets.
ion_of() { local k=${1#node}; echo "ion$(((k - 1) * IONS / NODES + 1))"; }
mnt_of() { echo "$MNT/${1#ferry-}"; }

# A holder is alive when its pid still owns the network namespace recorded
# at its start (a reused pid does not).
pid_of() { cat "$STATE/$1.pid" 2>/dev/null; }
alive() {
  local pid; pid=$(pid_of "$1")
  [ -n "$pid" ] && [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$(cat "$STATE/$1.ns" 2>/dev/null)" ]
}
# Daemons start inside nodes (glusterd, FUSE clients) through these: they
# must not inherit the descriptor of up's lock (9), or they would hold it.
in_ns() { local pid=$1; shift; nsenter -t "$pid" -n -u -m -i -- "$@" 9>&-; }
in_node() { GL_IN=(in_ns "$(pid_of "$1")"); }
run_in() { local n=$1; shift; in_ns "$(pid_of "$n")" "$@"; }

why_not() {
  local why
  if why=$(gl_why_not); then echo "$why"; return 0; fi
  for c in unshare nsenter ip tc; do
    command -v $c >/dev/null || { echo "$c is missing (scripts/deps.sh installs iproute2 and util-linux)"; return 0; }
  done
  unshare --net --uts --mount --ipc true 2>/dev/null || { echo "this kernel or container does not allow new namespaces"; return 0; }
  return 1
}

# The processes in a node's namespace (found by the namespace id recorded at
# its start): the holder, glusterd and bricks, FUSE clients, MPI ranks.
members() {
  local ns; ns=$(cat "$STATE/$1.ns" 2>/dev/null) || return 0
  [ -n "$ns" ] || return 0
  ns_pids "$ns"
}
# The processes whose network namespace is one of those given (one pass over
# /proc: a loop of readlink would take seconds on a busy host).
ns_pids() {
  find /proc/[0-9]*/ns/net -maxdepth 0 -printf '%l %h\n' 2>/dev/null |
    awk -v nss="$*" 'BEGIN { n = split(nss, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
      want[$1] { split($2, p, "/"); print p[3] }'
}
end_members() { # TERM, then KILL what is left after 5 s
  local pids; pids=$(members "$1")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null
  for _ in $(seq 1 50); do
    pids=$(members "$1"); [ -n "$pids" ] || return 0; sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  sleep 0.2
}

# A node: a holder `sleep` in new namespaces, its hostname, loopback, its own
# /dev/shm and /etc/hosts, none of the host's FUSE mounts; a storage node
# also its own /run, /var/lib/glusterd and /var/log/glusterfs.
start_node() {
  local n=$1 dir=$ROOT/nodes/$1
  end_members "$n"   # what is left of a dead one
  mkdir -p "$dir/log"
  setsid unshare --net --uts --mount --ipc --propagation private -- sleep infinity </dev/null >/dev/null 2>&1 9>&- &
  local pid=$! ns
  for _ in $(seq 1 50); do
    ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null)
    [ -n "$ns" ] && [ "$ns" != "$(readlink /proc/self/ns/net)" ] && break
    sleep 0.05
  done
  echo "$pid" >"$STATE/$n.pid"; echo "$ns" >"$STATE/$n.ns"
  alive "$n" || { say "cannot start the namespaces of $n"; return 1; }
  [ "$n" = switch ] && return 0
  local setup="hostname $n && ip link set lo up &&
    awk '\$3 ~ /^fuse(\\.|\$)/ {print \$2}' /proc/self/mounts | sort -r | while read -r m; do umount -l \"\$(printf '%b' \"\$m\")\"; done;
    mount -t tmpfs -o mode=1777 tmpfs /dev/shm && mount --bind '$STATE/hosts' /etc/hosts &&
    mount --bind '$dir/log' /var/log/glusterfs"
  case $n in storage*)
    mkdir -p "$dir/glusterd"
    setup="$setup && mount -t tmpfs -o mode=755 tmpfs /run && mount --bind '$dir/glusterd' /var/lib/glusterd" ;;
  esac
  run_in "$n" sh -c "$setup" || { say "cannot set up the namespaces of $n"; return 1; }
}

# tbf both ways: the node's eth0 caps what it sends, the switch's port what
# it receives. The burst holds 10 ms at the rate (64 KiB at least, so that
# segmentation-offloaded packets pass).
shape() { # where dev rate
  local where=$1 dev=$2 rate=$3
  if [ "$rate" = none ]; then run_in "$where" tc qdisc del dev "$dev" root 2>/dev/null; return 0; fi
  local bits; bits=$(rate_bits "$rate") || { say "cannot read the rate $rate"; return 1; }
  local burst=$((bits / 800)); [ $burst -lt 65536 ] && burst=65536
  run_in "$where" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms ||
    { say "cannot shape $dev of $where to $rate (is sch_tbf there?)"; return 1; }
}
rate_bits() {
  local r=${1,,} m=1
  case $r in *gbit) m=1000000000; r=${r%gbit} ;; *mbit) m=1000000; r=${r%mbit} ;; *kbit) m=1000; r=${r%kbit} ;; *bit) r=${r%bit} ;; esac
  [[ $r =~ ^[0-9]+$ ]] || return 1
  echo $((r * m))
}

has_addr() { run_in "$1" ip -4 addr show dev "$2" 2>/dev/null | grep -q "inet $3/"; }
link_up() {
  has_addr "$1" eth0 "$(addr_of "$1")" || return 1
  case $1 in ion*) has_addr "$1" eth1 "$(saddr_of "$1")" ;; esac
}
# One veth pair: PORT in the switch's BRIDGE, DEV with ADDR in the node.
make_port() { # node port bridge dev addr
  local n=$1 port=$2 br=$3 dev=$4 addr=$5
  run_in switch ip link del "$port" 2>/dev/null
  run_in switch ip link add "$port" type veth peer name "$dev" netns "$(pid_of "$n")" &&
    run_in switch ip link set "$port" master "$br" up &&
    run_in "$n" ip addr add "$addr/24" dev "$dev" &&
    run_in "$n" ip link set "$dev" up || { say "cannot link $n ($dev) to the switch"; return 1; }
}
make_link() {
  local n=$1
  make_port "$n" "p-$n" "$(bridge_of "$n")" eth0 "$(addr_of "$n")" || return 1
  case $n in ion*)
    make_port "$n" "q-$n" br1 eth1 "$(saddr_of "$n")" &&
      run_in "$n" sysctl -qw net.ipv4.ip_forward=1 || { say "cannot make $n forward"; return 1; } ;;
  esac
}
# Where there are I/O nodes: a compute node reaches the storage network
# through its I/O node, and a storage node answers it the same way.
routes() { # node
  [ "$IONS" -gt 0 ] || return 0
  local n=$1 c
  case $n in
    node*) run_in "$n" ip route replace "$SNET.0/24" via "$(addr_of "$(ion_of "$n")")" ;;
    storage*)
      for c in $(compute_nodes); do
        run_in "$n" ip route replace "$(addr_of "$c")/32" via "$(saddr_of "$(ion_of "$c")")" || return 1
      done ;;
  esac || { say "cannot route $n through the I/O nodes"; return 1; }
}

# The hostfiles of each role for each launcher: SLOTS ranks per compute
# node, IOSLOTS per I/O node; compute nodes first in `all`, so that the
# first ranks are the program's (a cluster brought up by an older cluster.sh
# has none yet; mpirun writes them then, each whole or not at all).
slots_of() { case $1 in ion*) echo "$IOSLOTS" ;; *) echo "$SLOTS" ;; esac; }
role_nodes() { case $1 in compute) compute_nodes ;; io) io_nodes ;; all) compute_nodes; io_nodes ;; esac; }
hostfiles() {
  local role n tmp
  for role in compute io all; do
    tmp=$(mktemp "$STATE/.hosts.XXXXXX") || return 1
    for n in $(role_nodes $role); do echo "$n:$(slots_of "$n")"; done >"$tmp" && mv -f "$tmp" "$STATE/hostfile.$role.hydra"
    tmp=$(mktemp "$STATE/.hosts.XXXXXX") || return 1
    for n in $(role_nodes $role); do echo "$n slots=$(slots_of "$n")"; done >"$tmp" &&
      mv -f "$tmp" "$STATE/hostfile.$role.openmpi"
  done
  ln -sfn hostfile.compute.hydra "$STATE/hostfile.hydra"
  ln -sfn hostfile.compute.openmpi "$STATE/hostfile.openmpi"
}

write_files() {
  local n
  { echo "127.0.0.1 localhost"
    for n in $(compute_nodes) $(io_nodes) $(storage_nodes); do echo "$(addr_of "$n") $n"; done; } >"$STATE/hosts"
  hostfiles
  cat >"$STATE/config" <<EOF
C_NODES=$NODES
C_STORAGE=$NSTORAGE
C_SLOTS=$SLOTS
C_RATE=$RATE
C_SRATE=$SRATE
C_IONS=$IONS
C_IORATE=$IORATE
C_IOSRATE=$IOSRATE
C_IOSLOTS=$IOSLOTS
EOF
}

start_glusterd() { # storage node
  local n=$1
  in_node "$n"
  gl_up && return 0
  "${GL_IN[@]}" glusterd --pid-file="$STATE/$n.glusterd.pid" || { say "glusterd did not start in $n"; return 1; }
  for _ in $(seq 1 300); do gl_up && return 0; sleep 0.1; done
  say "glusterd started in $n but does not answer"; return 1
}

# Each volume has 4 bricks, dealt round-robin over the storage nodes.
make_volumes() {
  local first=storage1 n v kind i
  in_node $first
  for n in $(storage_nodes); do
    [ "$n" = $first ] && continue
    gl peer status 2>/dev/null | grep -q "Hostname: $n\$" || gl peer probe "$n" >/dev/null ||
      { say "storage1 cannot probe $n"; return 1; }
  done
  for v in "${VOLS[@]}"; do
    if ! gl_vol_exists "$v"; then
      local bricks=()
      for i in 1 2 3 4; do
        n=storage$(((i - 1) % NSTORAGE + 1))
        mkdir -p "$ROOT/bricks/$v/b$i"; bricks+=("$n:$ROOT/bricks/$v/b$i")
      done
      kind=plain; [ "$v" = ferry-shard ] && kind=sharded
      gl_create_vol "$v" $kind "${bricks[@]}" || { say "cannot create volume $v"; return 1; }
    fi
    # `start force` also restarts the bricks of a storage node that was rebuilt
    gl_vol_started "$v" && [ -z "$rebuilt_storage" ] && continue
    gl volume start "$v" force >/dev/null || { say "cannot start volume $v"; return 1; }
  done
}

mount_node() { # compute or I/O node: both volumes through its own client
  local n=$1 v backups="" s
  for s in $(storage_nodes); do [ "$s" = storage1 ] || backups="${backups:+$backups:}$s"; done
  in_node "$n"
  for v in "${VOLS[@]}"; do
    gl_mounted "$(mnt_of $v)" && continue
    gl_mount storage1 "$v" "$(mnt_of $v)" ${backups:+"backup-volfile-servers=$backups"} ||
      { say "$n cannot mount $v on $(mnt_of $v)"; return 1; }
  done
}

up() {
  local why n t0=$SECONDS
  if why=$(why_not); then say "skipped: $why"; exit $SKIP; fi
  mkdir -p "$STATE" "$MNT/shard" "$MNT/dist"
  gl_close_inherited_fds
  exec 9>"$ROOT/lock"; flock 9
  local had_storage; had_storage=$(. "$STATE/config" 2>/dev/null; echo "${C_STORAGE:-}")
  if [ -n "$had_storage" ] && [ "$had_storage" != "$NSTORAGE" ] && [ -f "$STATE/storage1.pid" ]; then
    say "the running cluster has $had_storage storage node(s); run down first to change that"; exit 1
  fi
  # the storage nodes' addresses depend on whether there are I/O nodes
  local had_ions; had_ions=$(. "$STATE/config" 2>/dev/null; echo "${C_IONS:-0}")
  if [ -f "$STATE/storage1.pid" ] && [ "$((had_ions > 0))" != "$((IONS > 0))" ]; then
    say "the running cluster has $had_ions I/O node(s); run down first to add or remove the I/O tier"; exit 1
  fi
  # compute nodes beyond the new count go
  for f in "$STATE"/node*.pid "$STATE"/ion*.pid; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .pid)
    case $n in
      node*) [ "${n#node}" -gt "$NODES" ] && remove_node "$n" ;;
      ion*) [ "${n#ion}" -gt "$IONS" ] && remove_node "$n" ;;
    esac
  done
  write_files
  if ! alive switch; then
    start_node switch || exit 1
    run_in switch ip link add br0 type bridge && run_in switch ip link set br0 up ||
      { say "cannot make the switch's bridge"; exit 1; }
  fi
  if [ "$IONS" -gt 0 ] && ! run_in switch ip link show br1 >/dev/null 2>&1; then
    run_in switch ip link add br1 type bridge && run_in switch ip link set br1 up ||
      { say "cannot make the storage network's bridge"; exit 1; }
  fi
  rebuilt_storage=""
  for n in $(storage_nodes) $(io_nodes) $(compute_nodes); do
    if ! alive "$n"; then
      start_node "$n" || exit 1
      case $n in storage*) rebuilt_storage=1 ;; esac
    fi
    link_up "$n" || make_link "$n" || exit 1
    shape "$n" eth0 "$(rate_of "$n")" && shape switch "p-$n" "$(rate_of "$n")" || exit 1
    case $n in ion*) { shape "$n" eth1 "$(srate_of "$n")" && shape switch "q-$n" "$(srate_of "$n")"; } || exit 1 ;; esac
  done
  for n in $(storage_nodes) $(compute_nodes); do routes "$n" || exit 1; done
  for n in $(storage_nodes); do start_glusterd "$n" || exit 1; done
  make_volumes || exit 1
  local pids=() rc=0
  for n in $(compute_nodes) $(io_nodes); do mount_node "$n" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc = 0 ] || exit 1
  status
  local st=$?
  say "up in $((SECONDS - t0)) s"
  return $st
}

remove_node() {
  local n=$1 v
  if alive "$n"; then
    in_node "$n"
    for v in "${VOLS[@]}" "$SMALL"; do gl_umount "$(mnt_of $v)" 2>/dev/null; done
  fi
  end_members "$n"
  rm -f "$STATE/$n.pid" "$STATE/$n.ns" "$STATE/$n.glusterd.pid"
  rm -rf "${ROOT:?}/nodes/$n"
}

down() {
  [ -d "$STATE" ] || { say "nothing started by cluster.sh"; return 0; }
  gl_close_inherited_fds
  exec 9>"$ROOT/lock"; flock 9
  local t0=$SECONDS f
  # clients first (their unmount ends them), then the servers, then the switch
  for f in "$STATE"/node*.pid "$STATE"/ion*.pid "$STATE"/storage*.pid "$STATE"/switch.pid; do
    [ -e "$f" ] && case $f in *.glusterd.pid) ;; *) remove_node "$(basename "$f" .pid)" ;; esac
  done
  rm -rf "${ROOT:?}/bricks" "${ROOT:?}/nodes" "$STATE"
  rm -f "$ROOT/lock"; rmdir "$ROOT" 2>/dev/null
  rmdir "$MNT/shard" "$MNT/dist" "$(mnt_of $SMALL)" "$MNT" 2>/dev/null
  say "down in $((SECONDS - t0)) s"
}

status() {
  local rc=0 n v line
  if ! alive switch; then say "not up (scripts/cluster.sh up)"; return 1; fi
  for n in $(storage_nodes) $(io_nodes) $(compute_nodes); do
    if ! alive "$n"; then say "$n down"; rc=1; continue; fi
    line="$n $(addr_of "$n") pid $(pid_of "$n")"
    case $n in ion*) line="$n $(addr_of "$n") $(saddr_of "$n") pid $(pid_of "$n")" ;; esac
    if link_up "$n"; then
      line="$line, link $(rate_of "$n")"
      case $n in ion*) line="$line, storage link $(srate_of "$n")" ;; esac
    else
      line="$line, NO LINK"; rc=1
    fi
    in_node "$n"
    case $n in
      storage*)
        if gl_up; then line="$line, glusterd"; else line="$line, NO glusterd"; rc=1; fi ;;
      node*|ion*)
        if [ "$n" != "${n#node}" ] && [ "$IONS" -gt 0 ]; then
          if run_in "$n" ip route show "$SNET.0/24" 2>/dev/null | grep -q "via $(addr_of "$(ion_of "$n")")"; then
            line="$line, storage via $(ion_of "$n")"
          else
            line="$line, NO ROUTE to storage"; rc=1
          fi
        fi
        for v in "${VOLS[@]}"; do
          if gl_mounted "$(mnt_of $v)"; then line="$line, $(mnt_of $v)"; else line="$line, $(mnt_of $v) NOT MOUNTED"; rc=1; fi
        done ;;
    esac
    say "$line"
  done
  return $rc
}

env_out() {
  echo "FERRY_CLUSTER_SHARD=$(mnt_of ferry-shard)"
  echo "FERRY_CLUSTER_DIST=$(mnt_of ferry-dist)"
  echo "FERRY_CLUSTER_NODES=$NODES"
  echo "FERRY_CLUSTER_SLOTS=$SLOTS"
  echo "FERRY_CLUSTER_RATE=$RATE"
  echo "FERRY_CLUSTER_STORAGE_RATE=$SRATE"
  echo "FERRY_CLUSTER_STORAGE=$NSTORAGE"
  echo "FERRY_CLUSTER_IO_NODES=$IONS"
  echo "FERRY_CLUSTER_IO_RATE=$IORATE"
  echo "FERRY_CLUSTER_IO_STORAGE_RATE=$IOSRATE"
  echo "FERRY_CLUSTER_IO_SLOTS=$IOSLOTS"
}

# ferry-topo's model of the running cluster: its I/O-node tier and link
# rates (a tier without a limit counts as 10 Gbit/s, beyond anything the
# host moves).
machine_out() {
  need_up switch
  [ "$IONS" -gt 0 ] || { echo "cluster.sh machine: no I/O nodes (up --io-nodes M): ferry-topo models the I/O-node tier" >&2; exit 2; }
  local r b
  for r in "$RATE" "$IORATE" "$IOSRATE"; do
    if [ "$r" = none ]; then b=10000000000; else b=$(rate_bits "$r") || exit 1; fi
    printf '%s ' $((b / 8))
  done | { read -r rate iorate iosrate
    echo "cluster:nodes=$NODES,ions=$IONS,rate=$rate,iorate=$iorate,iosrate=$iosrate"; }
}

hosts_out() { # role [openmpi|hydra]
  local role=${1:-compute} flavor=${2:-openmpi}
  local usage="usage: cluster.sh hosts compute|io|all [openmpi|hydra]"
  case $role in compute|io|all) ;; *) echo "$usage" >&2; exit 2 ;; esac
  case $flavor in openmpi|hydra) ;; mpich) flavor=hydra ;; *) echo "$usage" >&2; exit 2 ;; esac
  need_up switch
  [ -f "$STATE/hostfile.$role.$flavor" ] || hostfiles
  echo "$STATE/hostfile.$role.$flavor"
}

# What a run used, as counters to read before and after it (bench/compare.py
# says so in its table): per node's link, as the switch counts it,
# `link NODE RATE_BITS BYTES_FROM_NODE BYTES_TO_NODE` (rate 0: no limit), and
# `cpu PID TICKS` for every process in the cluster's namespaces (utime +
# stime in clock ticks), so that other jobs on the host do not count.
# `time links T` and `time cpu T0 T1` say when (seconds since the epoch)
# each was read. compare.py reads them every half second while a benchmark
# runs, on a host whose cores other jobs keep busy: the links come from the
# switch's /proc/PID/net/dev with shell builtins only (a reading through
# nsenter and ip took 0.3-1.4 s at load 25), and one pass over /proc finds the
# processes.
link_cmd() { # node[/storage] down|up
  local n=${1:?usage: cluster.sh link NODE[/storage] down|up} state=${2:-} port
  case $state in down|up) ;; *) echo "usage: cluster.sh link NODE[/storage] down|up" >&2; exit 2 ;; esac
  need_up switch
  case $n in
    ion*/storage) port=q-${n%/storage} ;;
    */*) echo "cluster.sh link: only an I/O node has a storage-side link ($n)" >&2; exit 2 ;;
    *) port=p-$n ;;
  esac
  run_in switch ip link show "$port" >/dev/null 2>&1 || { echo "cluster.sh link: no link of $n" >&2; exit 2; }
  run_in switch ip link set "$port" "$state"
}

rate_cmd() { # node[/storage] rate|default
  local n=${1:?usage: cluster.sh rate NODE[/storage] RATE|default} r=${2:?usage: cluster.sh rate NODE[/storage] RATE|default}
  need_up switch
  need_up "${n%/storage}"
  local dev=eth0 port=p-$n given
  given=$(rate_of "$n")
  case $n in
    ion*/storage) dev=eth1 port=q-${n%/storage} given=$(srate_of "$n") ;;
    */*) echo "cluster.sh rate: only an I/O node has a storage-side link ($n)" >&2; exit 2 ;;
  esac
  [ "$r" = default ] && r=$given
  [ "$r" = none ] || rate_bits "$r" >/dev/null || { echo "cluster.sh rate: cannot read the rate $r" >&2; exit 2; }
  shape "${n%/storage}" "$dev" "$r" && shape switch "$port" "$r"
}

# A brick's volume, host and directory, from VOLUME and bN or a path on the
# volume (the bricks are this host's directories: b1..b4, dealt round-robin
# over the storage nodes, as make_volumes makes them).
brick_of() { # volume bN|path -> "vol host dir"
  local v=ferry-${1#ferry-} b=$2 i d rel
  case $b in
    b[1-4]) i=${b#b} ;;
    /*)
      rel=${b#"$(mnt_of "$v")"/}
      [ "$rel" != "$b" ] || { echo "cluster.sh brick: $b is not on $v ($(mnt_of "$v"))" >&2; return 2; }
      for d in "$ROOT/bricks/$v"/b[1-4]; do [ -e "$d/$rel" ] && { i=${d##*/b}; break; }; done
      [ -n "${i:-}" ] || { echo "cluster.sh brick: no brick of $v holds $rel" >&2; return 2; } ;;
    *) echo "usage: cluster.sh brick VOLUME bN|PATH down|up" >&2; return 2 ;;
  esac
  echo "$v storage$(((i - 1) % NSTORAGE + 1)) $ROOT/bricks/$v/b$i"
}

brick_cmd() { # volume bN|path down|up|stop|cont
  local state=${3:-} v host dir pid
  case $state in down|up|stop|cont) ;; *) echo "usage: cluster.sh brick VOLUME bN|PATH down|up|stop|cont" >&2; exit 2 ;; esac
  read -r v host dir <<<"$(brick_of "${1:-}" "${2:-}")" || exit 2
  [ -n "$dir" ] || exit 2
  need_up storage1
  in_node storage1
  if [ "$state" = up ]; then
    gl volume start "$v" force >/dev/null || { echo "cluster.sh brick: cannot start $v's bricks" >&2; exit 1; }
    return 0
  fi
  # a stopped brick does not answer glusterd either: its pid is kept
  local kept=$STATE/stopped.$v.b${dir##*/b}
  if [ "$state" = cont ]; then
    [ -e "$kept" ] || return 0
    kill -CONT "$(cat "$kept")" 2>/dev/null
    rm -f "$kept"
    return 0
  fi
  # the status row of one brick, wrapped over lines: "... Port RDMA Online Pid"
  pid=$(gl volume status "$v" "$host:$dir" 2>/dev/null | tr -s ' \n' ' ' | grep -o ' Y [0-9][0-9]*' | awk '{print $2; exit}')
  [ -n "$pid" ] || { echo "cluster.sh brick: $host:$dir of $v is not running" >&2; exit 1; }
  if [ "$state" = stop ]; then
    echo "$pid" >"$kept"
    kill -STOP "$pid"
    say "stopped brick $host:$dir of $v (pid $pid)"
    return 0
  fi
  kill -9 "$pid"
  say "killed brick $host:$dir of $v (pid $pid)"
}

shards_cmd() { # volume
  local v=${1:?usage: cluster.sh shards VOLUME}
  v=ferry-${v#ferry-}
  [ -d "$ROOT/bricks/$v" ] || { echo "cluster.sh shards: no volume $v" >&2; exit 2; }
  # data files only: DHT's link files (mode ---------T, no bytes) point to a
  # copy elsewhere and are meant to be there
  find "$ROOT/bricks/$v"/b*/.shard -maxdepth 1 -type f ! -perm -1000 -printf '%f %s %h\n' 2>/dev/null |
    sort | awk '{ n[$1]++; w[$1] = w[$1] " " $3 ":" $2 } END { for (k in n) if (n[k] > 1) print k w[k] }'
}

pids_cmd() { # node name
  local n=${1:?usage: cluster.sh pids NODE NAME} name=${2:?usage: cluster.sh pids NODE NAME} p c
  need_up "$n"
  for p in $(members "$n"); do
    read -r c <"/proc/$p/comm" 2>/dev/null && [ "$c" = "${name:0:15}" ] && echo "$p"
  done
  return 0
}

small_cmd() { # up SIZE | down
  local act=${1:-} size=${2:-64m} d=$ROOT/small n
  need_up storage1
  case $act in
    up)
      run_in storage1 sh -c 'mkdir -p "$1" && { mountpoint -q "$1" || mount -t tmpfs -o size="$2" tmpfs "$1"; } &&
        mkdir -p "$1/b"' sh "$d" "$size" || { echo "cluster.sh small: cannot mount a tmpfs of $size in storage1" >&2; exit 1; }
      in_node storage1
      gl_vol_exists $SMALL || gl_create_vol $SMALL sharded "storage1:$d/b" ||
        { echo "cluster.sh small: cannot create $SMALL" >&2; exit 1; }
      gl_vol_started $SMALL || gl volume start $SMALL force >/dev/null ||
        { echo "cluster.sh small: cannot start $SMALL" >&2; exit 1; }
      for n in $(compute_nodes) $(io_nodes); do
        in_node "$n"
        gl_mounted "$(mnt_of $SMALL)" || gl_mount storage1 $SMALL "$(mnt_of $SMALL)" ||
          { echo "cluster.sh small: $n cannot mount $SMALL" >&2; exit 1; }
      done
      say "$SMALL: $size in storage1, at $(mnt_of $SMALL) on every node" ;;
    down)
      for n in $(compute_nodes) $(io_nodes); do
        alive "$n" || continue
        in_node "$n"
        gl_umount "$(mnt_of $SMALL)"
      done
      in_node storage1
      if gl_vol_exists $SMALL; then
        gl volume stop $SMALL force >/dev/null
        gl volume delete $SMALL >/dev/null || { echo "cluster.sh small: cannot delete $SMALL" >&2; exit 1; }
      fi
      run_in storage1 sh -c 'umount "$1" 2>/dev/null; rmdir "$1" 2>/dev/null; true' sh "$d" ;;
    *) echo "usage: cluster.sh small up SIZE|down" >&2; exit 2 ;;
  esac
}

counters() {
  need_up switch
  local n dev rx tx rest bits ns nss=() t
  declare -A from to
  while read -r dev rx _ _ _ _ _ _ _ tx rest; do
    dev=${dev%:}
    [[ $dev == p-* ]] && { from[${dev#p-}]=$rx; to[${dev#p-}]=$tx; }
    [[ $dev == q-* ]] && { from[$dev]=$rx; to[$dev]=$tx; }
  done <"/proc/$(pid_of switch)/net/dev"
  t=$EPOCHREALTIME
  for n in $(storage_nodes) $(io_nodes) $(compute_nodes); do
    bits=0; [ "$(rate_of "$n")" = none ] || bits=$(rate_bits "$(rate_of "$n")")
    echo "link $n $bits ${from[$n]:-0} ${to[$n]:-0}"
    # an I/O node's storage-side link
    case $n in ion*)
      bits=0; [ "$(srate_of "$n")" = none ] || bits=$(rate_bits "$(srate_of "$n")")
      echo "link $n/storage $bits ${from[q-$n]:-0} ${to[q-$n]:-0}" ;;
    esac
    read -r ns <"$STATE/$n.ns" && nss+=("$ns")
  done
  echo "time links $t"
  # fields 14 and 15 of stat, counted after the command name's parenthesis
  t=$EPOCHREALTIME
  ns_pids "${nss[@]}" | awk '{ f = "/proc/" $1 "/stat"; if ((getline l < f) > 0) {
      sub(/.*\) /, "", l); split(l, x, " "); print "cpu", $1, x[12] + x[13] } close(f) }'
  echo "time cpu $t $EPOCHREALTIME"
}

need_up() { alive "$1" || { say "skipped: $1 is not up (scripts/cluster.sh up)"; exit $SKIP; }; }

exec_in() {
  local n=${1:?usage: cluster.sh exec NODE CMD...}
  shift
  need_up "$n"
  exec nsenter -t "$(pid_of "$n")" -n -u -m -i --wd="$PWD" -- "$@"
}

# MPI from node1. The settings go in through the environment, so that an
# option on the command line overrides them: Open MPI takes its MCA
# parameters from OMPI_MCA_*, hydra its launcher and hosts from HYDRA_*. How
# to reach the nodes is forced (a test environment may say HYDRA_LAUNCHER=fork
# for one host); the transports are defaults the caller's environment may change.
mpirun() {
  local flavor=${1:-} via="" role=compute
  shift
  if [ "${1:-}" = --hosts ]; then role=${2:?cluster.sh mpirun FLAVOR --hosts compute|io|all ...}; shift 2; fi
  case $role in compute|io|all) ;; *) echo "cluster.sh mpirun: --hosts compute, io or all" >&2; exit 2 ;; esac
  if [ "${1:-}" = --via ]; then via=${2:?cluster.sh mpirun FLAVOR --via LAUNCHER ...}; shift 2; fi
  need_up node1
  case $flavor in
    openmpi)
      # rsh launch through nsenter; TCP between nodes on the cluster's subnet
      # (ob1: UCX's pml does not run over these veths); ranks sharing a core
      # yield, or each message waits for a time slice (14 ms, not 0.2 ms)
      [ -f "$STATE/hostfile.$role.openmpi" ] || hostfiles
      export OMPI_MCA_plm_rsh_agent=$AGENT OMPI_MCA_orte_default_hostfile=$STATE/hostfile.$role.openmpi \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-tcp,self,vader} \
        OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$NET.0/24} \
        OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-$NET.0/24} \
        OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
      [ -n "$via" ] && { export FERRY_MPIEXEC=mpiexec.openmpi; exec_in node1 "$via" "$@"; }
      exec_in node1 mpiexec.openmpi "$@" ;;
    mpich)
      # MPICH 5.0.2's hydra and library (scripts/mpich-runtime.sh): Debian's
      # 4.0.2 hangs in MPI_Finalize across nodes (docs/cluster.md). The
      # same binaries run on it; the library reaches every rank through
      # LD_LIBRARY_PATH, forwarded like the netmod (ofi over TCP).
      [ -f "$STATE/hostfile.$role.hydra" ] || hostfiles
      export HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=$AGENT HYDRA_HOST_FILE=$STATE/hostfile.$role.hydra HYDRA_IFACE=eth0
      local mpiexec=mpiexec.mpich
      if mpich_rt_present; then
        mpiexec=$MPICH_RT_MPIEXEC
        export LD_LIBRARY_PATH=$MPICH_RT_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        # the device's shared-memory collectives spin while a node's ranks
        # wait for a core: an allreduce or barrier of 8 ranks took 20-27 ms,
        # MPICH's generic algorithms 0.2-0.3 ms (docs/cluster.md), as a
        # rank with a core of its own would see
        export MPIR_CVAR_CH4_NETMOD=${MPIR_CVAR_CH4_NETMOD:-ofi} FI_PROVIDER=${FI_PROVIDER:-tcp} \
          MPIR_CVAR_DEVICE_COLLECTIVES=${MPIR_CVAR_DEVICE_COLLECTIVES:-none}
        set -- -genv LD_LIBRARY_PATH "$LD_LIBRARY_PATH" -genv MPIR_CVAR_CH4_NETMOD "$MPIR_CVAR_CH4_NETMOD" \
          -genv FI_PROVIDER "$FI_PROVIDER" -genv MPIR_CVAR_DEVICE_COLLECTIVES "$MPIR_CVAR_DEVICE_COLLECTIVES" "$@"
      else
        say "MPICH $MPICH_RT_VERSION is not at $MPICH_RT (scripts/deps.sh installs it): Debian's MPICH, which can hang in MPI_Finalize across nodes"
      fi
      export UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0} UCX_TLS=${UCX_TLS:-tcp,self}
      [ -n "$via" ] && { export FERRY_MPIEXEC=$mpiexec; exec_in node1 "$via" "$@"; }
      exec_in node1 "$mpiexec" "$@" ;;
    *) echo "usage: cluster.sh mpirun openmpi|mpich [launcher args] PROG [ARGS...]" >&2; exit 2 ;;
  esac
}

cmd=${1:-status}
shift
while [ "$cmd" = up ] && [ $# -gt 0 ]; do
  case $1 in
    --nodes) FERRY_CLUSTER_NODES=$2 ;;
    --storage) FERRY_CLUSTER_STORAGE=$2 ;;
    --slots) FERRY_CLUSTER_SLOTS=$2 ;;
    --rate) FERRY_CLUSTER_RATE=$2 ;;
    --storage-rate) FERRY_CLUSTER_STORAGE_RATE=$2 ;;
    --io-nodes) FERRY_CLUSTER_IO_NODES=$2 ;;
    --io-rate) FERRY_CLUSTER_IO_RATE=$2 ;;
    --io-storage-rate) FERRY_CLUSTER_IO_STORAGE_RATE=$2 ;;
    --io-slots) FERRY_CLUSTER_IO_SLOTS=$2 ;;
    *) echo "cluster.sh up: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
load_config
case $cmd in
  up) up ;;
  down) down ;;
  status) status ;;
  env) env_out ;;
  exec) exec_in "$@" ;;
  hosts) hosts_out "$@" ;;
  machine) machine_out ;;
  mpirun) mpirun "$@" ;;
  counters) counters ;;
  link) link_cmd "$@" ;;
  rate) rate_cmd "$@" ;;
  brick) brick_cmd "$@" ;;
  small) small_cmd "$@" ;;
  pids) pids_cmd "$@" ;;
  shards) shards_cmd "$@" ;;
  *) echo "usage: $0 up [--nodes N --storage M --slots S --rate R --storage-rate R --io-nodes M --io-rate R --io-storage-rate R --io-slots S]|down|status|env|exec NODE CMD...|hosts ROLE [FLAVOR]|machine|counters|link NODE down|up|rate NODE RATE|brick VOLUME bN|PATH down|up|stop|cont|small up SIZE|down|pids NODE NAME|shards VOLUME|mpirun openmpi|mpich ARGS..." >&2; exit 2 ;;
esac
