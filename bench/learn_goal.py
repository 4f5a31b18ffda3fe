#!/usr/bin/env python3
"""The goals for auto's learning, from bench/compare.py's results.json:

  - auto >= 0.9x the best configuration of its cell (every native MPI-IO and
    every forced ferry strategy) in at least 90 % of the cells;
  - auto never below 0.8x the best native MPI-IO.

A cell is one build, file system, experiment and direction (write, read).
With --rules in the comparison, the same figures for auto without learning
(ferry-rules) are shown beside, from the same run.

Each miss is then put to a test and given a cause (--misses, the default):

  - noise: a one-sided exact Mann-Whitney test on the rounds cannot say, at
    5 %, that auto's rounds lie below the bar's (0.9x the best
    configuration's rounds, or 0.8x the best native's): the cell's spread
    is wider than the miss;
  - no ferry strategy: the best is a native, and ferry's best forced
    strategy is itself significantly below the bar, so no selection among
    ferry's strategies reaches it;
  - flush: the same, for an aggregated write on a file system whose client
    caches are not coherent, where ferry fsyncs after every aggregated write
    to keep MPI's read-your-own-writes and the native does not
    (docs/filesystems.md);
  - selection: auto ran another strategy than the best forced one, and is
    significantly below the bar while that strategy is not;
  - auto's own cost: auto ran the best forced strategy's choice and is still
    significantly below it (the pattern step, trials).

    bench/learn_goal.py bench/out/results.json [more results.json ...]
"""
import itertools
import json
import sys

FORCED = ("ferry-independent", "ferry-twophase", "ferry-local")


def cells(results):
    by = {}
    for row in results["summary"]:
        for op in ("write", "read"):
            if op in row:
                by.setdefault((row["build"], row["fs"], row["exp"], op), {})[row["config"]] = row[op]["median"]
    return by


def rounds(results):
    """Every round's MiB/s and auto's strategy, per cell and configuration."""
    vals, chose = {}, {}
    for run in results["runs"]:
        for rec in run["records"]:
            if not rec["verify"]["ok"] or "|" not in rec["label"]:
                continue
            exp = rec["label"].split("|", 1)[1]
            for op in ("write", "read"):
                v = (rec.get("bandwidth") or {}).get(op)
                if not v:
                    continue
                key = (run["build"], run["fs"], exp, op)
                vals.setdefault(key, {}).setdefault(run["config"], []).append(v / 2 ** 20)
                s = (((rec.get("ferry_stats") or {}).get(op) or {}).get("strategies") or {}).get(f"coll_{op}") or {}
                if run["config"] == "ferry-auto" and s.get("strategy") not in (None, "none"):
                    chose.setdefault(key, []).append(s["strategy"])
    return vals, chose


