/*
 * What one collective call looks like, locally and across ranks. The local
 * part is this rank's file runs; the global part comes from one allreduce,
 * which also carries argument errors so a bad call stops before any rank
 * touches the file.
 */
#ifndef FERRY_STRATEGY_PATTERN_H
#define FERRY_STRATEGY_PATTERN_H

#include "strategy/strategy.h"

typedef struct ferry_run {
    int64_t off, len;
} ferry_run;

/* This rank's file runs of one call, in data order (so in file order: views
 * are monotonic). */
typedef struct ferry_runs {
    ferry_run *v;
    int64_t n, cap;
    int64_t bytes;
    int64_t lo, hi;          /* extent, [lo, hi); lo = INT64_MAX when empty */
} ferry_runs;

int ferry_runs_build(ferry_runs *r, const ferry_view *v, int64_t pos, int64_t bytes);
void ferry_runs_free(ferry_runs *r);

/* Global summary of a call. */
typedef struct ferry_pattern {
    int err;                 /* max error class over ranks */
    int64_t lo, hi;          /* global extent */
    int64_t bytes;           /* total bytes */
    int64_t runs;            /* total file runs */
    int64_t max_rank_bytes;
    int64_t span_sum;        /* sum over ranks of (hi - lo): > hi - lo means ranks interleave */
    int64_t active;          /* ranks with data */
    int repeats;             /* every rank's runs are its last call's moved by `shift` */
    int64_t shift;
} ferry_pattern;

/* Collective over f->comm. `last`: this rank's runs of the last call on the
 * file in this direction, or NULL. */
int ferry_pattern_agree(ferry_file *f, int local_err, const ferry_runs *r, const ferry_runs *last,
                        ferry_pattern *p);
/* Copies r into *to (freeing what *to held); MPI_SUCCESS or MPI_ERR_NO_MEM. */
int ferry_runs_copy(ferry_runs *to, const ferry_runs *r);

#endif
