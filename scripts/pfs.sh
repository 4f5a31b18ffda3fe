#!/usr/bin/env bash
# The GlusterFS testbed: a sharded volume (4 bricks, 4 MB shards, the way
# Lustre stripes over OSTs) and a plain distribute volume, on brick
# directories of this machine, mounted through FUSE over loopback.
#
#   scripts/pfs.sh up       start what is not running, create/start/mount what is missing
#   scripts/pfs.sh down     undo only what `up` did (glusterd only if `up` started it)
#   scripts/pfs.sh status   one line per volume; exit 0 when both are mounted
#   scripts/pfs.sh env      FERRY_PFS_SHARD=... FERRY_PFS_DIST=... (for eval)
#
# FERRY_PFS_ROOT (bricks and state, /var/lib/ferry-pfs), FERRY_PFS_MNT
# (/mnt/ferry-pfs) and FERRY_PFS_NAME (volume prefix, ferry) move it.
# Exit status 77 means "cannot run here" (no FUSE, no GlusterFS, not root):
# callers skip, never fail. The reason is printed in one line.
# Client translators keep GlusterFS's defaults (write-behind, io-cache,
# read-ahead, quick-read, stat-prefetch, open-behind on): the testbed behaves
# like the volumes users get.
set -uo pipefail

SKIP=77
ROOT=${FERRY_PFS_ROOT:-/var/lib/ferry-pfs}
MNT=${FERRY_PFS_MNT:-/mnt/ferry-pfs}
STATE=$ROOT/state
HOST=$(hostname)
P=${FERRY_PFS_NAME:-ferry}   # volume-name prefix (a second testbed beside the first)
VOLS=("$P-shard" "$P-dist")

say() { echo "pfs: $*"; }
# shellcheck source=scripts/gluster.sh
. "$(dirname "$0")/gluster.sh"
mnt_of() { echo "$MNT/${1#"$P"-}"; }

can_run() { local why; why=$(gl_why_not) || return 0; say "skipped: $why"; return 1; }

start_glusterd() {
  gl_up && return 0
  mkdir -p "$STATE"
  glusterd --pid-file="$STATE/glusterd.pid" || { say "skipped: glusterd did not start"; return 1; }
  echo started >"$STATE/glusterd.ours"
  for _ in $(seq 1 100); do gl_up && return 0; sleep 0.1; done
  say "skipped: glusterd started but does not answer"; return 1
}

create_vol() {
  local v=$1 bricks=() kind=plain
  for i in 1 2 3 4; do mkdir -p "$ROOT/bricks/$v/b$i"; bricks+=("$HOST:$ROOT/bricks/$v/b$i"); done
  [ "$v" = "$P-shard" ] && kind=sharded
  gl_create_vol "$v" $kind "${bricks[@]}" || return 1
  echo created >"$STATE/$v.created"
}

up() {
  can_run || exit $SKIP
  gl_close_inherited_fds
  mkdir -p "$STATE"
  start_glusterd || exit $SKIP
  for v in "${VOLS[@]}"; do
    local d; d=$(mnt_of "$v")
    if ! gl_vol_exists "$v"; then create_vol "$v" || { say "cannot create volume $v"; exit 1; }; fi
    if ! gl_vol_started "$v"; then
      gl volume start "$v" >/dev/null || { say "cannot start volume $v"; exit 1; }
      echo started >"$STATE/$v.started"
    fi
    if ! gl_mounted "$d"; then
      gl_mount "$HOST" "$v" "$d" || { say "cannot mount $v on $d"; exit 1; }
      echo mounted >"$STATE/$v.mounted"
    fi
  done
  status
}

down() {
  [ -d "$STATE" ] || { say "nothing started by pfs.sh"; return 0; }
  for v in "${VOLS[@]}"; do
    local d; d=$(mnt_of "$v")
    if [ -f "$STATE/$v.mounted" ]; then
      gl_umount "$d"
      rm -f "$STATE/$v.mounted"
      rmdir "$d" 2>/dev/null
    fi
    if [ -f "$STATE/$v.started" ]; then gl volume stop "$v" force >/dev/null 2>&1; rm -f "$STATE/$v.started"; fi
    if [ -f "$STATE/$v.created" ]; then
      gl volume delete "$v" >/dev/null 2>&1; rm -f "$STATE/$v.created"; rm -rf "${ROOT:?}/bricks/$v"
    fi
  done
  rmdir "$MNT" 2>/dev/null
  # glusterd stays while a testbed of another FERRY_PFS_NAME still uses it
  if [ -f "$STATE/glusterd.ours" ] && ! ls "$STATE"/*.started >/dev/null 2>&1; then
    local pid; pid=$(cat "$STATE/glusterd.pid" 2>/dev/null)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -f "$STATE/glusterd.ours"
  fi
  say "down"
}

status() {
  local rc=0
  for v in "${VOLS[@]}"; do
    local d; d=$(mnt_of "$v")
    if gl_mounted "$d"; then say "$v mounted on $d"; else say "$v not mounted ($d)"; rc=1; fi
  done
  return $rc
}

env_out() {
  echo "FERRY_PFS_SHARD=$(mnt_of "$P-shard")"
  echo "FERRY_PFS_DIST=$(mnt_of "$P-dist")"
}

case "${1:-status}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) env_out ;;
  *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
