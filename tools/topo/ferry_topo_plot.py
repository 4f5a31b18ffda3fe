#!/usr/bin/env python3
"""Draw ferry-topo's figures from the data `ferry-topo plot` writes.

usage: ferry_topo_plot.py PLOTDATA.json OUTDIR

Writes OUTDIR/link_heatmap.png (torus models only), link_load_hist.png and
gateway_loads.png. Plotting only: every number comes from ferry-topo.
"""
import json
import os
import sys

# the shared set-up: beside this script once installed, in tools/ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here if os.path.exists(os.path.join(here, "ferry_plot_setup.py")) else os.path.dirname(here))
import ferry_plot_setup  # noqa: E402

ferry_plot_setup.need("ferry_topo_plot.py", ["numpy"])
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import cm, colors  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

MIB = 1048576.0

# One colour, line style and marker per assignment in every figure.
STYLE = {
    "default": dict(color="tab:blue", linestyle="-", marker="o"),
    "route-aware": dict(color="tab:orange", linestyle="--", marker="s"),
    "load-aware": dict(color="tab:green", linestyle="-.", marker="^"),
    "refined": dict(color="tab:purple", linestyle=":", marker="v"),
}


def style(name):
    return STYLE.get(name, dict(color="0.3", linestyle="-", marker="."))


def same_as(data, key):
    """For each assignment, the earlier one whose `key` data is identical
    (drawn on top of each other, so the legend says so), else None."""
    out = []
    seen = []
    for a in data["assignments"]:
        twin = next((b["name"] for b in seen if b[key] == a[key]), None)
        out.append(twin)
        seen.append(a)
    return out


