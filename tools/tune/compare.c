/*
 * --compare HINTS: the held-out check of a hints file. The search's own
 * confirm stage judges the best on samples taken during the search; this
 * runs the workload again, later, under ferry's defaults, under the hints
 * file exactly as a user would apply it (FERRY_HINTS_FILE, read by rank 0)
 * and natively, in rotating order so that a drift of the machine's load
 * hits all three alike, and reports the medians and the ratios of one run.
 */
#define _GNU_SOURCE /* setenv, realpath */
#include "tune.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { CMP_DEFAULTS, CMP_TUNED, CMP_NATIVE, CMP_N };
static const char *const cmp_name[CMP_N] = {"ferry defaults", "tuned (hints file)", "native MPI-IO"};

typedef struct {
    double s[1024];
    int n;
    tune_summary t;
} series;

/* The "key value" lines a hints file applies, as "k=v k=v" ("none" when it
 * holds only comments, as ferry-tune writes it for a result within noise). */
static int applied(const char *path, char *buf, size_t len)
{
    char *text = tj_read_file(path, NULL);
    if (!text)
        return -1;
    size_t at = 0;
    int n = 0;
    buf[0] = '\0';
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char k[256], v[768];
        if (line[0] == '#' || sscanf(line, "%255s %767s", k, v) != 2 || at >= len)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", n ? " " : "", k, v);
        n++;
    }
    if (!n)
        snprintf(buf, len, "none (the file holds only comments)");
    free(text);
    return n;
}

static int one(const tune_run_cfg *run, int which, const char *fixed, const char *hints_file, double timeout,
               double *cost, FILE *out)
{
    if (which == CMP_TUNED)
        setenv("FERRY_HINTS_FILE", hints_file, 1);
    tune_run_out o;
    int rc = tune_run(run, which != CMP_NATIVE, fixed, timeout, &o);
    unsetenv("FERRY_HINTS_FILE");
    if (rc == 0)
        *cost = o.cost;
    else
        fprintf(out, "ferry-tune: --compare: a run under %s failed: %s\n", cmp_name[which], o.err);
    tune_run_out_free(&o);
    return rc;
}

int tune_compare(tune_run_cfg *run, const char *hints_file, int rounds, int native, FILE *out)
{
    char path[PATH_MAX], active[2048];
    if (!realpath(hints_file, path) || applied(path, active, sizeof active) < 0) {
        fprintf(stderr, "ferry-tune: --compare: cannot read %s\n", hints_file);
        return 2;
    }
    char fixed[600] = "";
    if (run->fixed[0])
        snprintf(fixed, sizeof fixed, "*:%s", run->fixed);
    if (run->reps == 0) {
        /* one launch under ferry's defaults, also the file system's warm-up */
        tune_run_cfg probe = *run;
        probe.reps = 1;
        probe.warmup = 0;
        tune_run_out o;
        if (tune_run(&probe, 1, fixed, 600, &o) != 0) {
            fprintf(stderr, "ferry-tune: --compare: %s: %s\n",
                    o.refused ? "ferry-bench refused the workload (the pattern or its options after --)"
                              : "the workload does not run under ferry's defaults", o.err);
            int rc = o.refused ? 2 : 1;
            tune_run_out_free(&o);
            return rc;
        }
        run->reps = tune_auto_reps(o.cost, o.wall);
        tune_run_out_free(&o);
    }
    int k = native ? CMP_N : CMP_NATIVE;
    static series ser[CMP_N];
    memset(ser, 0, sizeof ser);
    double spent = 0;
    int launches = 0;
    if (rounds > (int)(sizeof ser[0].s / sizeof ser[0].s[0]))
        rounds = (int)(sizeof ser[0].s / sizeof ser[0].s[0]);
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < k; j++) {
            int which = (r + j) % k; /* rotate: no configuration always runs first */
            double mean = launches ? spent / launches : 0, timeout = launches ? 10 * mean + 60 : 600, cost;
            double t0 = tune_wall();
            if (one(run, which, fixed, path, timeout, &cost, stderr) != 0)
                return 1;
            spent += tune_wall() - t0;
            launches++;
            series *s = &ser[which];
            s->s[s->n++] = cost;
        }
    for (int j = 0; j < k; j++)
        tune_summarize(ser[j].s, ser[j].n, &ser[j].t);

    fprintf(out, "\nferry-tune --compare: %d rounds in rotating order, %d repetition%s per launch, metric %s\n",
            rounds, run->reps, run->reps == 1 ? "" : "s", tune_metric_name(run->metric));
    fprintf(out, "  hints file %s applies: %s\n", path, active);
    fprintf(out, "  %-20s %9s  %-19s %6s  %3s  %s\n", "configuration", "median s", "IQR s", "spread", "n",
            "speedup vs defaults");
    double d = ser[CMP_DEFAULTS].t.median;
    for (int j = 0; j < k; j++) {
        const tune_summary *t = &ser[j].t;
        fprintf(out, "  %-20s %9.4f  %9.4f-%-9.4f %5.0f%%  %3d  %.2fx\n", cmp_name[j], t->median, t->q1, t->q3,
                100 * tune_rel_spread(t), t->n, t->median > 0 ? d / t->median : 0);
    }
    const series *a = &ser[CMP_DEFAULTS], *b = &ser[CMP_TUNED];
    double faster = tune_mw_less(b->s, b->n, a->s, a->n), slower = tune_mw_less(a->s, a->n, b->s, b->n);
    double speedup = b->t.median > 0 ? d / b->t.median : 0;
    fprintf(out, "  tuned vs defaults: %.2fx (quartile range %.2fx-%.2fx); one-sided Mann-Whitney p = %.4f that the "
                 "hints are faster, p = %.4f that they are slower\n",
            speedup, b->t.q3 > 0 ? a->t.q1 / b->t.q3 : 0, b->t.q1 > 0 ? a->t.q3 / b->t.q1 : 0, faster, slower);
    if (native)
        fprintf(out, "  vs native MPI-IO: tuned %.2fx, ferry's defaults %.2fx\n",
                b->t.median > 0 ? ser[CMP_NATIVE].t.median / b->t.median : 0,
                d > 0 ? ser[CMP_NATIVE].t.median / d : 0);
    /* one line for scripts (tools/tune/speedup.sh) */
    fprintf(out, "compare: defaults=%.6f tuned=%.6f native=%.6f speedup=%.4f p_faster=%.4f p_slower=%.4f n=%d\n", d,
            b->t.median, native ? ser[CMP_NATIVE].t.median : 0.0, speedup, faster, slower, b->t.n);
    return 0;
}
