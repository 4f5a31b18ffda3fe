/*
 * The operation kernels and their partial states: for every operation and
 * element type, folding the data in one pass, in many small chunks, and as
 * separate parts combined in a shuffled order must give the same result
 * (integers, histograms, lookups, top-k exactly; floating point within
 * 1e-9 of the magnitudes). This is what lets data processes split a read.
 */
#include "decouple/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

/* the user op of this test: sum of squares as double, and a count */
typedef struct { double s; int64_t n; } sq_state;
static int sq_fn(void *state, void *elems, MPI_Count n, MPI_Datatype type)
{
    (void)type;
    sq_state *s = state;
    for (MPI_Count i = 0; i < n; i++)
        s->s += ((double *)elems)[i] * ((double *)elems)[i];
    s->n += n;
    return MPI_SUCCESS;
}
static void sq_combine(void *into, const void *from)
{
    ((sq_state *)into)->s += ((const sq_state *)from)->s;
    ((sq_state *)into)->n += ((const sq_state *)from)->n;
}
static dc_user sq = {.name = "sq", .hash = 7, .fn = sq_fn, .combine = sq_combine, .state_size = sizeof(sq_state)};

/* the stand-ins for the registration table (ops_user.c) */
const dc_user *dc_user_get(int index) { return index == 0 ? &sq : NULL; }
MPI_Datatype dc_raw_type(int64_t esize) { (void)esize; return MPI_BYTE; }

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t locate(void *ctx, int64_t pos) { (void)ctx; return 1000 + pos; }

static void fill(dc_elem e, void *buf, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t r = (int64_t)(next() % 2001) - 1000; /* many equal values: top-k ties */
        switch (e) {
        case DC_ELEM_I32: ((int32_t *)buf)[i] = (int32_t)r; break;
        case DC_ELEM_I64: ((int64_t *)buf)[i] = r * 1000003; break;
        case DC_ELEM_F32: ((float *)buf)[i] = (float)r / 7.0f; break;
        default: ((double *)buf)[i] = (double)r / 7.0; break;
        }
    }
}

static int same_result(const dc_op *op, const char *a, const char *b, int64_t la, int64_t lb)
{
    if (la != lb)
        return 0;
    int fp = op->elem == DC_ELEM_F32 || op->elem == DC_ELEM_F64;
    int k = op->w.kind;
    if (fp && (k == DC_K_SUM || k == DC_K_MEAN || k == DC_K_VARIANCE)) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9;
    }
    if (k == DC_K_USER) {
        sq_state x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return x.n == y.n && fabs(x.s - y.s) <= 1e-9 * x.s;
    }
    if (!fp && k == DC_K_VARIANCE) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9;
    }
    return !memcmp(a, b, (size_t)la);
}

