/*
 * What ferry-tune hands back: the hints file (FERRY_HINTS_FILE syntax, its
 * provenance in comments), the report (defaults, best, runners-up with
 * medians and spreads, speedups against ferry's defaults and native MPI-IO,
 * the noise verdict) and, on request, every sample as CSV for plots.
 */
#define _GNU_SOURCE
#include "tune.h"
#include "util/plural.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- numbers ---- */

typedef struct {
    const double *s;
    int n;
    tune_summary t;
    int ok;
} judged;

static judged of_point(const tune_point *p)
{
    judged j = {0};
    if (!p || p->failed)
        return j;
    j.s = tune_judged(p, &j.n);
    tune_summarize(j.s, j.n, &j.t);
    j.ok = j.n > 0;
    return j;
}

static judged of_default(const tune_report *r)
{
    if (r->ref_default >= 0)
        return of_point(&r->res->ref[r->ref_default]);
    return of_point(&r->res->p[0]);
}

typedef struct {
    double speedup, lo, hi, p, alpha;
    int significant, best_is_default;
} verdict;

static verdict judge(const tune_report *r)
{
    verdict v = {0};
    judged b = of_point(&r->res->p[r->res->best]), d = of_default(r);
    v.alpha = r->res->alpha_final > 0 ? r->res->alpha_final : r->opts->alpha;
    v.best_is_default = r->space->origin_is_default && r->res->best == 0;
    if (!b.ok || !d.ok)
        return v;
    v.speedup = d.t.median / b.t.median;
    v.lo = d.t.q1 / b.t.q3;
    v.hi = d.t.q3 / b.t.q1;
    v.p = v.best_is_default ? 1 : tune_mw_less(b.s, b.n, d.s, d.n);
    v.significant = !v.best_is_default && v.p <= v.alpha && 1 - 1 / v.speedup >= r->opts->min_gain;
    return v;
}

static void mib_s(char *buf, size_t len, double bytes, double secs)
{
    double v = bytes / secs / 1048576.0;
    if (bytes > 0 && secs > 0)
        snprintf(buf, len, v >= 100 ? "%.0f" : v >= 1 ? "%.1f" : "%.3f", v);
    else
        snprintf(buf, len, "-");
}

/* a ratio with two significant digits at least: 35.61x, 1.06x, 0.12x, 0.0036x */
static void ratio(char *buf, size_t len, double x)
{
    snprintf(buf, len, x >= 0.095 || x <= 0 ? "%.2fx" : "%.2gx", x);
}

static void workload(const tune_report *r, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "ferry-bench %s", r->run->pattern);
    for (int i = 0; i < r->run->nargs && at < len; i++) {
        if (!strcmp(r->run->args[i], "-o") && i + 1 < r->run->nargs) {
            i++; /* the test file is the tuner's, not the workload's */
            continue;
        }
        at += (size_t)snprintf(buf + at, len - at, " %s", r->run->args[i]);
    }
    if (at < len)
        snprintf(buf + at, len - at, " on %d rank%s", r->run->ranks, ferry_s(r->run->ranks));
}

int tune_report_has_hints(const tune_report *r)
{
    verdict v = judge(r);
    return v.significant || (r->always_write && !v.best_is_default);
}

/* ---- the hints file ---- */

