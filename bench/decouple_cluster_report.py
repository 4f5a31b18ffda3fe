#!/usr/bin/env python3
"""The table of bench/decouple_cluster.sh from its samples.

    decouple_cluster_report.py SAMPLES

SAMPLES has a line per job: build op mode round seconds bytes_to_compute
compute_link_bytes ion_storage_bytes agree. Per build and operation: the
median seconds of each mode over the rounds (with their range), decoupled
over traditional, a one-sided exact Mann-Whitney p-value that decoupled is
faster, the bytes that crossed the compute nodes' links in each mode (the
switch's counters, both directions) and their reduction, and whether every
job's results agreed with the file."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from learn_goal import below, median  # noqa: E402


def mib(n):
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.1f} KiB"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = {}
    with open(sys.argv[1]) as f:
        for line in f:
            x = line.split()
            if len(x) != 9:
                continue
            b, op, mode = x[0], x[1], x[2]
            r = rows.setdefault((b, op), {}).setdefault(mode, {"s": [], "bench": [], "links": [], "ion": [], "agree": True})
            r["s"].append(float(x[4]))
            r["bench"].append(int(x[5]))
            r["links"].append(int(x[6]))
            r["ion"].append(int(x[7]))
            r["agree"] &= x[8] == "true"
    print("| build | op | traditional (s) | decoupled (s) | dec/trad | p (dec faster) | rounds "
          "| compute links, trad | decoupled | fewer bytes | to compute ranks, dec | I/O nodes' storage links, dec | results |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (b, op), m in sorted(rows.items()):
        t, d = m.get("traditional"), m.get("decoupled")
        if not t or not d:
            continue
        ts, ds = t["s"], d["s"]
        lt, ld = median(t["links"]), median(d["links"])
        print(f"| {b} | {op} | {median(ts):.2f} ({min(ts):.2f}-{max(ts):.2f}) | {median(ds):.2f} ({min(ds):.2f}-{max(ds):.2f}) "
              f"| {median(ds) / median(ts):.2f}x | {below(ds, ts):.4f} | {len(ts)}/{len(ds)} "
              f"| {mib(lt)} | {mib(ld)} | {lt / max(ld, 1):.0f}x | {mib(median(d['bench']))} | {mib(median(d['ion']))} "
              f"| {'agree' if t['agree'] and d['agree'] else 'DIFFER'} |")


if __name__ == "__main__":
    main()
