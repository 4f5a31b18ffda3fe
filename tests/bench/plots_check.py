"""Checks bench/plots.py's figures on synthetic rows:
one colour per configuration whatever the order, legends outside every
axes, stacked bars whole inside their axes, the rounds in every title, log
axes with labels at more than one decade step.

usage: plots_check.py BENCH_DIR OUT_DIR"""
import sys

sys.path.insert(0, sys.argv[1])
import plots  # noqa: E402

figs = []
plots.plt.close = lambda fig=None: figs.append(fig) if hasattr(fig, "axes") else None  # keep them to look at
fail = []


def check(cond, what):
    if not cond:
        fail.append(what)


def rows_for(build, configs):
    rows = []
    for i, cfg in enumerate(configs):
        for j, exp in enumerate(["ior-8k", "ior-64k", "tile"]):
            m = 300.0 * (i + 1) * (j + 1)
            rows.append({"build": build, "fs": "/tmp", "exp": exp, "config": cfg, "n": 5, "ranks": 2,
                         "xfer": 8192 * 8 ** j if exp.startswith("ior") else None, "_order": i,
                         "write": {"median": m, "min": m * 0.8, "max": m * 1.3},
                         "read": {"median": 2 * m, "min": m, "max": 3 * m},
                         "time": {"open": 0.01, "write": 0.2 * (i + 1), "read": 0.1, "close": 0.05},
                         "ferry_timers": {"open": 0.01, "exchange": 0.3, "write": 0.2} if cfg.startswith("ferry") else {}})
    return rows


NAMES = {"fpp-posix", "ompio", "romio", "romio-cb", "romio-nocb", "romio321-cb", "ferry-independent",
         "ferry-twophase", "ferry-auto"}
a = ["fpp-posix", "ompio", "romio321-cb", "ferry-independent", "ferry-twophase", "ferry-auto"]
b = ["fpp-posix", "romio", "romio-nocb", "ferry-twophase", "romio-cb", "ferry-independent"]  # another set, another order
check(len(set(plots.CONFIG_COLORS.values())) == len(plots.CONFIG_COLORS), "two configurations share a colour")
paths = plots.make_all(rows_for("openmpi", a) + rows_for("mpich", b), {"ior-8k": 0, "ior-64k": 1, "tile": 2},
                       sys.argv[2])
check(len(paths) == 8, f"{len(paths)} plots, want 8")

seen = {}
for fig in figs:
    title = (fig._suptitle.get_text() if fig._suptitle else "") + " ".join(ax.get_title() for ax in fig.axes)
    check("medians of 5 rounds" in title, f"no rounds in '{title[:60]}'")
    check(not any(ax.get_legend() for ax in fig.axes), "a legend inside an axes")
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for leg in fig.legends:
        box = leg.get_window_extent(r)
        for ax in fig.axes:
            if ax.axison:
                check(not box.overlaps(ax.get_window_extent(r)), "the legend covers an axes")
    for ax in fig.axes:
        for c in ax.containers:
            label = c.get_label()
            if label in NAMES:
                face = c.patches[0].get_facecolor() if hasattr(c, "patches") and c.patches else None
                if face is not None:
                    seen.setdefault(label, set()).add(tuple(round(x, 3) for x in face))
        for line in ax.get_lines():
            if line.get_label() in NAMES:
                seen.setdefault(line.get_label(), set()).add(tuple(round(x, 3) for x in
                                                                   plots.matplotlib.colors.to_rgba(line.get_color())))
        if ax.get_yscale() == "log":
            labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
            lo, hi = ax.get_ylim()
            inside = [t for t in ax.get_yticks() if lo <= t <= hi]
            check(len(inside) >= 3, f"log axis with {len(inside)} labelled ticks ({labels})")
        # stacked bars: every bar's top inside the axes
        top = max((p.get_y() + p.get_height() for p in ax.patches), default=0)
        if ax.get_yscale() == "linear" and top > 0:
            check(top <= ax.get_ylim()[1], f"a stacked bar clipped ({top} above {ax.get_ylim()[1]})")

