"""The like-for-like natives of bench/compare.py reach ROMIO as meant, on a
real build: ferry-twophase's hints display gives the cb_nodes and
cb_buffer_size (2 virtual nodes here, so 2 aggregators), and ROMIO itself
(ROMIO_PRINT_HINTS at each open) reports, under the launch compare.py makes
for each configuration: NATIVE-cb with collective buffering enabled for
writes and reads, those cb_nodes (as many ranks in its aggregator list) and
that buffer; NATIVE-nocb with it disabled; plain ROMIO with neither forced.

usage: check_like_romio.py BUILD_DIR RANKS OUT_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import compare  # noqa: E402

build, ranks, out = sys.argv[1], int(sys.argv[2]), os.path.abspath(sys.argv[3])
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
fail = []


def check(cond, what):
    if not cond:
        fail.append(what)
        print(f"check_like_romio: {what}")


def romio_says(lines):
    """The hints of ROMIO's first display: "key = cb_nodes   value = 2"."""
    got = {}
    for line in lines:
        f = line.split()
        if len(f) >= 5 and f[0] == "key" and f[3] == "value":
            if f[2] in got:
                break
            got[f[2]] = " ".join(f[5:]) if f[4] == "=" else " ".join(f[4:])
    return got


b = compare.Build(build, {"openmpi": ranks, "mpich": ranks})
env = compare.run_env()
rpn = max(1, ranks // 2)  # 2 virtual nodes: ferry takes one aggregator on each
work = tempfile.mkdtemp(prefix="like.", dir="/dev/shm")
try:
    x = compare.like_settings(b, out, work, rpn, 0, 0, 1, env, 300)
    check(x["source"].startswith("ferry-twophase's"), f"cb_nodes not from ferry's display: {x['source']}")
    check(x["cb_nodes"] == ranks // rpn, f"ferry-twophase takes {x['cb_nodes']} aggregators, want {ranks // rpn}")
    check(x["cb_buffer_size"] == 16 * compare.MiB, f"ferry's buffer {x['cb_buffer_size']}, want its default 16 MiB")
    seen = set()
    for cfg in b.configs():
        if cfg[1] != "native" or not cfg[0].startswith("romio"):
            continue
        cmd = b.command(cfg, [], work, 0, romio_hints=x["files"])
        at = cmd.index(b.bench)
        cmd[at:at] = ["-x", "ROMIO_PRINT_HINTS=1"] if b.flavor == "openmpi" else ["-genv", "ROMIO_PRINT_HINTS", "1"]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        recs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        check(r.returncode == 0 and len(recs) == 1 and recs[0]["verify"]["ok"],
              f"{cfg[0]}: status {r.returncode}, {len(recs)} records: {r.stderr[-400:]}")
        h = romio_says(r.stdout.splitlines())
        mode = compare.like_mode(cfg[0])
        seen.add(mode)
        print(f"check_like_romio: {cfg[0]}: ROMIO reports " + ", ".join(
            f"{k} {h.get(k)}" for k in ("romio_cb_write", "romio_cb_read", "cb_nodes", "cb_buffer_size",
                                        "romio_aggregator_list")))
        want = {"cb": "enable", "nocb": "disable", None: "automatic"}[mode]
        for k in ("romio_cb_write", "romio_cb_read"):
            check(h.get(k) == want, f"{cfg[0]}: ROMIO's {k} is {h.get(k)}, want {want}")
        if mode == "cb":
            check(h.get("cb_nodes") == str(x["cb_nodes"]), f"{cfg[0]}: ROMIO's cb_nodes {h.get('cb_nodes')}")
            check(h.get("cb_buffer_size") == str(x["cb_buffer_size"]),
                  f"{cfg[0]}: ROMIO's cb_buffer_size {h.get('cb_buffer_size')}")
            if "romio_aggregator_list" in h:
                check(len(h["romio_aggregator_list"].split()) == x["cb_nodes"],
                      f"{cfg[0]}: ROMIO's aggregators {h['romio_aggregator_list']}")
    check(seen == {None, "cb", "nocb"}, f"ROMIO configurations checked: {seen}")
finally:
    shutil.rmtree(work, ignore_errors=True)
if fail:
    sys.exit(1)
print("check_like_romio: passed")