static void check_op(const dc_opwire *w, dc_elem e, int64_t esize, const char *name)
{
    const int64_t n = 50000;
    dc_op op;
    const char *why;
    if (dc_op_resolve(w, e, esize, &op, &why) != MPI_SUCCESS) {
        printf("FAIL %s: %s\n", name, why);
        fails++;
        return;
    }
    char *data = malloc((size_t)(n * esize));
    fill(e, data, n);
    char *copy = malloc((size_t)(n * esize));
    int64_t rs = dc_op_result_size(&op);
    char *r1 = malloc((size_t)rs + 16), *r2 = malloc((size_t)rs + 16), *r3 = malloc((size_t)rs + 16);
    void *s1 = malloc((size_t)op.state_size + 1), *s2 = malloc((size_t)op.state_size + 1);

    /* one pass */
    memcpy(copy, data, (size_t)(n * esize));
    dc_op_init(&op, s1);
    dc_op_update(&op, s1, copy, n, 0);
    int64_t l1 = dc_op_finish(&op, s1, locate, NULL, r1);

    /* many chunks of random sizes, one state */
    memcpy(copy, data, (size_t)(n * esize));
    dc_op_init(&op, s1);
    for (int64_t at = 0; at < n;) {
        int64_t k = 1 + (int64_t)(next() % 3000);
        if (k > n - at)
            k = n - at;
        dc_op_update(&op, s1, copy + at * esize, k, at * esize);
        at += k;
    }
    int64_t l2 = dc_op_finish(&op, s1, locate, NULL, r2);

    /* parts with their own states, combined in a shuffled order */
    enum { P = 7 };
    void *parts[P];
    int order[P];
    memcpy(copy, data, (size_t)(n * esize));
    for (int p = 0; p < P; p++) {
        parts[p] = malloc((size_t)op.state_size + 1);
        dc_op_init(&op, parts[p]);
        int64_t lo = n * p / P, hi = n * (p + 1) / P;
        dc_op_update(&op, parts[p], copy + lo * esize, hi - lo, lo * esize);
        order[p] = p;
    }
    for (int p = P - 1; p > 0; p--) {
        int q = (int)(next() % (uint64_t)(p + 1)), t = order[p];
        order[p] = order[q];
        order[q] = t;
    }
    dc_op_init(&op, s2);
    for (int p = 0; p < P; p++)
        dc_op_combine(&op, s2, parts[order[p]]);
    int64_t l3 = dc_op_finish(&op, s2, locate, NULL, r3);

    if (!same_result(&op, r1, r2, l1, l2) || !same_result(&op, r1, r3, l1, l3)) {
        printf("FAIL %s: one pass, chunks and combined parts differ (%lld/%lld/%lld bytes)\n", name, (long long)l1,
               (long long)l2, (long long)l3);
        fails++;
    }
    for (int p = 0; p < P; p++)
        free(parts[p]);
    free(data);
    free(copy);
    free(r1);
    free(r2);
    free(r3);
    free(s1);
    free(s2);
}

/* Folds n doubles (as float when f32) through w; returns the result's bytes. */
static int64_t fold_nan(const dc_opwire *w, int f32, const double *x, int64_t n, char *out)
{
    dc_op op;
    const char *why;
    if (dc_op_resolve(w, f32 ? DC_ELEM_F32 : DC_ELEM_F64, f32 ? 4 : 8, &op, &why) != MPI_SUCCESS)
        return -1;
    char data[64 * 8];
    for (int64_t i = 0; i < n; i++) {
        if (f32)
            ((float *)data)[i] = (float)x[i];
        else
            ((double *)data)[i] = x[i];
    }
    void *st = malloc((size_t)op.state_size + 1);
    dc_op_init(&op, st);
    dc_op_update(&op, st, data, n, 0);
    int64_t len = dc_op_finish(&op, st, locate, NULL, out);
    free(st);
    return len;
}