def below(xs, ys):
    """One-sided exact Mann-Whitney p-value that xs lie below ys: the share of
    the ways to split the pooled values into groups of len(xs) that put at
    least as many pairs in that order as the observed split (ties count
    half)."""
    pooled = xs + ys
    idx = range(len(pooled))
    obs = sum(1.0 if a < b else 0.5 if a == b else 0.0 for a in xs for b in ys)
    total = hits = 0
    for pick in itertools.combinations(idx, len(xs)):
        rest = [pooled[i] for i in idx if i not in pick]
        got = sum(1.0 if pooled[i] < b else 0.5 if pooled[i] == b else 0.0 for i in pick for b in rest)
        total += 1
        hits += got >= obs - 1e-9
    return hits / total


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def explain(results, by):
    """Every cell that misses a goal, with the test and its cause."""
    vals, chose = rounds(results)
    fs_coherent = {}
    for run in results["runs"]:
        for rec in run["records"]:
            for op in ("write", "read"):
                f = (((rec.get("ferry_stats") or {}).get(op) or {}).get("filesystem")) or {}
                if "coherent_cache" in f:
                    fs_coherent[run["fs"]] = bool(f["coherent_cache"])
    out = []
    for key, cfg in sorted(by.items()):
        if "ferry-auto" not in cfg or key not in vals:
            continue
        v = vals[key]
        natives = [c for c in cfg if c not in FORCED and not c.startswith("ferry-") and c != "fpp-posix"]
        forced = [c for c in FORCED if c in cfg]
        best = max(natives + forced, key=lambda c: cfg[c])
        bestnat = max(natives, key=lambda c: cfg[c]) if natives else None
        bestf = max(forced, key=lambda c: cfg[c]) if forced else None
        ran = chose.get(key, [])
        ran = max(set(ran), key=ran.count) if ran else "?"
        for goal, bar, ref in (("0.9x best", 0.9, best), ("0.8x native", 0.8, bestnat)):
            if ref is None or cfg["ferry-auto"] >= bar * cfg[ref]:
                continue
            p = below(v["ferry-auto"], [bar * x for x in v[ref]])
            fp = below(v[bestf], [bar * x for x in v[ref]]) if bestf and bestf != ref else 1.0
            if p > 0.05:
                cause = "noise"
            elif ref not in forced and fp <= 0.05:
                aggregated = bestf in ("ferry-twophase", "ferry-local") and ran in ("twophase", "local")
                cause = ("flush" if key[3] == "write" and aggregated and fs_coherent.get(key[1]) is False
                         else "no ferry strategy")
            elif bestf and ran != bestf.split("-", 1)[1]:
                cause = "selection"
            else:
                cause = "auto's own cost"
            out.append(dict(key=key, goal=goal, x=cfg["ferry-auto"] / cfg[ref], ref=ref, p=p, ran=ran,
                            best_ferry=bestf, x_ferry=cfg[bestf] / cfg[ref] if bestf else None, cause=cause))
    return out


def print_misses(results, by):
    ms = explain(results, by)
    if not ms:
        return
    print(f"misses, tested on the rounds (one-sided exact Mann-Whitney, 5 %), {len(ms)}:")
    print(f"{'build':<8} {'fs':<22} {'experiment':<12} {'op':<5} {'goal':<11} {'auto/bar-ref':>12} {'p':>6} "
          f"{'auto ran':<12} {'best ferry/ref':>14}  cause")
    for m in ms:
        b, fs, e, op = m["key"]
        bf = f"{m['best_ferry'].split('-', 1)[1]} {m['x_ferry']:.2f}" if m["best_ferry"] else "-"
        print(f"{b:<8} {fs:<22} {e:<12} {op:<5} {m['goal']:<11} {m['x']:8.2f} {m['ref'].replace('ferry-', ''):<3.3} "
              f"{m['p']:6.3f} {m['ran']:<12} {bf:>14}  {m['cause']}")
    for goal in ("0.9x best", "0.8x native"):
        g = [m for m in ms if m["goal"] == goal]
        causes = {}
        for m in g:
            causes[m["cause"]] = causes.get(m["cause"], 0) + 1
        print(f"  {goal}: {len(g)} misses: " + ", ".join(f"{n} {c}" for c, n in sorted(causes.items(), key=lambda x: -x[1])))


def noise_floor(results, by):
    """ferry-rules runs the strategy it names with the same code as that
    strategy forced: their ratio would be 1.0 on a quiet machine. How far it
    strays says how much one cell's median can be trusted."""
    ratios = []
    for row in results["summary"]:
        if row["config"] != "ferry-rules":
            continue
        for op in ("write", "read"):
            s = (row.get("ferry_choice") or {}).get(op, {}).get("strategy")
            cfg = by.get((row["build"], row["fs"], row["exp"], op), {})
            if op in row and s and f"ferry-{s}" in cfg:
                ratios.append(cfg["ferry-rules"] / cfg[f"ferry-{s}"])
    return ratios


def compared(results):
    """The cells where auto's choice came from comparing measured options
    (its reason says "... faster than ..."): the rest ran the rules' choice
    (or the store's one option), learning had nothing to compare there (a
    one-off pattern, pieces too far apart to merge)."""
    keys = set()
    for row in results["summary"]:
        if row["config"] == "ferry-auto":
            for op, ch in (row.get("ferry_choice") or {}).items():
                if "faster than" in ch.get("reason", ""):
                    keys.add((row["build"], row["fs"], row["exp"], op))
    return keys


