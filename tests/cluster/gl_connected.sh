#!/usr/bin/env bash
# scripts/gluster.sh's gl_connected on made-up .meta trees (no GlusterFS
# needed): a mount counts as whole only when every protocol/client of its
# graph says `connected = 1`; one brick not yet reached makes it wait (a
# mkdir hashing to that brick would fail); a client without .meta counts as
# connected.
set -u
. "$(dirname "$0")/../../scripts/gluster.sh"
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
fail=0
check() { # want description
  local rc=0; gl_connected "$d/m" || rc=1
  if [ "$rc" = "$1" ]; then echo "ok: $2"; else echo "FAILED: $2 (gl_connected returned $rc)"; fail=1; fi
}
mkdir -p "$d/m"
check 0 "no .meta: assumed connected"
for i in 0 1 2 3; do
  mkdir -p "$d/m/.meta/graphs/active/v-client-$i"
  printf 'fd.0.remote_fd = 0\nconnected = 1\ntotal_bytes_read = 1\n' >"$d/m/.meta/graphs/active/v-client-$i/private"
done
mkdir -p "$d/m/.meta/graphs/active/v-dht"; echo "connected = 0" >"$d/m/.meta/graphs/active/v-dht/private"
check 0 "4 of 4 bricks connected (other translators' lines do not count)"
sed -i 's/^connected = 1$/connected = 0/' "$d/m/.meta/graphs/active/v-client-2/private"
check 1 "brick 2 of 4 not connected"
echo "connected = 1" >"$d/m/.meta/graphs/active/v-client-2/private"
rm "$d/m/.meta/graphs/active/v-client-3/private"
check 1 "brick 3's state unreadable"
exit $fail
