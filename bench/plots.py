"""Plots of a comparison (bench/compare.py): bandwidth per experiment and
configuration with min-max bars, the phase breakdown (ferry-bench's phases
for every configuration, ferry's own timers for ferry's strategies), and
bandwidth against transfer size for ior. One set of PNGs per build and file
system; make_all returns their paths."""
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

PHASES = ["open", "write", "read", "close"]
FERRY_TIMERS = ["open", "meta", "exchange", "write", "read", "sync", "close", "wait"]


def _colors(configs):
    cmap = plt.get_cmap("tab10")
    return {c: cmap(i % 10) for i, c in enumerate(configs)}


def _groups(rows, exp_order):
    out = {}
    for r in rows:
        out.setdefault((r["build"], r["fs"]), []).append(r)
    for rs in out.values():
        rs.sort(key=lambda r: (exp_order.get(r["exp"], 99), r["_order"]))
    return out


def _title(rs):
    return f"{rs[0]['build']}, {rs[0]['ranks']} ranks, {rs[0]['fs']}"


def _fsname(fs):
    return fs.strip("/").replace("/", "_") or "root"


def bandwidth(rs, exps, configs, path):
    col = _colors(configs)
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 1.4 * len(exps) + 3), 8), sharex=True)
    width = 0.8 / max(1, len(configs))
    for ax, op in zip(axes, ("write", "read")):
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
            if xs:
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=cfg, color=col[cfg])
        ax.set_yscale("log")
        ax.set_ylabel(f"{op} MiB/s (median, min-max)")
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[1].set_xticks(range(len(exps)))
    axes[1].set_xticklabels(exps, rotation=20)
    axes[0].legend(ncol=4, fontsize=8)
    axes[0].set_title(f"bandwidth per pattern and configuration: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _stacked(rs, exps, configs, path, get, parts, title):
    n = len(exps)
    cols = min(3, n)
    rows_ = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(5 * cols, 3.6 * rows_), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for k, e in enumerate(exps):
        ax = axes[k // cols][k % cols]
        present = [c for c in configs if any(r["exp"] == e and r["config"] == c for r in rs)]
        bottom = [0.0] * len(present)
        for p_i, part in enumerate(parts):
            vals = []
            for c in present:
                r = next(r for r in rs if r["exp"] == e and r["config"] == c)
                vals.append(get(r).get(part, 0.0))
            ax.bar(range(len(present)), vals, bottom=bottom, label=part, color=cmap(p_i % 10))
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_title(e, fontsize=10)
        ax.set_xticks(range(len(present)))
        ax.set_xticklabels(present, rotation=35, ha="right", fontsize=7)
        ax.set_ylabel("seconds (median)", fontsize=8)
    for k in range(n, rows_ * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{title}: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def ior_xfer(rs, configs, path):
    ior = sorted({r["xfer"] for r in rs if r["exp"].startswith("ior-") and r.get("xfer")})
    if not ior:
        return False
    col = _colors(configs)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, op in zip(axes, ("write", "read")):
        for cfg in configs:
            pts = sorted((r["xfer"], r[op]) for r in rs
                         if r["exp"].startswith("ior-") and r["config"] == cfg and op in r and r.get("xfer"))
            if pts:
                xs = [p[0] for p in pts]
                ys = [p[1]["median"] for p in pts]
                err = [[p[1]["median"] - p[1]["min"] for p in pts], [p[1]["max"] - p[1]["median"] for p in pts]]
                ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=cfg, color=col[cfg])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ior)
        ax.set_xticklabels([f"{x // 1024} KiB" if x < 1 << 20 else f"{x >> 20} MiB" for x in ior])
        ax.set_xlabel("transfer size (segmented N:1, collective)")
        ax.set_ylabel(f"{op} MiB/s")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"ior: bandwidth against transfer size: {_title(rs)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
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
