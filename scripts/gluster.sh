# The GlusterFS jobs that scripts/pfs.sh (volumes on this host) and
# scripts/cluster.sh (volumes served from a storage node of the emulated
# cluster, mounted in each compute node) share. Sourced, not run.
#
# Every command runs through the array GL_IN: empty on the host, an `nsenter`
# prefix when the glusterd or the mount in question lives in a node's
# namespaces. Functions return a status and print nothing; callers say why.

GL_IN=()

# gl_why_not: prints why GlusterFS cannot serve and mount here (and
# returns 0), or returns 1 when it can
gl_why_not() {
  if [ "$(id -u)" -ne 0 ]; then echo "needs root to run glusterd and mount (uid $(id -u))"
  elif ! command -v glusterd >/dev/null || ! command -v gluster >/dev/null || ! command -v glusterfs >/dev/null; then
    echo "GlusterFS is not installed (scripts/deps.sh installs glusterfs-server glusterfs-client)"
  elif [ ! -c /dev/fuse ]; then echo "no /dev/fuse on this machine, so no FUSE mount"
  else return 1; fi
}

# Daemons started from a script inherit its open descriptors, and with them
# any flock(1) lock its caller holds (forever, for glusterd and the FUSE
# clients): scripts that start them first close what they inherited.
gl_close_inherited_fds() {
  local fd
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    # (255: bash's own descriptor of the script it reads)
    [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ] && eval "exec $fd>&-" 2>/dev/null
  done
  return 0
}

gl() { "${GL_IN[@]}" timeout 60 gluster --mode=script "$@"; }
gl_up() { gl volume list >/dev/null 2>&1; }
gl_vol_exists() { gl volume info "$1" >/dev/null 2>&1; }
gl_vol_started() { gl volume info "$1" 2>/dev/null | grep -q '^Status: Started'; }

# gl_create_vol NAME sharded|plain BRICK...: a volume distributed over the
# bricks (HOST:/dir each); `sharded` cuts files into 4 MB shards, the way
# Lustre stripes them over OSTs. The brick directories must exist.
gl_create_vol() {
  local v=$1 kind=$2
  shift 2
  gl volume create "$v" "$@" force >/dev/null || return 1
  if [ "$kind" = sharded ]; then
    gl volume set "$v" features.shard on >/dev/null || return 1
    gl volume set "$v" features.shard-block-size 4MB >/dev/null || return 1
  fi
}

gl_listed() { "${GL_IN[@]}" awk -v d="$1" '$2==d && $3=="fuse.glusterfs"{f=1} END{exit !f}' /proc/self/mounts; }
# A mount whose client process died (a reboot of the services, a killed
# glusterfs) stays listed but answers ENOTCONN: it counts as not mounted.
gl_mounted() { gl_listed "$1" && "${GL_IN[@]}" timeout 20 stat -f "$1" >/dev/null 2>&1; }
# before mounting again, such a dead entry is cleared
gl_clear_dead() { if gl_listed "$1" && ! gl_mounted "$1"; then "${GL_IN[@]}" umount -l "$1" 2>/dev/null; fi; return 0; }

# gl_connected DIR: the client of the mount at DIR is connected to every
# brick (its .meta view says so per protocol/client; without one, assume it).
# A mount answers as soon as the client starts, while a brick that is still
# starting, or slow to sign in on a loaded host, is not connected yet: a
# mkdir whose name hashes to it then fails with EIO.
gl_connected() {
  "${GL_IN[@]}" sh -c 'for c in "$1"/.meta/graphs/active/*-client-*; do
      [ -d "$c" ] || exit 0; grep -qx "connected = 1" "$c/private" || exit 1; done' sh "$1" 2>/dev/null
}

# gl_mount SERVER VOLUME DIR [mount options]: mounted, with every brick
# connected and a directory made and removed, when it returns 0 (glusterd
# may still be starting the bricks: a few tries, then up to 60 s for the
# bricks and 30 s for the directory)
gl_mount() {
  local server=$1 v=$2 d=$3 opts=${4:-} i
  gl_clear_dead "$d"
  "${GL_IN[@]}" mkdir -p "$d"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    "${GL_IN[@]}" mount -t glusterfs ${opts:+-o "$opts"} "$server:/$v" "$d" 2>/dev/null && gl_mounted "$d" && break
    sleep 0.5
  done
  gl_mounted "$d" || return 1
  for ((i = 0; i < 120; i++)); do gl_connected "$d" && break; sleep 0.5; done
  gl_connected "$d" && gl_ready "$d"
}

# A client mounts as soon as one brick answers, but a directory operation
# needs every brick of a distributed volume and fails with EIO until the
# rest are connected (CI saw mkdir fail that way right after `up`): a mount
# counts once it can make and remove a directory.
gl_ready() {
  local probe
  probe="$1/.ferry-ready.$("${GL_IN[@]}" hostname).$$"
  for _ in $(seq 1 60); do
    if "${GL_IN[@]}" mkdir "$probe" 2>/dev/null; then "${GL_IN[@]}" rmdir "$probe"; return 0; fi
    sleep 0.5
  done
  return 1
}

gl_umount() { if gl_listed "$1"; then "${GL_IN[@]}" umount "$1" 2>/dev/null || "${GL_IN[@]}" umount -l "$1"; fi; }
