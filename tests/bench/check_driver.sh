#!/usr/bin/env bash
# check_driver.sh PYTHON OUTDIR PLOTS(0|1) -- CMD...: runs the
# comparison driver on a tiny problem and checks what it must produce: the
# table with the limit, a native MPI-IO, ROMIO with collective buffering
# forced on and off, and every ferry strategy with ratios (xlike: each
# strategy against its like-for-like native), results.json with the summary
# and the hints the forced ROMIOs got, and (when matplotlib is there) the
# plots.
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
for m in cb nocb; do
  grep -Eq " romio(321)?-$m " "$out/table.txt" || { echo "check_driver: no ROMIO-$m row in the table"; fail=1; }
done
[ "$(grep -c '^experiment .* xlike .* xlike ' "$out/table.txt")" -ge 1 ] \
  || { echo "check_driver: no xlike columns in table.txt"; fail=1; }
grep -q '| ×like | read | ×limit | ×native | ×like |' "$out/table.md" \
  || { echo "check_driver: no ×like columns in table.md"; fail=1; }
"$py" - "$out/results.json" <<'PY' || fail=1
import json, re, sys
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

# like for like: which ROMIO each strategy is measured against
mode = lambda c: (re.fullmatch(r"romio(321)?-(cb|nocb)", c) or [None] * 3)[2]
want = {"ferry-twophase": {"cb"}, "ferry-local": {"cb"}, "ferry-independent": {"nocb"},
        "ferry-auto": {"cb", "nocb"}}
cell = lambda x: (x["build"], x["fs"], x["exp"])
for row in rows:
    for op in ("write", "read"):
        m = row[op]
        if row["config"] not in want:
            assert m["x_like"] is None and m["like"] is None, ("xlike on", row["config"], op)
            continue
        likes = [x for x in rows if cell(x) == cell(row) and mode(x["config"]) in want[row["config"]]]
        assert len(likes) == len(want[row["config"]]), ("like natives missing", row["config"], cell(row))
        best = max(likes, key=lambda x: x[op]["median"])
        assert m["like"] == best["config"], (row["config"], op, m["like"], best["config"])
        assert abs(m["x_like"] - m["median"] / best[op]["median"]) < 1e-9, (row["config"], op)
for b in {x["build"] for x in rows}:
    assert {mode(x["config"]) for x in rows if x["build"] == b} >= {"cb", "nocb"}, ("like natives", b)

# the forced ROMIOs got ferry-twophase's aggregators and buffer, through ROMIO_HINTS
like = {(x["build"], x["fs"]): x for x in r["like"]}
assert like, "no like-for-like settings in results.json"
for run in r["runs"]:
    key = (run["build"], run["fs"])
    x = like[key]
    assert x["source"].startswith("ferry-twophase's"), x["source"]
    m = mode(run["config"])
    path = re.search(r"ROMIO_HINTS[= ](\S+)", run["command"])
    assert bool(path) == bool(m), ("ROMIO_HINTS", run["config"], run["command"])
    if m:
        text = open(path.group(1)).read()
        assert text == x["romio_hints"][m], (run["config"], text, x["romio_hints"][m])
        want_lines = ({"romio_cb_write enable", "romio_cb_read enable", f"cb_nodes {x['cb_nodes']}",
                       f"cb_buffer_size {x['cb_buffer_size']}"} if m == "cb"
                      else {"romio_cb_write disable", "romio_cb_read disable"})
        assert want_lines <= set(text.splitlines()), (run["config"], text)
    if run["config"] == "ferry-twophase":
        for rec in run["records"]:
            h = rec["ferry_stats"]["write"]["hints"]
            assert h["cb_buffer_size"] == x["cb_buffer_size"], (h, x)
            assert rec["ferry_stats"]["write"]["counters"]["aggregators"] <= x["cb_nodes"], (rec["label"], x)
PY
if [ "$plots" = 1 ]; then
  for kind in bandwidth phases ferry_timers ior_xfer; do
    ls "$out"/${kind}_*.png >/dev/null 2>&1 || { echo "check_driver: no $kind plot"; fail=1; }
  done
fi
[ $fail = 0 ] && echo "check_driver: table, results.json and plots are complete"
exit $fail
