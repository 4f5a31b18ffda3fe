#!/usr/bin/env bash
# from_range.sh TUNE OUTDIR: ferry-tune --from refuses a record whose numbers
# are out of range, naming the field, instead of launching a proxy that never
# finishes (a record claiming 100000000 ranks was accepted and then timed out).
set -u
tune=$1 out=$2
mkdir -p "$out"
rec=$out/tune_from_range.json
fail() { echo "tune_from_range: $*" >&2; exit 1; }
line() { # ranks bytes_written
  printf '{"schema":1,"file":"/x/f","ranks":%s,"nodes":1,"counters":{"ind_reads":0,"ind_writes":64,"coll_reads":0,"coll_writes":0,"bytes_read":0,"bytes_written":%s,"write_gaps":0,"write_gap_bytes":0,"read_gaps":0,"read_gap_bytes":0},"strategies":{"ind_write":{"strategy":"direct","reason":"","calls":64,"rank":0}},"hints":{},"time":1}\n' "$1" "$2"
}
for bad in "100000000 4194304:\"ranks\" must be a whole number from 1 to 1000000" \
           "-3 4194304:\"ranks\" must be" "2.5 4194304:\"ranks\" must be" \
           "4 -1:\"counters.bytes_written\" must be" "4 1e30:\"counters.bytes_written\" must be"; do
  args=${bad%%:*} want=${bad#*:}
  line $args >"$rec"
  msg=$(timeout 20 "$tune" --from "$rec" --print-proxy 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || fail "record ($args): exit $rc, wanted 2: $msg"
  case $msg in *"$want"*) ;; *) fail "record ($args): message '$msg' lacks '$want'" ;; esac
done
line 4 4194304 >"$rec"
timeout 20 "$tune" --from "$rec" --print-proxy | grep -q "4 ranks" || fail "a valid record was refused"
rm -f "$rec"
echo "tune_from_range: ok"