def heatmap(data, out):
    plane = data["plane"]
    assigns = data["assignments"]
    vmax = max((l[4] for a in assigns for l in a["plane_links"]), default=0) / MIB or 1.0
    norm = colors.Normalize(vmin=0, vmax=vmax)
    cmap = plt.get_cmap("inferno_r")
    nx, ny = plane["x_size"], plane["y_size"]
    fig, axes = plt.subplots(1, len(assigns), figsize=(4.2 * len(assigns) + 1, 4.8), squeeze=False)
    for ax, a in zip(axes[0], assigns):
        # links sharing both ends (the two directions of a size-2 ring)
        # carry traffic the same way: add them up
        seg = {}
        for xf, yf, xt, yt, b in a["plane_links"]:
            seg[(xf, yf, xt, yt)] = seg.get((xf, yf, xt, yt), 0) + b
        for (xf, yf, xt, yt), b in sorted(seg.items(), key=lambda kv: kv[1]):
            dx, dy = xt - xf, yt - yf
            wrap = abs(dx) > 1 or abs(dy) > 1
            if wrap:  # wrap-around link: a stub leaving the grid edge
                dx = -1 if dx > 1 else (1 if dx < -1 else dx)
                dy = -1 if dy > 1 else (1 if dy < -1 else dy)
                length = 0.45
            else:
                length = 1.0
            # each direction drawn on its own side of the node pair
            ox, oy = -dy * 0.12, dx * 0.12
            x0, y0 = xf + ox, yf + oy
            x1, y1 = xf + dx * length + ox, yf + dy * length + oy
            col = cmap(norm(b / MIB)) if b > 0 else (0.85, 0.85, 0.85, 1)
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                        arrowprops=dict(arrowstyle="-|>", color=col, lw=1.0 + 4.0 * (b / MIB) / vmax,
                                        shrinkA=4, shrinkB=4, linestyle="--" if wrap else "-"))
        xs, ys = np.meshgrid(range(nx), range(ny))
        ax.scatter(xs.ravel(), ys.ravel(), s=18, c="0.3", zorder=3)
        gws = plane["gateways"]
        if gws:
            ax.scatter([g[0] for g in gws], [g[1] for g in gws], s=120, marker="s",
                       facecolors="none", edgecolors="tab:blue", linewidths=2, zorder=4, label="gateway")
            ax.legend(loc="upper right", fontsize=7)
        ax.set_xlim(-0.8, nx - 0.2)
        ax.set_ylim(-0.8, ny - 0.2)
        ax.set_xticks(range(nx))  # coordinates of nodes: whole numbers
        ax.set_yticks(range(ny))
        ax.set_aspect("equal")
        ax.set_xlabel(plane["x_dim"])
        ax.set_ylabel(plane["y_dim"])
        ax.set_title("%s\nbusiest network link %.0f MiB" % (a["name"], a["max_net_link_load"] / MIB),
                     fontsize=10)
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes[0].tolist(), label="link load (MiB)")
    fig.suptitle("%s: links in the %s-%s plane at %s (busiest network link of the whole machine in each title)"
                 % (data["machine"], plane["x_dim"], plane["y_dim"], tuple(plane["fixed"])), fontsize=10)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def histogram(data, out):
    fig, ax = plt.subplots(figsize=(7, 4.2))
    loads = [np.array(a["link_loads"], dtype=float) / MIB for a in data["assignments"]]
    top = max((l.max() for l in loads if l.size), default=1.0)
    bins = np.linspace(0, top, 40)
    twins = same_as(data, "link_loads")
    n = len(loads)
    for k, (a, l, twin) in enumerate(zip(data["assignments"], loads, twins)):
        st = style(a["name"])
        label = "%s (%d links used, busiest network link %.0f MiB)" % (
            a["name"], l.size, a["max_net_link_load"] / MIB)
        if twin:
            label += ", same as %s" % twin
        # later lines thinner, so one drawn over an identical one leaves it visible
        ax.hist(l, bins=bins, histtype="step", linewidth=1.2 + 1.6 * (n - k) / n, color=st["color"],
                linestyle=st["linestyle"], label=label)
    ax.set_yscale("log")
    # counts of links: whole numbers as such (1, 10, 100), not powers written 10^k
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: "%d" % v if v >= 1 and v == int(v) else ""))
    ax.set_xlabel("bytes on a network link (MiB)")
    ax.set_ylabel("links")
    ax.set_title("%s, %d ranks/node x %s: network link loads" % (data["machine"], data["ppn"],
                                                                 data["bytes_per_rank_text"]), fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def one_gateway(data, out):
    """One gateway: a bar per assignment (a line over one point shows
    nothing, and its axis has no gateway to number)."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    names = [a["name"] for a in data["assignments"]]
    mib = [(a["gateway_bytes"][0] if a["gateway_bytes"] else 0) / MIB for a in data["assignments"]]
    ax.bar(range(len(names)), mib, 0.6, color=[style(n)["color"] for n in names])
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, fontsize=9)
    ax.set_xlabel("assignment")
    ax.set_ylabel("bytes through the gateway (MiB)")
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    ax.set_title("%s: its one gateway's load, per assignment" % data["machine"], fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def gateways(data, out):
    if max((len(a["gateway_bytes"]) for a in data["assignments"]), default=0) <= 1:
        return one_gateway(data, out)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    twins = same_as(data, "gateway_bytes")
    n = len(data["assignments"])
    for k, (a, twin) in enumerate(zip(data["assignments"], twins)):
        g = np.array(a["gateway_bytes"], dtype=float) / MIB
        st = style(a["name"])
        label = "%s (max %.0f MiB)" % (a["name"], g.max() if g.size else 0)
        if twin:
            label += ", same as %s" % twin
        ax.plot(np.arange(g.size), g, color=st["color"], linestyle=st["linestyle"], marker=st["marker"],
                markersize=2 + 3 * (n - k) / n, markerfacecolor="none", linewidth=0.8 + 1.6 * (n - k) / n,
                label=label)
    ax.set_xlabel("gateway")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # gateways are numbered, not measured
    ax.set_ylabel("bytes through the gateway (MiB)")
    ax.set_ylim(bottom=0)
    ax.set_title("%s: gateway loads" % data["machine"], fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    outdir = sys.argv[2]
    written = []
    if data.get("plane"):
        heatmap(data, os.path.join(outdir, "link_heatmap.png"))
        written.append("link_heatmap.png")
    histogram(data, os.path.join(outdir, "link_load_hist.png"))
    written.append("link_load_hist.png")
    gateways(data, os.path.join(outdir, "gateway_loads.png"))
    written.append("gateway_loads.png")
    for w in written:
        print(os.path.join(outdir, w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
