#!/usr/bin/env bash
# Runner for reliability tests that need more than mpiexec:
#
#   rrun.sh [--tmpfs SIZE DIR] [--die-within SECS] [--limit SECS] -- CMD ARGS...
#
#   --tmpfs SIZE DIR   mount a tmpfs of SIZE on DIR for the run (R_SMALLFS=DIR);
#                      exits 77 (skipped) when mounting is impossible (not root)
#   --die-within SECS  CMD must fail (a rank dies), and the launcher must end
#                      the job within SECS; a job still running is a hang
#   --limit SECS       hard time limit for CMD (default 600)
set -u
tmpfs_size="" tmpfs_dir="" die_within="" limit=600
while [ $# -gt 0 ]; do
  case "$1" in
    --tmpfs) tmpfs_size=$2; tmpfs_dir=$3; shift 3 ;;
    --die-within) die_within=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "rrun: unknown option $1" >&2; exit 2 ;;
  esac
done

cleanup() { :; }
if [ -n "$tmpfs_size" ]; then
  mkdir -p "$tmpfs_dir"
  mountpoint -q "$tmpfs_dir" && umount "$tmpfs_dir" 2>/dev/null
  if ! mount -t tmpfs -o "size=$tmpfs_size" tmpfs "$tmpfs_dir" 2>/dev/null; then
    echo "rrun: skipped: cannot mount a $tmpfs_size tmpfs on $tmpfs_dir (needs root)"
    exit 77
  fi
  cleanup() { umount "$tmpfs_dir" 2>/dev/null; rmdir "$tmpfs_dir" 2>/dev/null; }
  export R_SMALLFS=$tmpfs_dir
fi
trap cleanup EXIT

start=$(date +%s)
timeout --kill-after=10 "$limit" "$@"
rc=$?
elapsed=$(( $(date +%s) - start ))

if [ -n "$die_within" ]; then
  if [ "$elapsed" -ge "$limit" ]; then
    echo "rrun: HANG: the job was still running after ${limit}s (a rank died; the others must not wait forever)"
    exit 1
  fi
  if [ $rc -eq 0 ]; then
    echo "rrun: the job exited 0 although a rank died"
    exit 1
  fi
  if [ "$elapsed" -gt "$die_within" ]; then
    echo "rrun: the job took ${elapsed}s to end after a rank died (limit ${die_within}s)"
    exit 1
  fi
  echo "rrun: job ended by the launcher after a rank died: exit $rc after ${elapsed}s"
  exit 0
fi
if [ "$elapsed" -ge "$limit" ]; then
  echo "rrun: HANG: still running after ${limit}s"
fi
exit $rc