def split(by, learned, which):
    """which's cells >= 0.9x the best and below 0.8x the best native, among
    the cells auto compared options in and the others"""
    rows = judge(by, which)[0]
    out = []
    for part in (True, False):
        xs = [(b, n) for k, b, n in rows if (k in learned) == part]
        out.append((len(xs), sum(b >= 0.9 for b, _ in xs), sum(n is not None and n < 0.8 for _, n in xs)))
    return out


def judge(by, which):
    rows, met, low = [], 0, []
    for key, cfg in sorted(by.items()):
        if which not in cfg:
            continue
        natives = [v for c, v in cfg.items() if c not in FORCED and not c.startswith("ferry-") and c != "fpp-posix"]
        best = max([v for c, v in cfg.items() if c in FORCED] + natives)
        bestnat = max(natives) if natives else None
        x_best = cfg[which] / best
        x_nat = cfg[which] / bestnat if bestnat else None
        met += x_best >= 0.9
        if x_nat is not None and x_nat < 0.8:
            low.append(key)
        rows.append((key, x_best, x_nat))
    return rows, met, low


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        with open(path) as f:
            res = json.load(f)
        by = cells(res)
        m = res.get("machine", {})
        print(f"== {path}: {res.get('profile')} profile, {res.get('rounds')} rounds, commit {m.get('commit')}, "
              f"load before/after {m.get('load_before')}/{m.get('load_after')}")
        auto, a_met, a_low = judge(by, "ferry-auto")
        rules = dict((k, (b, n)) for k, b, n in judge(by, "ferry-rules")[0])
        print(f"{'build':<8} {'fs':<22} {'experiment':<12} {'op':<5} {'auto/best':>9} {'auto/nat':>8}"
              + (f" {'rules/best':>10} {'rules/nat':>9}" if rules else ""))
        for (b, fs, e, op), xb, xn in auto:
            line = f"{b:<8} {fs:<22} {e:<12} {op:<5} {xb:9.2f} {xn if xn is not None else float('nan'):8.2f}"
            if rules and (b, fs, e, op) in rules:
                rb, rn = rules[(b, fs, e, op)]
                line += f" {rb:10.2f} {rn if rn is not None else float('nan'):9.2f}"
            print(line + ("  <0.9 best" if xb < 0.9 else "") + ("  <0.8 native" if xn is not None and xn < 0.8 else ""))
        n = len(auto)
        print(f"auto: >= 0.9x the best configuration in {a_met} of {n} cells ({100 * a_met / max(n, 1):.0f} %; goal 90 %), "
              f"below 0.8x the best native in {len(a_low)} (goal 0)")
        if rules:
            r, r_met, r_low = judge(by, "ferry-rules")
            print(f"rules (auto without learning, same run): >= 0.9x the best in {r_met} of {len(r)} cells "
                  f"({100 * r_met / max(len(r), 1):.0f} %), below 0.8x the best native in {len(r_low)}")
            learned = compared(res)
            for name, cfg in (("auto", "ferry-auto"), ("rules", "ferry-rules")):
                (n1, m1, l1), (n2, m2, l2) = split(by, learned, cfg)
                print(f"  {name}: in the {n1} cells where auto compared measured options: >= 0.9x best in {m1}, "
                      f"< 0.8x native in {l1}; in the other {n2}: {m2} and {l2}")
            nf = noise_floor(res, by)
            if nf:
                inside = sum(0.9 <= x <= 1 / 0.9 for x in nf)
                nf.sort()
                print(f"noise floor: ferry-rules against the forced strategy it ran (the same code, so 1.00 on a quiet "
                      f"machine): within 0.9-1.11x in {inside} of {len(nf)} cells; ratios from {nf[0]:.2f} to "
                      f"{nf[-1]:.2f}, median {nf[len(nf) // 2]:.2f}")
        print_misses(res, by)
        print()


if __name__ == "__main__":
    main()