# The demo on the cluster: two patterns, one of them ior at a single
# transfer size, bandwidths within a few MiB/s of each other, phases of
# milliseconds. A user reads: labels that do not repeat, a bar chart where
# there is one x value, black tick labels of a readable size, milliseconds
# for times below a second, and every configuration named explained.
def demo_rows():
    rows = []
    for i, cfg in enumerate(["fpp-posix", "romio321", "ferry-auto"]):
        for exp, xfer in (("ior-64k", 65536), ("btio", None)):
            m = 21.0 + 0.8 * i + (0.5 if xfer else 0.0)
            rows.append({"build": "openmpi", "fs": "cluster:/mnt/ferry-cluster/dist", "exp": exp, "config": cfg,
                         "n": 3, "ranks": 8, "xfer": xfer, "_order": i,
                         "write": {"median": m, "min": m - 0.9, "max": m + 1.1},
                         "read": {"median": m - 2, "min": m - 2.5, "max": m - 1.2},
                         "time": {"open": 0.0004, "write": 0.0021, "read": 0.0013, "close": 0.0002},
                         "ferry_timers": {"meta": 0.0003, "write": 0.002} if cfg.startswith("ferry") else {}})
    return rows


figs.clear()
demo_paths = plots.make_all(demo_rows(), {"ior-64k": 0, "btio": 1}, sys.argv[2])
check(len(demo_paths) == 4, f"demo: {len(demo_paths)} plots, want 4")
dark = lambda c: sum(plots.matplotlib.colors.to_rgb(c)) / 3 < 0.35
for fig in figs:
    title = fig._suptitle.get_text() if fig._suptitle else " ".join(ax.get_title() for ax in fig.axes)
    fig.canvas.draw()
    captions = "\n".join(t.get_text() for t in fig.texts)
    for ax in fig.axes:
        if not ax.axison:
            continue
        lo, hi = ax.get_ylim()
        shown = [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks()) if lo <= v <= hi and t.get_text()]
        check(len(shown) == len(set(shown)), f"demo: repeated y labels {shown} in '{title[:40]}'")
        check(len(shown) >= 3, f"demo: {len(shown)} y labels in '{title[:40]}'")
        for t in shown:
            check(len(t.split(".")[1]) <= 1 if "." in t else True, f"demo: y label {t} in '{title[:40]}'")
        names = [t for t in ax.get_xticklabels() if t.get_text()]
        for t in names:
            check(t.get_fontsize() >= 8, f"demo: x label {t.get_text()} at {t.get_fontsize()} pt")
            check(dark(t.get_color()), f"demo: x label {t.get_text()} in a pale colour {t.get_color()}")
            if len(names) <= 3:
                check(t.get_rotation() == 0, f"demo: x label {t.get_text()} turned with {len(names)} labels")
        if "seconds" in ax.get_ylabel():
            check(ax.get_ylabel().startswith("milliseconds"), f"demo: '{ax.get_ylabel()}' for times below a second")
        if title.startswith("ior"):
            check(not [l for l in ax.get_lines() if l.get_label() in NAMES and len(l.get_xdata()) >= 1],
                  "demo: a line plot over one transfer size")
            check(len(ax.patches) == 3, f"demo: {len(ax.patches)} bars at one transfer size, want 3")
        used = {t.get_text() for t in names} | {l.get_label() for l in ax.get_lines()} | \
            {c.get_label() for c in ax.containers}
        for cfg in ["fpp-posix", "romio321", "ferry-auto"]:
            if cfg in used or any(cfg == t.get_text() for leg in fig.legends for t in leg.get_texts()):
                check(f"{cfg}: " in captions, f"demo: {cfg} shown but not explained in '{title[:40]}'")

for cfg, colors in seen.items():
    # the alpha of an error-bar line aside, one colour per configuration
    check(len({c[:3] for c in colors}) == 1, f"{cfg} in {len(colors)} colours")
check("ferry-independent" in seen and "ferry-twophase" in seen, "configurations not found in the plots")
if fail:
    print("plots_check: FAILED:\n  " + "\n  ".join(sorted(set(fail))))
    sys.exit(1)
print("plots_check: passed")
