#!/usr/bin/env bash
# openclose_calls.sh CREATE(0|1) FILE -- LAUNCH...: the MPI calls ferry
# makes per open+close pair, counted by bench/mpicount.c loaded after
# libferry (LAUNCH ends with ferry-bench and preloads both). Runs of 21 and
# 1 pairs differ by 20 pairs. On every rank counted, opening an existing
# file costs one Allreduce and closing it one; a create adds one Allreduce
# and one Bcast (rank 0 creates, then tells the others). Nothing else: no
# duplicated or freed communicator, no window, no lock.
set -u
create=$1 file=$2
shift 3
flag=()
[ "$create" = 1 ] && flag=(--create)
count() { # pairs -> "rank key value" lines
  "$@" open -n "$pairs" "${flag[@]}" -o "$file" 2>&1 >/dev/null |
    sed -n 's/^rank \([0-9]*\): *\(.*\)/\1 \2/p' |
    awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); print $1, kv[1], kv[2] } }'
}
pairs=1 count "$@" >"$file.one" || true
pairs=21 count "$@" >"$file.many" || true
want_allreduce=$((create ? 3 : 2)) want_bcast=$((create ? 1 : 0))
awk -v ar="$want_allreduce" -v bc="$want_bcast" '
  FNR == NR { one[$1, $2] = $3; next }
  { seen[$1] = 1; per[$1, $2] = ($3 - one[$1, $2]) / 20 }
  END {
    n = 0; bad = 0
    for (r in seen) {
      n++
      for (k in per) {
        split(k, rk, SUBSEP); if (rk[1] != r) continue
        want = rk[2] == "Allreduce" ? ar : rk[2] == "Bcast" ? bc : 0
        if (per[k] != want) { printf "openclose_calls: rank %s: %s %.2f per pair, want %d\n", r, rk[2], per[k], want; bad = 1 }
      }
      if (per[r, "Allreduce"] == "") { printf "openclose_calls: rank %s made no Allreduce\n", r; bad = 1 }
    }
    if (n < 2) { print "openclose_calls: fewer than 2 ranks counted"; bad = 1 }
    if (!bad) printf "openclose_calls: passed (%d ranks: %d Allreduce, %d Bcast per pair)\n", n, ar, bc
    exit bad
  }' "$file.one" "$file.many"
rc=$?
rm -f "$file" "$file.one" "$file.many"
exit $rc
