/*
 * The search: baseline, screen (successive halving), refine (coordinate
 * descent with a significance test per move), confirm (round-robin). See
 * search.h for the contract; docs/tuning.md explains the choices.
 */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const tune_problem *pb;
    const tune_options *o;
    tune_result *r;
    double t0, deadline; /* absolute, in pb->now() seconds */
    double cost_sum;     /* seconds spent in measurements, for the estimate */
    int cost_n;
} search;

void tune_options_default(tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->budget = 600;
    o->min_samples = 3;
    o->max_samples = 8;
    o->alpha = 0.05;
    o->min_gain = 0.03;
    o->eta = 3;
    o->top = 4;
    o->screen_end = 0.45;
    o->refine_end = 0.75;
}

static double now(const search *s) { return s->pb->now(s->pb->ctx); }

/* Expected seconds of one measurement: the mean so far. */
static double estimate(const search *s) { return s->cost_n ? s->cost_sum / s->cost_n : 0; }

/* Starts a measurement only when one of a fifth longer than the mean fits:
 * a run killed at the deadline is time lost. */
static int time_for_one(const search *s, double stage_end)
{
    return now(s) + 1.2 * estimate(s) <= stage_end && now(s) < s->deadline;
}

static void describe(const search *s, const int *v, char *buf, size_t len)
{
    if (s->o->describe) {
        s->o->describe(s->pb->ctx, v, buf, len);
        return;
    }
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < s->pb->ndims && at + 8 < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", d ? "," : "", v[d]);
}

int tune_find(const tune_result *r, int ndims, const int *v)
{
    for (int i = 0; i < r->n; i++)
        if (!memcmp(r->p[i].v, v, sizeof(int) * (size_t)ndims))
            return i;
    return -1;
}

/* The index of point v (canonical form), adding it when new. */
static int intern(search *s, const int *v0, const char *stage)
{
    int v[TUNE_MAX_DIMS] = {0};
    memcpy(v, v0, sizeof(int) * (size_t)s->pb->ndims);
    if (s->pb->canon)
        s->pb->canon(s->pb->ctx, v);
    int i = tune_find(s->r, s->pb->ndims, v);
    if (i >= 0)
        return i;
    tune_result *r = s->r;
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 64;
        tune_point *p = realloc(r->p, sizeof *p * (size_t)cap);
        if (!p)
            return -1;
        r->p = p, r->cap = cap;
    }
    tune_point *p = &r->p[r->n];
    memset(p, 0, sizeof *p);
    memcpy(p->v, v, sizeof v);
    p->stage = stage;
    return r->n++;
}

static void push(double **s, int *n, int *cap, double x)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 8;
        double *t = realloc(*s, sizeof *t * (size_t)c);
        if (!t)
            return;
        *s = t, *cap = c;
    }
    (*s)[(*n)++] = x;
}

const double *tune_judged(const tune_point *p, int *n)
{
    if (p->cn >= TUNE_MIN_JUDGED) {
        *n = p->cn;
        return p->cs;
    }
    *n = p->n;
    return p->s;
}

static double median_of(const tune_point *p)
{
    int n;
    const double *x = tune_judged(p, &n);
    if (p->failed || n == 0)
        return INFINITY;
    tune_summary t;
    tune_summarize(x, n, &t);
    return t.median;
}

/* One more sample of point i (ref >= 0: of reference ref). Returns 0 when
 * taken, -1 when the run failed, 1 when out of time. */
