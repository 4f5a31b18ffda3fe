"""Plots of a comparison (bench/compare.py): bandwidth per experiment and
configuration with min-max bars, the phase breakdown (ferry-bench's phases
for every configuration, ferry's own timers for ferry's strategies), and
bandwidth against transfer size for ior. One set of PNGs per build and file
system; make_all returns their paths.

Every configuration has one colour in every plot (ferry-independent is the
same green wherever it appears), every phase one colour; legends sit outside
the axes; stacked bars get head room; titles say how many rounds the medians
are of; log axes label 1-2-5 steps in plain numbers, and values within a
factor of 4 of each other get a linear axis instead (a log axis over so
short a range repeats its labels); one transfer size is a bar chart, not a
line over one point; seconds below one are shown in milliseconds; tick
labels are black and readable; and every configuration a figure shows is
explained under it."""
import os
import zlib

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator  # noqa: E402

PHASES = ["open", "write", "read", "close"]
FERRY_TIMERS = ["open", "meta", "exchange", "write", "read", "sync", "close", "wait"]

# one colour per configuration, whatever the order or subset in a plot
CONFIG_COLORS = {
    "fpp-posix": "#7f7f7f",          # grey: the limit
    "ompio": "#1f77b4",              # blues: the MPI libraries' own MPI-IO
    "romio321": "#17becf",
    "romio321-cb": "#0b6e78",        # darker: collective buffering forced on
    "romio321-nocb": "#9edae5",      # lighter: forced off
    "romio": "#6baed6",
    "romio-cb": "#08519c",
    "romio-nocb": "#c6dbef",
    "ferry-independent": "#2ca02c",  # ferry's strategies
    "ferry-twophase": "#d62728",
    "ferry-local": "#ff7f0e",
    "ferry-auto": "#9467bd",
}
SPARE = ["#8c564b", "#e377c2", "#bcbd22", "#393b79", "#637939", "#843c39"]
# and one marker, so lines that coincide stay told apart
CONFIG_MARKERS = {"fpp-posix": "s", "ompio": "^", "romio321": "v", "romio": "^", "romio321-cb": "<",
                  "romio321-nocb": ">", "romio-cb": "<", "romio-nocb": ">", "ferry-independent": "o",
                  "ferry-twophase": "D", "ferry-local": "P", "ferry-auto": "X"}
# what each configuration is, under every figure that shows it
CONFIG_NOTES = {
    "fpp-posix": "file per process through POSIX, the same bytes: the limit",
    "ompio": "Open MPI's own MPI-IO (OMPIO)",
    "romio321": "Open MPI's ROMIO (3.2.1)",
    "romio": "MPICH's ROMIO",
    "ferry-independent": "ferry, collective calls served independently",
    "ferry-twophase": "ferry, two-phase aggregation",
    "ferry-local": "ferry, aggregation within each node",
    "ferry-auto": "ferry choosing per call (auto)",
}
TICK_SIZE = 9
PART_COLORS = {
    "open": "#4c72b0", "meta": "#8172b2", "exchange": "#ccb974", "write": "#dd8452", "read": "#55a868",
    "sync": "#937860", "close": "#c44e52", "wait": "#8c8c8c",
}


def color_of(config):
    """The configuration's colour; one outside the table keeps a colour
    chosen by its name, not by where it comes in a plot."""
    return CONFIG_COLORS.get(config, SPARE[zlib.crc32(config.encode()) % len(SPARE)])


def _groups(rows, exp_order):
    out = {}
    for r in rows:
        out.setdefault((r["build"], r["fs"]), []).append(r)
    for rs in out.values():
        rs.sort(key=lambda r: (exp_order.get(r["exp"], 99), r["_order"]))
    return out


def _rounds(rs):
    ns = sorted({r.get("n", 0) for r in rs})
    if not ns:
        return "?"
    return f"{ns[0]}" if ns[0] == ns[-1] else f"{ns[0]}-{ns[-1]}"


def _title(rs):
    return f"{rs[0]['build']}, {rs[0]['ranks']} ranks, {rs[0]['fs']}, medians of {_rounds(rs)} rounds"


def _fsname(fs):
    # "cluster:/mnt/..." too: no ':' in a file name (not every checkout takes one)
    return fs.replace(":", "").strip("/").replace("/", "_") or "root"


def _plain(v, _pos=None):
    """Tick labels as numbers people read: 200, 1000, 20000, 0.5."""
    if v >= 1:
        return f"{v:,.0f}".replace(",", " ")
    return f"{v:g}"


