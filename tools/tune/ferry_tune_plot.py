#!/usr/bin/env python3
"""Box plot of a ferry-tune run from its --samples CSV.

usage: ferry_tune_plot.py SAMPLES.csv OUT.png [TITLE]

One box per configuration that has confirm-stage samples (the ones the report
judges on), ferry's defaults first, native MPI-IO last. Plotting only: every
number comes from ferry-tune.
"""
import csv
import os
import sys

# the shared set-up: beside this script once installed, in tools/ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here if os.path.exists(os.path.join(here, "ferry_plot_setup.py")) else os.path.dirname(here))
import ferry_plot_setup  # noqa: E402

ferry_plot_setup.need("ferry_tune_plot.py", [])
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    confirm = {}
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if row["confirm"] == "1":
                confirm.setdefault(row["configuration"], []).append(float(row["seconds"]))
    if not confirm:
        sys.stderr.write("ferry_tune_plot.py: no confirm-stage samples in %s\n" % sys.argv[1])
        return 1

    def order(name):
        if name in ("defaults", "ferry defaults"):
            return (0, 0)
        if name == "native MPI-IO":
            return (2, 0)
        s = sorted(confirm[name])
        return (1, s[len(s) // 2])

    names = sorted(confirm, key=order)
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(names) + 1.5))
    # each box says how many samples it is made of; the references keep one
    # colour in every plot (bench/plots.py's for ferry's defaults and native)
    labels = ["%s\n(%d samples)" % (n.replace(" ", "\n"), len(confirm[n])) for n in names]
    boxes = ax.boxplot([confirm[n] for n in names], vert=False, labels=labels, patch_artist=True)
    fixed = {"defaults": "#9467bd", "ferry defaults": "#9467bd", "native MPI-IO": "#1f77b4"}
    for name, box in zip(names, boxes["boxes"]):
        box.set_facecolor(fixed.get(name, "#2ca02c"))
        box.set_alpha(0.6)
    ax.invert_yaxis()
    ax.set_xlabel("seconds per repetition (lower is better)")
    if len(sys.argv) > 3:
        ax.set_title(sys.argv[3])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
