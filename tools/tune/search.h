/*
 * The search of ferry-tune, free of MPI and of ferry: it sees a space of
 * dimensions with a few values each, and a measure callback that returns one
 * noisy cost sample (seconds, lower is better) of a point. The same code runs
 * against ferry-bench (runner.c) and against synthetic cost functions in the
 * tests (tests/tune/t_tune_search.c).
 *
 *   baseline   the origin (ferry's defaults) and the references (native
 *              MPI-IO) get min_samples each;
 *   screen     a pool of one-at-a-time variants, of anchors and of variants
 *              around the anchors, ranked by successive halving;
 *   refine     coordinate descent from the screen's winner: a value replaces
 *              the incumbent's only when a one-sided Mann-Whitney test says
 *              it is faster (p <= alpha) by at least min_gain;
 *   confirm    the default, the best, the runners-up and the references are
 *              sampled round-robin (so slow drifts of the machine's load hit
 *              them alike) until the budget ends.
 */
#ifndef FERRY_TUNE_SEARCH_H
#define FERRY_TUNE_SEARCH_H

#include <stdio.h>

#define TUNE_MAX_DIMS 32
#define TUNE_MAX_ANCHORS 8
#define TUNE_MAX_REFS 4

/* ---- sample statistics (stat.c) ---- */

typedef struct {
    int n;
    double median, q1, q3, min, max;
} tune_summary;

void tune_summarize(const double *s, int n, tune_summary *out);
/* Spread relative to the median: (q3 - q1) / median (0 with fewer than 2 samples). */
double tune_rel_spread(const tune_summary *t);
/* One-sided Mann-Whitney test: the p-value of "a tends to be smaller than b".
 * Exact for small samples, normal approximation beyond. 1 when a or b is empty. */
double tune_mw_less(const double *a, int na, const double *b, int nb);

/* ---- the problem ---- */

typedef struct {
    int ndims;
    int nvals[TUNE_MAX_DIMS];   /* values per dimension, at least 1 */
    int origin[TUNE_MAX_DIMS];  /* ferry's defaults: where the search starts */
    /* base points the screen varies around besides the origin, e.g. "every
     * collective strategy set to twophase" */
    int nanchors;
    int anchors[TUNE_MAX_ANCHORS][TUNE_MAX_DIMS];
    /* dimensions in the order the screen and the descent visit them */
    int order[TUNE_MAX_DIMS];
    int nrefs;                  /* reference runs outside the space (native MPI-IO) */
    /* One sample of point v; timeout: seconds it may take at most. Returns 0
     * and *cost, or -1 when the run failed (the point is then dropped). */
    int (*measure)(void *ctx, const int *v, double timeout, double *cost);
    int (*measure_ref)(void *ctx, int ref, double timeout, double *cost);
    /* Rewrites v to its canonical form (values that cannot matter reset to
     * the origin's), so equivalent points are measured once. May be NULL. */
    void (*canon)(void *ctx, int *v);
    double (*now)(void *ctx);   /* seconds */
    /* why the last measurement failed (may be NULL) */
    const char *(*last_error)(void *ctx);
    const char *ref_name[TUNE_MAX_REFS]; /* for the log */
    void *ctx;
} tune_problem;

typedef struct {
    double budget;      /* seconds from the start of tune_search */
    int min_samples;    /* before two points are compared (default 3) */
    int max_samples;    /* per point in the descent (default 8) */
    double alpha;       /* significance of an improvement (default 0.05) */
    double min_gain;    /* relative improvement worth taking (default 0.03) */
    int eta;            /* successive halving keeps 1/eta per round (default 3) */
    int top;            /* runners-up confirmed with the best (default 4) */
    double screen_end, refine_end; /* fractions of the budget (default 0.45, 0.75) */
    FILE *log;          /* progress lines, or NULL */
    /* how a point is printed in the log; may be NULL */
    void (*describe)(void *ctx, const int *v, char *buf, size_t len);
} tune_options;

void tune_options_default(tune_options *o);

typedef struct {
    int v[TUNE_MAX_DIMS];
    double *s;          /* samples */
    int n, cap;
    double *cs;         /* the samples of the confirm stage alone: fresh, */
    int cn, ccap;       /* interleaved, free of the screen's selection */
    int failed;
    const char *stage;  /* the stage that measured it first */
} tune_point;

typedef struct {
    tune_point *p;      /* every point measured; p[0] is the origin */
    int n, cap;
    tune_point ref[TUNE_MAX_REFS];
    int best;           /* index into p */
    int ranking[64];    /* the confirmed points, best first */
    int nranking;
    double p_value;     /* Mann-Whitney: best faster than the origin */
    double alpha_final; /* alpha over the number of finalists the best was chosen from */
    int significant;    /* p_value <= alpha_final and gain >= min_gain */
    double spent;       /* seconds */
    int measurements;   /* samples taken, failures included */
    int failures;
    int stopped_early;  /* the budget ended a stage before it was done */
} tune_result;

/* Runs the search. Returns 0, or -1 when the origin itself cannot be measured. */
int tune_search(const tune_problem *pb, const tune_options *o, tune_result *r);
void tune_result_free(tune_result *r);
/* The samples a point is judged by: the confirm stage's when it has
 * TUNE_MIN_JUDGED or more (fresh, interleaved, not the ones it was selected
 * on), else all of them. */
#define TUNE_MIN_JUDGED 3
const double *tune_judged(const tune_point *p, int *n);
/* The point of r with coordinates v, or -1. */
int tune_find(const tune_result *r, int ndims, const int *v);

#endif