def log_axis(axis):
    """A log axis labelled at 1, 2 and 5 of every decade (a single decade
    otherwise shows one label or none)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_locator(LogLocator(base=10, subs=(3.0, 4.0, 6.0, 7.0, 8.0, 9.0)))
    axis.set_minor_formatter(FuncFormatter(lambda v, p: ""))


def value_axis(ax, lo, hi, bars=False):
    """A log axis labelled at 1-2-5 steps where the values span a factor of
    4 or more; a linear one with a few round, distinct labels otherwise
    (from 0 under bars)."""
    if lo > 0 and hi / lo >= 4:
        ax.set_yscale("log")
        log_axis(ax.yaxis)
        return
    ax.set_yscale("linear")
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    if bars:
        ax.set_ylim(bottom=0)


def _legend_right(fig, handles, labels, title=None):
    """One legend for the figure, right of the axes, never over a bar."""
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=9, title=title,
               title_fontsize=9, frameon=False)


def _explain(fig, configs):
    """What every configuration shown is, in a caption under the figure."""
    lines = [f"{c}: {CONFIG_NOTES[c]}" for c in configs if c in CONFIG_NOTES]
    others = [c for c in configs if c not in CONFIG_NOTES]
    if others:
        lines.append(", ".join(others) + ": as named on the command line (bench/README.md)")
    if lines:
        fig.text(0.01, 0.0, "\n".join(lines), ha="left", va="top", fontsize=9)


def _config_ticks(ax, labels):
    """Configuration names on the x axis: black, readable, turned only when
    there are many."""
    ax.set_xticks(range(len(labels)))
    turn = len(labels) > 3
    ax.set_xticklabels(labels, rotation=30 if turn else 0, ha="right" if turn else "center", fontsize=TICK_SIZE)


def _seconds(values):
    """(scale, unit): milliseconds when every value is below a second."""
    top = max(values, default=0)
    return (1000.0, "milliseconds") if top < 1 else (1.0, "seconds")


def _span(rs, ops):
    """The smallest minimum and the largest maximum of rows' ops: both
    panels of a figure take one kind of axis."""
    ms = [r[op] for r in rs for op in ops if op in r]
    return min((m["min"] for m in ms), default=0), max((m["max"] for m in ms), default=0)


def bandwidth(rs, exps, configs, path):
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 1.4 * len(exps) + 3), 8), sharex=True)
    width = 0.8 / max(1, len(configs))
    low, _ = _span(rs, ("write", "read"))
    for ax, op in zip(axes, ("write", "read")):
        top = 0.0
        for j, cfg in enumerate(configs):
            xs, ys, lo, hi = [], [], [], []
            for i, e in enumerate(exps):
                r = next((r for r in rs if r["exp"] == e and r["config"] == cfg and op in r), None)
                if r:
                    m = r[op]
                    xs.append(i + (j - (len(configs) - 1) / 2) * width)
                    ys.append(m["median"])
                    lo.append(m["median"] - m["min"])
                    hi.append(m["max"] - m["median"])
                    top = max(top, m["max"])
            if xs:
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=cfg, color=color_of(cfg))
        value_axis(ax, low, _span(rs, ("write", "read"))[1], bars=True)
        if top > 0:
            # the longest error bar inside, with room
            ax.set_ylim(top=top * 1.6 if ax.get_yscale() == "log" else top * 1.1)
        ax.set_ylabel(f"{op} MiB/s (median, min-max)")
        ax.tick_params(axis="y", labelsize=TICK_SIZE)
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[1].set_xticks(range(len(exps)))
    axes[1].set_xticklabels(exps, rotation=20 if len(exps) > 4 else 0, fontsize=TICK_SIZE)
    h, lab = axes[0].get_legend_handles_labels()
    _legend_right(fig, h, lab, "configuration")
    _explain(fig, configs)
    axes[0].set_title(f"bandwidth per pattern and configuration: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _stacked(rs, exps, configs, path, get, parts, title):
    n = len(exps)
    cols = min(3, n)
    rows_ = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(5 * cols, 3.8 * rows_), squeeze=False)
    handles = {}
    for k, e in enumerate(exps):
        ax = axes[k // cols][k % cols]
        present = [c for c in configs if any(r["exp"] == e and r["config"] == c for r in rs)]
        totals = [sum(get(next(r for r in rs if r["exp"] == e and r["config"] == c)).get(p, 0.0) for p in parts)
                  for c in present]
        scale, unit = _seconds(totals)
        bottom = [0.0] * len(present)
        for part in parts:
            vals = []
            for c in present:
                r = next(r for r in rs if r["exp"] == e and r["config"] == c)
                vals.append(get(r).get(part, 0.0) * scale)
            bars = ax.bar(range(len(present)), vals, bottom=bottom, label=part,
                          color=PART_COLORS.get(part, "#cccccc"))
            handles.setdefault(part, bars)
            bottom = [b + v for b, v in zip(bottom, vals)]
        # autoscaling follows the last layer drawn, not the stack: the whole
        # stack must fit, with room above it
        if bottom and max(bottom) > 0:
            ax.set_ylim(0, max(bottom) * 1.08)
        ax.set_title(e, fontsize=10)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
        ax.tick_params(axis="y", labelsize=TICK_SIZE)
        _config_ticks(ax, present)
        ax.set_ylabel(f"{unit} (median)", fontsize=TICK_SIZE)
    for k in range(n, rows_ * cols):
        axes[k // cols][k % cols].axis("off")
    order = [p for p in parts if p in handles]
    _legend_right(fig, [handles[p] for p in order], order, "phase")
    _explain(fig, configs)
    fig.suptitle(f"{title}: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _xfer_name(x):
    return f"{x // 1024} KiB" if x < 1 << 20 else f"{x >> 20} MiB"


def _one_xfer(rs, configs, xfer, path):
    """ior at one transfer size: a bar per configuration (a line needs two points)."""
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.2 * len(configs) + 5), 4.5))
    for ax, op in zip(axes, ("write", "read")):
        shown, ys, lo, hi, cols = [], [], [], [], []
        for cfg in configs:
            r = next((r for r in rs if r["exp"].startswith("ior-") and r["config"] == cfg and op in r
                      and r.get("xfer") == xfer), None)
            if r:
                m = r[op]
                shown.append(cfg)
                ys.append(m["median"])
                lo.append(m["median"] - m["min"])
                hi.append(m["max"] - m["median"])
                cols.append(color_of(cfg))
        bars = ax.bar(range(len(shown)), ys, 0.6, yerr=[lo, hi], capsize=3, color=cols)
        for b, cfg in zip(bars, shown):
            b.set_label(cfg)
        tops = [y + h for y, h in zip(ys, hi)]
        value_axis(ax, *_span([r for r in rs if r.get("xfer") == xfer], ("write", "read")), bars=True)
        if tops and ax.get_yscale() == "linear":
            ax.set_ylim(0, max(tops) * 1.1)
        _config_ticks(ax, shown)
        ax.tick_params(axis="y", labelsize=TICK_SIZE)
        ax.set_ylabel(f"{op} MiB/s (median, min-max)")
        ax.grid(axis="y", alpha=0.3)
    _explain(fig, configs)
    fig.suptitle(f"ior at {_xfer_name(xfer)} transfers (segmented N:1, collective): {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def ior_xfer(rs, configs, path):
    ior = sorted({r["xfer"] for r in rs if r["exp"].startswith("ior-") and r.get("xfer")})
    if not ior:
        return False
    if len(ior) == 1:
        return _one_xfer(rs, configs, ior[0], path)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    span = _span([r for r in rs if r["exp"].startswith("ior-") and r.get("xfer")], ("write", "read"))
    for ax, op in zip(axes, ("write", "read")):
        for cfg in configs:
            pts = sorted((r["xfer"], r[op]) for r in rs
                         if r["exp"].startswith("ior-") and r["config"] == cfg and op in r and r.get("xfer"))
            if pts:
                xs = [p[0] for p in pts]
                ys = [p[1]["median"] for p in pts]
                err = [[p[1]["median"] - p[1]["min"] for p in pts], [p[1]["max"] - p[1]["median"] for p in pts]]
                ax.errorbar(xs, ys, yerr=err, marker=CONFIG_MARKERS.get(cfg, "o"), markersize=7, capsize=3,
                            label=cfg, color=color_of(cfg), alpha=0.85, markerfacecolor="none", markeredgewidth=1.5)
        value_axis(ax, *span)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(ior)
        ax.set_xticklabels([_xfer_name(x) for x in ior], fontsize=TICK_SIZE)
        ax.tick_params(axis="y", labelsize=TICK_SIZE)
        ax.set_xlabel("transfer size (segmented N:1, collective)")
        ax.set_ylabel(f"{op} MiB/s (median, min-max)")
        ax.grid(alpha=0.3)
    h, lab = axes[0].get_legend_handles_labels()
    _legend_right(fig, h, lab, "configuration")
    _explain(fig, configs)
    fig.suptitle(f"ior: bandwidth against transfer size: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def make_all(rows, exp_order, out):
    paths = []
    for (build, fs), rs in _groups(rows, exp_order).items():
        exps = []
        for r in rs:
            if r["exp"] not in exps:
                exps.append(r["exp"])
        configs = sorted({r["config"] for r in rs}, key=lambda c: next(r["_order"] for r in rs if r["config"] == c))
        tag = f"{build}_{_fsname(fs)}"
        p = os.path.join(out, f"bandwidth_{tag}.png")
        bandwidth(rs, exps, configs, p)
        paths.append(p)
        p = os.path.join(out, f"phases_{tag}.png")
        _stacked(rs, exps, configs, p, lambda r: r["time"], PHASES, "phase breakdown (ferry-bench phases)")
        paths.append(p)
        fer = [c for c in configs if c.startswith("ferry-")]
        if fer and any(r["ferry_timers"] for r in rs):
            p = os.path.join(out, f"ferry_timers_{tag}.png")
            _stacked([r for r in rs if r["config"] in fer], exps, fer, p, lambda r: r["ferry_timers"],
                     FERRY_TIMERS, "ferry's timers (max over ranks, write + read file)")
            paths.append(p)
        p = os.path.join(out, f"ior_xfer_{tag}.png")
        if ior_xfer(rs, configs, p):
            paths.append(p)
    return paths
