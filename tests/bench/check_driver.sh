#!/usr/bin/env bash
# check_driver.sh PYTHON OUTDIR PLOTS(0|1) -- CMD...: runs the
# comparison driver on a tiny problem and checks what it must produce: the
# table with the limit, a native MPI-IO and every ferry strategy with ratios,
# results.json with the summary, and (when matplotlib is there) the plots.
set -u
py=$1 out=$2 plots=$3
shift 4
rm -rf "$out"
"$@" --out "$out" || { echo "check_driver: compare.py failed"; exit 1; }
fail=0
for f in results.json table.txt table.md; do
  [ -s "$out/$f" ] || { echo "check_driver: $out/$f missing"; fail=1; }
done
for cfg in fpp-posix ferry-independent ferry-twophase ferry-local ferry-auto; do
  grep -q " $cfg " "$out/table.txt" || { echo "check_driver: no $cfg row in the table"; fail=1; }
done
grep -Eq ' (ompio|romio321|romio) ' "$out/table.txt" || { echo "check_driver: no native MPI-IO row"; fail=1; }
"$py" - "$out/results.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["summary"]
assert rows, "empty summary"
for row in rows:
    for op in ("write", "read"):
        m = row[op]
        assert m["min"] <= m["median"] <= m["max"] and m["median"] > 0, (row["config"], op, m)
        if row["kind"] != "limit":
            assert m["x_limit"] is not None and m["x_native"] is not None, (row["config"], op)
ferry = [x for x in rows if x["kind"] == "ferry"]
assert ferry and all(x["ferry_choice"] for x in ferry), "ferry rows without ferry's statistics record"
assert all(x["n"] >= 3 for x in rows), "fewer than 3 rounds"
PY
if [ "$plots" = 1 ]; then
  for kind in bandwidth phases ferry_timers ior_xfer; do
    ls "$out"/${kind}_*.png >/dev/null 2>&1 || { echo "check_driver: no $kind plot"; fail=1; }
  done
fi
[ $fail = 0 ] && echo "check_driver: table, results.json and plots are complete"
exit $fail