static int sample(search *s, int i, int ref, double stage_end, const char *stage)
{
    if (!time_for_one(s, stage_end))
        return 1;
    tune_point *p = ref >= 0 ? &s->r->ref[ref] : &s->r->p[i];
    double t = now(s), left = s->deadline - t;
    double hang = estimate(s) > 0 ? 10 * estimate(s) + 30 : left;
    double cost = 0;
    int rc = ref >= 0 ? s->pb->measure_ref(s->pb->ctx, ref, hang < left ? hang : left, &cost)
                      : s->pb->measure(s->pb->ctx, p->v, hang < left ? hang : left, &cost);
    double took = now(s) - t;
    s->r->measurements++;
    s->cost_sum += took, s->cost_n++;
    p = ref >= 0 ? &s->r->ref[ref] : &s->r->p[i]; /* measure() never adds points, but be safe */
    if (rc != 0) {
        if (now(s) >= s->deadline - 1e-3)
            return 1; /* killed by the end of the budget, not the point's fault */
        p->failed = 1;
        s->r->failures++;
        if (s->o->log) {
            char d[512] = "";
            if (ref < 0)
                describe(s, p->v, d, sizeof d);
            const char *why = s->pb->last_error ? s->pb->last_error(s->pb->ctx) : NULL;
            fprintf(s->o->log, "[%7.1fs] %-8s %s: run failed, dropped%s%s\n", now(s) - s->t0, stage,
                    ref >= 0 ? (s->pb->ref_name[ref] ? s->pb->ref_name[ref] : "reference") : d, why ? ": " : "",
                    why ? why : "");
        }
        return -1;
    }
    if (p->n == 0)
        p->stage = stage; /* the stage that measured it first */
    push(&p->s, &p->n, &p->cap, cost);
    if (!strcmp(stage, "confirm"))
        push(&p->cs, &p->cn, &p->ccap, cost);
    if (s->o->log) {
        char d[512];
        snprintf(d, sizeof d, "%s", ref >= 0 && s->pb->ref_name[ref] ? s->pb->ref_name[ref] : "reference");
        if (ref < 0)
            describe(s, p->v, d, sizeof d);
        tune_summary t2;
        tune_summarize(p->s, p->n, &t2);
        fprintf(s->o->log, "[%7.1fs] %-8s %-50s %9.4f s  (n=%d, median %.4f)\n", now(s) - s->t0, stage, d, cost,
                p->n, t2.median);
        fflush(s->o->log);
    }
    return 0;
}

