#!/usr/bin/env bash
# Regenerates the simulated tables of docs/topology-results.md: `ferry-topo
# simulate ... --json` on BG/Q 512 to 4096 nodes, 16 ranks per node, for
# balanced writers (1 MiB per rank), uneven ones (25 % of the nodes,
# contiguous in rank order, writing 4x) and a replayed run (TRACE=FILE, a
# FERRY_TRACE of tests/topology/t_uneven), under network-only costs and
# file-system costs (--fs); then the goals and the sweep of the default's
# imbalance. Rendered as markdown by the Python below (reports only).
# usage: TRACE=trace.json tools/topo/simulate_results.sh [path/to/ferry-topo] > tables.md
set -euo pipefail
B=${1:-build/openmpi/bin/ferry-topo}
SIZES=${SIZES:-"512 1024 2048 4096"}
FS_SIZES=${FS_SIZES:-"512 4096"}
SWEEP_NODES=${SWEEP_NODES:-4096}
SWEEP_K=${SWEEP_K:-"1 1.25 1.5 2 3 4 6 9"}
TRACE=${TRACE:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cases=("balanced|1MiB" "uneven|1MiB:25%x4")
[ -n "$TRACE" ] && cases+=("trace|trace:$TRACE")
for c in "${cases[@]}"; do
  name=${c%%|*} w=${c#*|}
  for n in $SIZES; do
    "$B" simulate --machine "bgq:$n" --ppn 16 --bytes-per-rank "$w" --json > "$tmp/net.$name.$n.json"
  done
  for n in $FS_SIZES; do
    "$B" simulate --machine "bgq:$n" --ppn 16 --bytes-per-rank "$w" --fs --json > "$tmp/fs.$name.$n.json"
  done
done
for k in $SWEEP_K; do
  for mode in net fs; do
    extra=()
    [ $mode = fs ] && extra=(--fs)
    "$B" simulate --machine "bgq:$SWEEP_NODES" --ppn 16 --bytes-per-rank "1MiB:25%x$k" "${extra[@]}" \
      --assign default,route-aware,route-aware-coalesced,load-aware,load-aware-coalesced --json > "$tmp/sweep.$mode.$k.json"
  done
done

python3 - "$tmp" "$SIZES" "$FS_SIZES" "$SWEEP_K" "${TRACE:+trace}" "$SWEEP_NODES" <<'PY'
import json, os, sys
tmp, sizes, fs_sizes, ks, have_trace = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
sweep_nodes = sys.argv[6]
cases = ["balanced", "uneven"] + (["trace"] if have_trace else [])
title = {"balanced": "balanced writers (1 MiB per rank)",
         "uneven": "uneven writers (`1MiB:25%x4`: the first 25 % of the nodes in rank order write 4 MiB per rank)",
         "trace": "a replayed run (`trace:`: t_uneven's FERRY_TRACE, 64 ranks, laid over the machine in proportion)"}

def load(p):
    with open(os.path.join(tmp, p)) as f:
        return json.load(f)

def units(b):
    for u in ["B", "KiB", "MiB", "GiB", "TiB"]:
        if b < 1024 or u == "TiB":
            return ("%.0f %s" if b >= 100 or u == "B" else "%.2f %s" if b < 10 else "%.1f %s") % (b, u)
        b /= 1024.0

def row(r):
    return {x["row"]: x for x in r["results"]}

def table(mode, name, ns):
    d0 = load("%s.%s.%s.json" % (mode, name, ns[0]))
    ct = d0["costs"]["text"]
    print("%s; %s." % (ct[0].upper() + ct[1:], "writers `%s`" % d0["writers"]["spec"].split("/")[-1]))
    print()
    print("| nodes | row | assignment | path | moved | avg hops | busiest bridge | busiest I/O node requests | "
          "transit msgs | floor s | simulated s | GB/s | vs default | bound by (floor) | sim wall s |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for n in ns:
        d = load("%s.%s.%s.json" % (mode, name, n))
        for r in d["results"]:
            print("| %s | %s%s | %s | %s | %d | %.3f | %s | %d | %d | %.4f | %.4f | %.2f | %+.1f %% | %s | %.1f |" % (
                n, r["row"], " (what-if)" if r["what_if"] else "", r["assignment"], r["path"], r["moved_nodes"],
                r["avg_hops"], units(r["max_bridge_bytes"]), r["max_ion_requests"], r["transit_msgs"],
                r["floor_time_s"], r["simulated_time_s"], r["bandwidth_gbps"], 100 * r["vs_default"],
                r["bound_by"]["text"], r["wall_s"]))
    print()

for mode, ns, head in [("net", sizes, "Network only"), ("fs", fs_sizes, "File-system costs")]:
    print("### %s" % head)
    print()
    for name in cases:
        print("#### %s" % title[name])
        print()
        table(mode, name, ns)

print("### The goals, measured (simulated times)")
print()
print("| writers | costs | nodes | load-aware vs default (goal <= -30 %) | load-aware vs route-aware (goal <= -15 %) | "
      "load-aware-coalesced vs default | vs route-aware-coalesced | ferry-forward vs default |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for name in cases:
    for mode, ns in [("net", sizes), ("fs", fs_sizes)]:
        for n in ns:
            r = row(load("%s.%s.%s.json" % (mode, name, n)))
            t = {k: v["simulated_time_s"] for k, v in r.items()}
            print("| %s | %s | %s | %+.1f %% | %+.1f %% | %+.1f %% | %+.1f %% | %+.1f %% (%s) |" % (
                name, "network" if mode == "net" else "file system", n,
                100 * (t["load-aware"] / t["default"] - 1), 100 * (t["load-aware"] / t["route-aware"] - 1),
                100 * (t["load-aware-coalesced"] / t["default"] - 1),
                100 * (t["load-aware-coalesced"] / t["route-aware-coalesced"] - 1),
                100 * (t["ferry-forward"] / t["default"] - 1), r["ferry-forward"]["assignment"]))
print()
big = sizes[-1]
print("Intra-node aggregation against default at %s nodes, balanced writers (GB/s, simulated):" % big)
print()
print("| costs | default | ferry-forward (every node one message, each piece its own request) | "
      "route-aware-coalesced (the seed's path) | node-request (what-if: every node one request) |")
print("|---|---:|---:|---:|---:|")
for mode in ["net", "fs"]:
    if big not in (sizes if mode == "net" else fs_sizes):
        continue
    r = row(load("%s.balanced.%s.json" % (mode, big)))
    print("| %s | %.2f | %.2f (%.2fx) | %.2f (%.2fx) | %.2f (%.2fx) |" % (
        "network only" if mode == "net" else "file system", r["default"]["bandwidth_gbps"],
        r["ferry-forward"]["bandwidth_gbps"], r["ferry-forward"]["bandwidth_gbps"] / r["default"]["bandwidth_gbps"],
        r["route-aware-coalesced"]["bandwidth_gbps"],
        r["route-aware-coalesced"]["bandwidth_gbps"] / r["default"]["bandwidth_gbps"],
        r["node-request"]["bandwidth_gbps"], r["node-request"]["bandwidth_gbps"] / r["default"]["bandwidth_gbps"]))
print()

print("### Where route- and load-aware assignment starts to pay (bgq:%s, 1MiB:25%%xK)" % sweep_nodes)
print()
print("The heavy factor K sets the default's imbalance: its busiest bridge's bytes (network) or its busiest "
      "I/O node's requests (file system) over the mean. Balancing can take at most 1 - 1/imbalance off.")
print()
print("| K | costs | default imbalance | bound | default s | route-aware | route-aware-coalesced | load-aware | "
      "load-aware-coalesced |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
for k in ks:
    for mode in ["net", "fs"]:
        d = load("sweep.%s.%s.json" % (mode, k))
        r = row(d)
        dd = r["default"]
        if mode == "net":
            imb = dd["max_bridge_bytes"] / dd["mean_bridge_bytes"]
        else:
            imb = dd["max_ion_requests"] / dd["mean_ion_requests"]
        t = lambda x: r[x]["simulated_time_s"]
        print("| %s | %s | %.2fx | -%.0f %% | %.4f | %+.1f %% | %+.1f %% | %+.1f %% | %+.1f %% |" % (
            k, "network" if mode == "net" else "file system", imb, 100 * (1 - 1 / imb) if imb > 0 else 0,
            t("default"), 100 * (t("route-aware") / t("default") - 1),
            100 * (t("route-aware-coalesced") / t("default") - 1), 100 * (t("load-aware") / t("default") - 1),
            100 * (t("load-aware-coalesced") / t("default") - 1)))
PY