int tune_write_hints(const tune_report *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const tune_result *res = r->res;
    const int *best = res->p[res->best].v;
    verdict v = judge(r);
    char w[2048], host[256] = "?";
    workload(r, w, sizeof w);
    gethostname(host, sizeof host - 1);
    judged d = of_default(r), b = of_point(&res->p[res->best]);
    fprintf(f, "# ferry hints from ferry-tune, for FERRY_HINTS_FILE (docs/tuning.md)\n");
    fprintf(f, "# workload: %s (%s; %s)\n", w, r->facts->mpi, r->facts->ferry);
    if (r->proxy)
        fprintf(f, "# proxy of: %s\n", r->proxy->file);
    fprintf(f, "# metric: %s seconds per repetition; tuned %s on %s, %.0f of %.0f s, %d runs\n",
            tune_metric_name(r->run->metric), r->started, host, r->spent_total, r->budget, res->measurements);
    fprintf(f, "# ferry defaults: median %.4f s (IQR %.4f-%.4f, n=%d)\n", d.t.median, d.t.q1, d.t.q3, d.n);
    char desc[2048];
    tune_space_describe(r->space, best, desc, sizeof desc);
    fprintf(f, "# best found:     median %.4f s (IQR %.4f-%.4f, n=%d): %s\n", b.t.median, b.t.q1, b.t.q3, b.n, desc);
    int write = v.significant || (r->always_write && !v.best_is_default);
    if (v.best_is_default)
        fprintf(f, "# ferry's defaults were the fastest: no hints needed\n");
    else if (v.significant)
        fprintf(f, "# %.2fx faster than ferry's defaults (Mann-Whitney p = %.4f <= %.4f)\n", v.speedup, v.p, v.alpha);
    else
        fprintf(f, "# within noise of ferry's defaults (%.2fx, p = %.4f, threshold %.4f, minimum gain %.0f%%)%s\n",
                v.speedup, v.p, v.alpha, 100 * r->opts->min_gain,
                write ? ": written anyway (--always-write)" : ": the best found, not applied:");
    for (int dim = 0; dim < r->space->ndims; dim++) {
        const char *val = r->space->dim[dim].val[best[dim]];
        if (val)
            fprintf(f, "%s%-28s %s\n", write ? "" : "# ", r->space->dim[dim].key, val);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the report ---- */

static void row(FILE *out, const char *name, judged j, const tune_report *r, double def_median)
{
    char bw[32];
    if (!j.ok) {
        fprintf(out, "  %-16s %s\n", name, "failed or not measured");
        return;
    }
    char x[32];
    mib_s(bw, sizeof bw, r->bytes, j.t.median);
    ratio(x, sizeof x, def_median > 0 ? def_median / j.t.median : 0);
    fprintf(out, "  %-16s %9.4f  %9.4f-%-9.4f %5.0f%%  %3d  %8s  %7s\n", name, j.t.median, j.t.q1, j.t.q3,
            100 * tune_rel_spread(&j.t), j.n, bw, x);
}

void tune_print_report(const tune_report *r, FILE *out)
{
    const tune_result *res = r->res;
    const tune_space *sp = r->space;
    verdict v = judge(r);
    char w[2048], desc[2048];
    workload(r, w, sizeof w);
    fprintf(out, "\nferry-tune report\n");
    fprintf(out, "  workload  %s\n", w);
    fprintf(out, "            %d node%s (%d ranks per node), %s; %s\n", r->facts->nodes, r->facts->nodes == 1 ? "" : "s",
            r->facts->ppn, r->facts->mpi, r->facts->ferry);
    if (r->proxy)
        fprintf(out, "  proxy of  %s (%d record%s; fit %.3f, 0 = exact)\n", r->proxy->file, r->proxy->records,
                r->proxy->records == 1 ? "" : "s", r->proxy->score);
    fprintf(out, "  metric    %s: seconds per repetition (open + I/O + close%s), the median of %d repetition%s per "
                 "launch%s\n",
            tune_metric_name(r->run->metric), r->run->metric == TUNE_METRIC_TOTAL ? ", write and read phases" : "",
            r->run->reps, r->run->reps == 1 ? "" : "s", r->run->warmup ? " after a warm-up" : "");
    int measured = 0;
    for (int k = 0; k < res->n; k++)
        measured += res->p[k].n > 0 || res->p[k].failed;
    fprintf(out, "  budget    %.0f s; spent %.0f s: %d launches (%d failed), %d configurations measured%s\n",
            r->budget, r->spent_total, res->measurements, res->failures, measured,
            res->stopped_early ? "; the budget cut a stage short" : "");

    judged d = of_default(r);
    fprintf(out, "\n  %-16s %9s  %-19s %6s  %3s  %8s  %7s\n", "configuration", "median s", "IQR s", "spread", "n",
            "MiB/s", "speedup");
    row(out, "ferry defaults", d, r, d.t.median);
    int shown[64], nshown = 0;
    for (int k = 0; k < res->nranking; k++) {
        int i = res->ranking[k];
        if (sp->origin_is_default && i == 0)
            continue;
        char name[32];
        if (i == res->best)
            snprintf(name, sizeof name, "best");
        else
            snprintf(name, sizeof name, "#%d", nshown + 1);
        row(out, name, of_point(&res->p[i]), r, d.t.median);
        shown[nshown++] = i;
    }
    if (r->ref_control >= 0)
        row(out, "defaults again", of_point(&res->ref[r->ref_control]), r, d.t.median);
    if (r->ref_native >= 0)
        row(out, "native MPI-IO", of_point(&res->ref[r->ref_native]), r, d.t.median);
    fprintf(out, "  (median and IQR of the confirm stage's interleaved runs; spread = IQR / median;\n"
                 "   speedup = median of ferry's defaults / median; MiB/s = bytes of one repetition / median;\n"
                 "   \"defaults again\": the A/A control, ferry's defaults run as if another configuration)\n");
    for (int k = 0; k < nshown; k++) {
        tune_space_describe(sp, res->p[shown[k]].v, desc, sizeof desc);
        if (shown[k] == res->best)
            fprintf(out, "  best: %s\n", desc);
        else
            fprintf(out, "  #%d:   %s\n", k + 1, desc);
    }

    /* ferry's defaults, as the default run reported them */
    fprintf(out, "\n  ferry's defaults here:");
    for (int dim = 0; dim < sp->ndims; dim++) {
        char def[256];
        tune_space_default_value(r->facts, sp->dim[dim].key, def, sizeof def);
        fprintf(out, " %s=%s", sp->dim[dim].key, def);
    }
    fprintf(out, "\n");
    if (r->facts->chosen_w[0])
        fprintf(out, "    auto chose for collective writes: %s (%s)\n", r->facts->chosen_w, r->facts->reason_w);
    if (r->facts->chosen_r[0])
        fprintf(out, "    auto chose for collective reads:  %s (%s)\n", r->facts->chosen_r, r->facts->reason_r);

    fprintf(out, "\n  noise: ferry's defaults spread %.0f%% (IQR/median over %d runs)", 100 * tune_rel_spread(&d.t), d.n);
    double spreads[64];
    int ns = 0;
    for (int k = 0; k < res->nranking && ns < 64; k++) {
        judged j = of_point(&res->p[res->ranking[k]]);
        if (j.n >= 3)
            spreads[ns++] = tune_rel_spread(&j.t);
    }
    if (ns) {
        tune_summary t;
        tune_summarize(spreads, ns, &t);
        fprintf(out, "; the finalists' median spread %.0f%%", 100 * t.median);
    }
    fprintf(out, "\n");
    char x1[32], x2[32], x3[32];
    if (v.speedup > 0) {
        ratio(x1, sizeof x1, v.speedup);
        ratio(x2, sizeof x2, v.lo);
        ratio(x3, sizeof x3, v.hi);
        fprintf(out, "  speedup vs ferry's defaults: %s (quartile range %s-%s)\n", x1, x2, x3);
    }
    if (r->ref_native >= 0) {
        judged n = of_point(&res->ref[r->ref_native]), b = of_point(&res->p[res->best]);
        if (n.ok && b.ok) {
            ratio(x1, sizeof x1, n.t.median / b.t.median);
            ratio(x2, sizeof x2, d.ok ? n.t.median / d.t.median : 0);
            fprintf(out, "  speedup vs native MPI-IO:    %s (ferry's defaults: %s)\n", x1, x2);
        }
    }
    int drift = 0;
    if (r->ref_control >= 0) {
        judged c = of_point(&res->ref[r->ref_control]);
        if (c.ok && d.ok) {
            double p1 = tune_mw_less(c.s, c.n, d.s, d.n), p2 = tune_mw_less(d.s, d.n, c.s, c.n);
            double p = 2 * (p1 < p2 ? p1 : p2);
            p = p > 1 ? 1 : p;
            drift = p <= r->opts->alpha;
            ratio(x1, sizeof x1, d.t.median / c.t.median);
            fprintf(out, "  A/A control: ferry's defaults measured twice as two configurations: %s apart (two-sided "
                         "p = %.4f)%s\n",
                    x1, p,
                    drift ? ": the two copies differ beyond noise, so the load changed while they ran; rerun "
                            "before trusting any difference"
                          : ": differences of this size are noise here");
        }
    }
    if (v.best_is_default)
        fprintf(out, "  verdict: ferry's defaults were the fastest configuration measured; no hints needed\n");
    else if (v.significant)
        fprintf(out, "  verdict: faster than ferry's defaults beyond noise (one-sided Mann-Whitney p = %.4f <= %.4f: "
                     "alpha %.2f over the %d configuration%s the best was chosen from)\n",
                v.p, v.alpha, r->opts->alpha, res->nranking > 2 ? res->nranking - 1 : 1,
                res->nranking > 2 ? "s" : "");
    else
        fprintf(out, "  verdict: WITHIN NOISE OF THE DEFAULT: the best found is %.2fx, p = %.4f (needs <= %.4f and a "
                     "gain of %.0f%%); keep ferry's defaults\n",
                v.speedup, v.p, v.alpha, 100 * r->opts->min_gain);
    if (r->hints_out) {
        fprintf(out, "\n  hints file: %s%s\n", r->hints_out,
                v.significant || (r->always_write && !v.best_is_default) ? "" : " (comments only: nothing to apply)");
        char cmd[8192];
        tune_command(r->run, 1, NULL, r->hints_out, cmd, sizeof cmd);
        fprintf(out, "  reproduce:  %s\n", cmd);
    }
    if (sp->notes[0])
        fprintf(out, "\n  not searched:\n%s", sp->notes);
    fflush(out);
}

int tune_write_samples(const tune_report *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "configuration,stage,confirm,seconds\n");
    char desc[2048];
    for (int i = 0; i < r->res->n; i++) {
        const tune_point *p = &r->res->p[i];
        tune_space_describe(r->space, p->v, desc, sizeof desc);
        for (int k = 0; k < p->n; k++) /* the confirm stage comes last: its samples end the list */
            fprintf(f, "\"%s\",%s,%d,%.9g\n", desc, p->stage, k >= p->n - p->cn, p->s[k]);
    }
    for (int k = 0; k < TUNE_MAX_REFS; k++) {
        const tune_point *p = &r->res->ref[k];
        const char *name = k == r->ref_native    ? "native MPI-IO"
                           : k == r->ref_default ? "ferry defaults"
                           : k == r->ref_control ? "defaults (A/A control)"
                                                 : "reference";
        for (int j = 0; j < p->n; j++)
            fprintf(f, "\"%s\",reference,%d,%.9g\n", name, j >= p->n - p->cn, p->s[j]);
    }
    return fclose(f) == 0 ? 0 : -1;
}