static double elem_at(int f32, const char *p)
{
    if (f32) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* NaN: never a minimum, maximum, match, top-k entry or histogram count;
 * it still counts as an element read. */
static void check_nan(int f32)
{
    const char *t = f32 ? "float" : "double";
    const double x[] = {1.5, NAN, -3, NAN, 7, 2};
    const int64_t n = 6;
    char out[4096];
    dc_opwire mn = {.kind = DC_K_MIN}, mx = {.kind = DC_K_MAX}, cnt = {.kind = DC_K_COUNT};
    int64_t l = fold_nan(&mn, f32, x, n, out);
    if (l != (f32 ? 4 : 8) || elem_at(f32, out) != -3) {
        printf("FAIL NaN %s: min is not -3\n", t);
        fails++;
    }
    l = fold_nan(&mx, f32, x, n, out);
    if (l != (f32 ? 4 : 8) || elem_at(f32, out) != 7) {
        printf("FAIL NaN %s: max is not 7\n", t);
        fails++;
    }
    int64_t c = 0;
    l = fold_nan(&cnt, f32, x, n, out);
    memcpy(&c, out, 8);
    if (l != 8 || c != 6) {
        printf("FAIL NaN %s: count %lld, expected 6\n", t, (long long)c);
        fails++;
    }
    const double only[] = {NAN, NAN};
    if (fold_nan(&mn, f32, only, 2, out) != 0) {
        printf("FAIL NaN %s: the minimum of NaNs alone must be nothing\n", t);
        fails++;
    }
    dc_opwire hist = {.kind = DC_K_HIST, .ival = 10, .a = -5, .b = 5};
    l = fold_nan(&hist, f32, x, n, out);
    int64_t h[10], binned = 0;
    memcpy(h, out, sizeof h);
    for (int b = 0; b < 10; b++)
        binned += h[b];
    if (l != 80 || binned != 3 || h[ferry_hist_bin(-3, 10, -5, 5)] != 1) {
        printf("FAIL NaN %s: histogram counted %lld, expected 3 (1.5, -3, 2)\n", t, (long long)binned);
        fails++;
    }
    dc_opwire look = {.kind = DC_K_LOOKUP, .cap = 10, .a = -100, .b = 100};
    dc_opwire top = {.kind = DC_K_TOPK, .ival = 5};
    for (int k = 0; k < 2; k++) {
        fold_nan(k ? &top : &look, f32, x, n, out);
        ferry_matches *m = (ferry_matches *)(void *)out;
        ferry_match *r = ferry_matches_at(m);
        int nan_kept = 0;
        for (int64_t i = 0; i < m->n; i++)
            nan_kept |= f32 ? isnan(r[i].value.f) : isnan(r[i].value.d);
        int64_t want_total = k ? 6 : 4; /* top-k: elements read; lookup: matches */
        int ok = m->total == want_total && m->n == 4 && !nan_kept;
        if (ok && k) /* largest first: 7, 2, 1.5, -3 at their offsets */
            ok = r[0].offset == locate(NULL, 4 * (f32 ? 4 : 8)) && r[3].offset == locate(NULL, 2 * (f32 ? 4 : 8));
        if (!ok) {
            printf("FAIL NaN %s: %s kept %lld of %lld%s\n", t, k ? "topk" : "lookup", (long long)m->n,
                   (long long)m->total, nan_kept ? ", a NaN among them" : "");
            fails++;
        }
    }
}

int main(void)
{
    check_nan(0);
    check_nan(1);
    static const char *en[] = {"raw", "int32", "int64", "float", "double"};
    static const int64_t es[] = {0, 4, 8, 4, 8};
    for (int e = DC_ELEM_I32; e <= DC_ELEM_F64; e++) {
        double scale = e == DC_ELEM_I64 ? 1000003 : e >= DC_ELEM_F32 ? 1.0 / 7 : 1;
        dc_opwire ws[] = {
            {.kind = DC_K_SUM}, {.kind = DC_K_MIN}, {.kind = DC_K_MAX}, {.kind = DC_K_COUNT},
            {.kind = DC_K_MEAN}, {.kind = DC_K_VARIANCE},
            {.kind = DC_K_HIST, .ival = 13, .a = -900 * scale, .b = 950 * scale},
            {.kind = DC_K_LOOKUP, .cap = 100, .a = -10.5 * scale, .b = 20.5 * scale},
            {.kind = DC_K_LOOKUP, .cap = 100000, .ival = 1, .a = 990 * scale},
            {.kind = DC_K_TOPK, .ival = 25},
        };
        static const char *kn[] = {"sum", "min", "max", "count", "mean", "variance", "histogram", "lookup",
                                   "threshold", "topk"};
        for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s %s", kn[k], en[e]);
            check_op(&ws[k], (dc_elem)e, es[e], name);
        }
    }
    dc_opwire u = {.kind = DC_K_USER, .user = 0, .namehash = 7};
    check_op(&u, DC_ELEM_F64, 8, "user sum of squares");
    /* a name that does not match the registration is refused */
    dc_opwire bad = {.kind = DC_K_USER, .user = 0, .namehash = 8};
    dc_op op;
    const char *why;
    if (dc_op_resolve(&bad, DC_ELEM_F64, 8, &op, &why) != MPI_ERR_OP) {
        printf("FAIL: a user operation registered under another name was accepted\n");
        fails++;
    }
    dc_opwire sum = {.kind = DC_K_SUM};
    if (dc_op_resolve(&sum, DC_ELEM_RAW, 12, &op, &why) != MPI_ERR_TYPE) {
        printf("FAIL: a sum over opaque records was accepted\n");
        fails++;
    }
    printf("test_dc_kernels: %s\n", fails ? "FAILED" : "passed");
    return fails != 0;
}
