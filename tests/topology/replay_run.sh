#!/usr/bin/env bash
# A real run replayed: t_uneven (an uneven HACC-like writer) runs through
# ferry with FERRY_TRACE and FERRY_STATS_JSON, and ferry-topo must read back
# exactly what the program says it wrote: replay of the trace and of the
# record, and simulate's trace: and record: writers on a machine with as
# many ranks as the run (so the run is laid over it one to one).
# usage: replay_run.sh MPIEXEC "EXTRA" NP LIBFERRY T_UNEVEN FERRY_TOPO OUTDIR FLAVOR
set -u
mpiexec=$1 extra=$2 np=$3 lib=$4 prog=$5 topo=$6 out=$7 flavor=$8
mkdir -p "$out"
trace=$out/trace.json stats=$out/stats.json
rm -f "$trace" "$stats" "$out/data"
if [ "$flavor" = mpich ]; then pre=(-genv LD_PRELOAD "$lib"); else pre=(-x "LD_PRELOAD=$lib"); fi
# shellcheck disable=SC2086
said=$(FERRY_TRACE=$trace FERRY_STATS_JSON=$stats FERRY_RANKS_PER_NODE=1 \
  "$mpiexec" $extra -n "$np" "${pre[@]}" "$prog" "$out/data" 300) || { echo "replay_run: the run failed: $said"; exit 1; }
echo "$said"
bytes=$(sed -n 's/.* wrote \([0-9]*\) bytes in \([0-9]*\) calls.*/\1/p' <<<"$said")
calls=$(sed -n 's/.* wrote \([0-9]*\) bytes in \([0-9]*\) calls.*/\2/p' <<<"$said")
[ -n "$bytes" ] && [ -n "$calls" ] || { echo "replay_run: no byte count from t_uneven"; exit 1; }
fail=0
field() { sed -n "s/.*\"$1\":\([0-9.e+]*\).*/\1/p" | head -1; }
same() { # name got want
  if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 == b + 0) }'; then echo "replay_run: $1 $2 ok"
  else echo "replay_run: $1 is $2, the run wrote $3"; fail=1; fi
}
for f in "$trace" "$stats"; do
  j=$("$topo" replay "$f" --machine "flat:$np" --ppn 1 --json) || { echo "replay_run: replay $f failed"; fail=1; continue; }
  same "replay $(basename "$f") total_bytes" "$(field total_bytes <<<"$j")" "$bytes"
done
# the trace's write calls are the program's (ferry writes each call once)
j=$("$topo" replay "$trace" --machine "flat:$np,gw=1" --ppn 1 --json)
same "replay trace requests" "$(field max_gateway_msgs <<<"$j")" "$calls"
for w in "trace:$trace" "record:$stats"; do
  j=$("$topo" simulate --machine "flat:$np" --ppn 1 --bytes-per-rank "$w" --assign default --json) ||
    { echo "replay_run: simulate $w failed"; fail=1; continue; }
  same "simulate ${w%%:*} total_bytes" "$(field total_bytes <<<"$j")" "$bytes"
done
[ $fail = 0 ] && echo "replay_run: passed"
exit $fail
