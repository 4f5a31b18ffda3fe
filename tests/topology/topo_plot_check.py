"""ferry-topo plot's figures as a user reads them (run by ferry-topo plot as
its --script, with the plot data and the output directory): the gateway
axis numbers gateways in whole numbers (no -0.04 .. 0.04 with one gateway,
where a bar per assignment shows the one load), node coordinates are whole
numbers, and link counts are written as numbers, not powers of ten.

usage: topo_plot_check.py PLOTDATA.json OUTDIR   (FERRY_TOPO_PLOT_PY: the script under test)"""
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("ferry_topo_plot", os.environ["FERRY_TOPO_PLOT_PY"])
ftp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ftp)
figs = []
ftp.plt.close = lambda fig=None: figs.append(fig) if hasattr(fig, "axes") else None
data = json.load(open(sys.argv[1]))
out = sys.argv[2]
fail = []


def check(cond, what):
    if not cond:
        fail.append(what)


def labels(ax, axis):
    ticks = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    vals = ax.get_xticks() if axis == "x" else ax.get_yticks()
    return [t.get_text() for t, v in zip(ticks, vals) if min(lo, hi) <= v <= max(lo, hi) and t.get_text()]


def whole(t):
    return t.replace("\u2212", "-").lstrip("-").isdigit()


ngw = max(len(a["gateway_bytes"]) for a in data["assignments"])
ftp.gateways(data, os.path.join(out, "gateway_loads.png"))
ftp.histogram(data, os.path.join(out, "link_load_hist.png"))
if data.get("plane"):
    ftp.heatmap(data, os.path.join(out, "link_heatmap.png"))
for fig in figs:
    fig.canvas.draw()
    for ax in fig.axes:
        if ax.get_xlabel() == "gateway":
            xs = labels(ax, "x")
            check(xs and all(whole(t) for t in xs) and len(xs) == len(set(xs)), f"gateway ticks {xs}")
        if ax.get_xlabel() == "assignment":
            check(ngw == 1 and len(ax.patches) == len(data["assignments"]), "one gateway: a bar per assignment")
        if ax.get_ylabel() == "links":
            ys = labels(ax, "y")
            check(ys and all(whole(t) for t in ys), f"link counts labelled {ys}")
        if data.get("plane") and ax.get_xlabel() == data["plane"]["x_dim"]:
            for axis in "xy":
                ts = labels(ax, axis)
                check(ts and all(whole(t) for t in ts), f"node coordinates labelled {ts}")
if fail:
    print("topo_plot_check: FAILED (%d gateways):\n  %s" % (ngw, "\n  ".join(sorted(set(fail)))))
    sys.exit(1)
print("topo_plot_check: passed (%d gateways)" % ngw)