/* Samples point i until it has n samples; 0, or nonzero as sample(). */
static int fill(search *s, int i, int n, double stage_end, const char *stage)
{
    while (!s->r->p[i].failed && s->r->p[i].n < n) {
        int rc = sample(s, i, -1, stage_end, stage);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- screen: successive halving over a pool of variants ---- */

typedef struct {
    int *idx;
    int n, cap;
} list;

static void list_add(list *l, int i)
{
    for (int k = 0; k < l->n; k++)
        if (l->idx[k] == i)
            return;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        int *p = realloc(l->idx, sizeof *p * (size_t)cap);
        if (!p)
            return;
        l->idx = p, l->cap = cap;
    }
    l->idx[l->n++] = i;
}

static const search *sort_ctx;
static int by_median(const void *a, const void *b)
{
    double x = median_of(&sort_ctx->r->p[*(const int *)a]), y = median_of(&sort_ctx->r->p[*(const int *)b]);
    return x < y ? -1 : x > y;
}

static void rank(search *s, int *idx, int n)
{
    sort_ctx = s;
    qsort(idx, (size_t)n, sizeof *idx, by_median);
}

/* Samples successive halving takes for a pool of k (the origin already measured). */
static double sh_cost(const search *s, int k, int keep)
{
    double total = 0;
    int have = 0, want = 1;
    for (int n = k; n > 0;) {
        total += (double)n * (want - have);
        if (n <= keep)
            break;
        n = (n + s->o->eta - 1) / s->o->eta;
        if (n < keep)
            n = keep;
        have = want;
        want = want * s->o->eta > s->o->max_samples ? s->o->max_samples : want * s->o->eta;
        if (want == have)
            break;
    }
    return total;
}

static int screen(search *s, int origin, list *survivors)
{
    const tune_problem *pb = s->pb;
    double end = s->t0 + s->o->screen_end * s->o->budget;
    /* bases: the origin and the anchors */
    list bases = {0}, pool = {0};
    list_add(&bases, origin);
    for (int a = 0; a < pb->nanchors; a++) {
        int i = intern(s, pb->anchors[a], "screen");
        if (i >= 0)
            list_add(&bases, i);
    }
    for (int b = 1; b < bases.n; b++)
        list_add(&pool, bases.idx[b]);
    /* one-at-a-time variants, dimension by dimension (most important first),
     * around every base */
    for (int k = 0; k < pb->ndims; k++) {
        int d = pb->order[k];
        for (int b = 0; b < bases.n; b++)
            for (int x = 0; x < pb->nvals[d]; x++) {
                int v[TUNE_MAX_DIMS];
                memcpy(v, s->r->p[bases.idx[b]].v, sizeof v);
                if (v[d] == x)
                    continue;
                v[d] = x;
                int i = intern(s, v, "screen");
                if (i >= 0 && i != origin)
                    list_add(&pool, i);
            }
    }
    /* as many as the screen's share of the budget pays for */
    int keep = s->o->top < 2 ? 2 : s->o->top;
    double per = estimate(s) > 0 ? estimate(s) : 1, room = (end - now(s)) / per;
    int k = pool.n;
    while (k > 1 && sh_cost(s, k, keep) > room)
        k--;
    if (k < pool.n) {
        s->r->stopped_early = 1;
        if (s->o->log)
            fprintf(s->o->log, "[%7.1fs] screen   %d of %d variants fit the budget\n", now(s) - s->t0, k,
                    pool.n);
    }
    list cur = {0};
    list_add(&cur, origin);
    for (int i = 0; i < k; i++)
        list_add(&cur, pool.idx[i]);
    int want = 1, done = 0;
    while (!done) {
        for (int i = 0; i < cur.n && !done; i++)
            if (fill(s, cur.idx[i], want, end, "screen") > 0)
                done = 1;
        /* drop failures, rank, keep the best 1/eta */
        int m = 0;
        for (int i = 0; i < cur.n; i++)
            if (!s->r->p[cur.idx[i]].failed && s->r->p[cur.idx[i]].n > 0)
                cur.idx[m++] = cur.idx[i];
        cur.n = m;
        rank(s, cur.idx, cur.n);
        if (done || cur.n <= keep)
            break;
        int next = (cur.n + s->o->eta - 1) / s->o->eta;
        cur.n = next < keep ? keep : next;
        int w = want * s->o->eta > s->o->max_samples ? s->o->max_samples : want * s->o->eta;
        if (w == want)
            break;
        want = w;
    }
    if (done)
        s->r->stopped_early = 1;
    for (int i = 0; i < cur.n; i++)
        list_add(survivors, cur.idx[i]);
    free(cur.idx);
    free(bases.idx);
    free(pool.idx);
    return 0;
}

/* ---- refine: is challenger y faster than incumbent x? ---- */

static int challenge(search *s, int x, int y, double end, const char *stage)
{
    const tune_options *o = s->o;
    for (;;) {
        tune_point *px = &s->r->p[x], *py = &s->r->p[y];
        if (py->failed || px->failed)
            return py->failed ? 0 : 1;
        if (py->n == 0) {
            if (sample(s, y, -1, end, stage) > 0)
                return 0;
            continue;
        }
        tune_summary tx, ty;
        tune_summarize(px->s, px->n, &tx);
        tune_summarize(py->s, py->n, &ty);
        double noise = tune_rel_spread(&tx), margin = noise > o->min_gain ? noise : o->min_gain;
        if (py->n >= 2 && ty.min > tx.median * (1 + margin))
            return 0; /* clearly slower: even its fastest run (one outlier cannot decide this) */
        int rc;
        if (py->n < o->min_samples)
            rc = sample(s, y, -1, end, stage);
        else if (px->n < o->min_samples)
            rc = sample(s, x, -1, end, stage);
        else {
            if (ty.median >= tx.median)
                return 0;
            double gain = 1 - ty.median / tx.median;
            double p = tune_mw_less(py->s, py->n, px->s, px->n);
            if (p <= o->alpha && gain >= o->min_gain)
                return 1;
            if (py->n >= o->max_samples || gain < o->min_gain / 2)
                return 0; /* within noise, or not worth more samples */
            rc = sample(s, y, -1, end, stage);
            if (rc == 0 && s->r->p[x].n <= s->r->p[y].n)
                rc = sample(s, x, -1, end, stage); /* keep the two balanced */
        }
        if (rc > 0)
            return 0;
    }
}

static int refine(search *s, int origin, const list *survivors)
{
    const tune_problem *pb = s->pb;
    double end = s->t0 + s->o->refine_end * s->o->budget;
    int inc = origin;
    char d[512];
    /* the screen's survivors, best first, each against the incumbent */
    for (int k = 0; k < survivors->n && time_for_one(s, end); k++) {
        int y = survivors->idx[k];
        if (y != inc && challenge(s, inc, y, end, "refine")) {
            inc = y;
            if (s->o->log) {
                describe(s, s->r->p[inc].v, d, sizeof d);
                fprintf(s->o->log, "[%7.1fs] refine   incumbent: %s\n", now(s) - s->t0, d);
            }
        }
    }
    /* coordinate descent; after it settles, one more pass gives the close
     * calls of the last pass more samples */
    for (int pass = 0, settled = 0; pass < 6 && settled < 2 && time_for_one(s, end); pass++) {
        int changed = 0;
        for (int k = 0; k < pb->ndims && time_for_one(s, end); k++) {
            int dim = pb->order[k];
            for (int x = 0; x < pb->nvals[dim] && time_for_one(s, end); x++) {
                int v[TUNE_MAX_DIMS];
                memcpy(v, s->r->p[inc].v, sizeof v);
                if (v[dim] == x)
                    continue;
                v[dim] = x;
                int y = intern(s, v, "refine");
                if (y < 0 || y == inc || s->r->p[y].failed)
                    continue;
                if (challenge(s, inc, y, end, "refine")) {
                    inc = y;
                    changed = 1;
                    if (s->o->log) {
                        describe(s, s->r->p[inc].v, d, sizeof d);
                        fprintf(s->o->log, "[%7.1fs] refine   incumbent: %s\n", now(s) - s->t0, d);
                    }
                }
            }
        }
        settled = changed ? 0 : settled + 1;
    }
    if (!time_for_one(s, end))
        s->r->stopped_early = 1;
    return inc;
}

/* ---- confirm: round-robin over the finalists and the references ---- */

static void confirm(search *s, int origin, int inc)
{
    tune_result *r = s->r;
    list fin = {0};
    list_add(&fin, origin);
    list_add(&fin, inc);
    int *all = malloc(sizeof(int) * (size_t)(r->n ? r->n : 1));
    int m = 0;
    for (int i = 0; i < r->n; i++)
        if (!r->p[i].failed && r->p[i].n >= 2)
            all[m++] = i;
    rank(s, all, m);
    for (int i = 0; i < m && fin.n < 2 + s->o->top; i++)
        list_add(&fin, all[i]);
    free(all);
    /* as many finalists as the rest of the budget gives enough fresh samples */
    int want = s->o->min_samples + 2;
    double per = estimate(s) > 0 ? 1.2 * estimate(s) : 1, left = s->deadline - now(s);
    while (fin.n > 2 && left / (per * (fin.n + s->pb->nrefs)) < want)
        fin.n--;
    int target = 2 * (s->o->max_samples > s->o->min_samples ? s->o->max_samples : s->o->min_samples);
    for (int round = 1; round <= target; round++) {
        for (int k = 0; k < fin.n; k++)
            if (!r->p[fin.idx[k]].failed && r->p[fin.idx[k]].cn < round &&
                sample(s, fin.idx[k], -1, s->deadline, "confirm") > 0)
                goto out;
        for (int ref = 0; ref < s->pb->nrefs; ref++)
            if (!r->ref[ref].failed && r->ref[ref].cn < round && sample(s, -1, ref, s->deadline, "confirm") > 0)
                goto out;
    }
out:
    m = 0;
    for (int k = 0; k < fin.n && m < (int)(sizeof r->ranking / sizeof r->ranking[0]); k++)
        if (!r->p[fin.idx[k]].failed && r->p[fin.idx[k]].n > 0)
            r->ranking[m++] = fin.idx[k];
    rank(s, r->ranking, m);
    r->nranking = m;
    free(fin.idx);
}

int tune_search(const tune_problem *pb, const tune_options *o, tune_result *r)
{
    memset(r, 0, sizeof *r);
    search s = {.pb = pb, .o = o, .r = r};
    s.t0 = now(&s);
    s.deadline = s.t0 + o->budget;
    int origin = intern(&s, pb->origin, "default");
    if (origin != 0)
        return -1;
    /* baseline: the origin, then the references; the first samples also
     * tell how long one measurement takes */
    for (int k = 1; k <= o->min_samples; k++) {
        if (k > 1 && !time_for_one(&s, s.t0 + o->screen_end * o->budget))
            break;
        if (fill(&s, origin, k, s.deadline, "default") < 0 || r->p[origin].failed)
            return -1;
        for (int ref = 0; ref < pb->nrefs && k == 1; ref++)
            if (!r->ref[ref].failed)
                sample(&s, -1, ref, s.deadline, "baseline");
    }
    if (r->p[origin].n == 0)
        return -1;
    list survivors = {0};
    screen(&s, origin, &survivors);
    int inc = refine(&s, origin, &survivors);
    free(survivors.idx);
    confirm(&s, origin, inc);
    r->best = r->nranking ? r->ranking[0] : origin;
    int nb, nd;
    const double *b = tune_judged(&r->p[r->best], &nb), *d = tune_judged(&r->p[origin], &nd);
    r->p_value = r->best == origin ? 1 : tune_mw_less(b, nb, d, nd);
    double gain = 1 - median_of(&r->p[r->best]) / median_of(&r->p[origin]);
    /* the best is the fastest of several finalists: the test of it against
     * the origin pays for that choice (Bonferroni over the finalists) */
    int others = r->nranking > 2 ? r->nranking - 1 : 1;
    r->alpha_final = o->alpha / others;
    r->significant = r->best != origin && r->p_value <= r->alpha_final && gain >= o->min_gain;
    r->spent = now(&s) - s.t0;
    return 0;
}

void tune_result_free(tune_result *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->p[i].s);
        free(r->p[i].cs);
    }
    for (int i = 0; i < TUNE_MAX_REFS; i++) {
        free(r->ref[i].s);
        free(r->ref[i].cs);
    }
    free(r->p);
    memset(r, 0, sizeof *r);
}
