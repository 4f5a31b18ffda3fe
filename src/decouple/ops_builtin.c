/*
 * The built-in operations: kernels per element type, their partial states,
 * and how two partial states combine. A kernel folds a whole chunk at a
 * time, so the element loops stay free of dispatch.
 */
#include "decouple/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sum, min, max, count, mean and variance share one state. Variance uses
 * per-chunk two-pass moments combined with Chan's formula, which keeps the
 * error of one long pass from building up. */
typedef struct mom_state {
    int64_t n;
    uint64_t isum;  /* integers: modulo 2^64, so the wrap is defined */
    double dsum;
    int32_t have, pad;
    ferry_value min, max;
    double mean, m2;
} mom_state;

/* lookup and top-k: records keep stream positions; finish() turns them
 * into file offsets. */
typedef struct rec {
    int64_t pos;
    ferry_value v;
} rec;
typedef struct list_state {
    int64_t total, n, cap, pad;
} list_state;
static inline rec *recs(const void *s) { return (rec *)(void *)((list_state *)s + 1); }

static void moments_merge(mom_state *a, int64_t nb, double meanb, double m2b)
{
    if (nb == 0)
        return;
    if (a->n == 0) {
        a->mean = meanb;
        a->m2 = m2b;
        return;
    }
    double na = (double)a->n, n = na + (double)nb, d = meanb - a->mean;
    a->mean += d * (double)nb / n;
    a->m2 += m2b + d * d * na * (double)nb / n;
}

/* ---- value comparisons, by element type ---- */

static int val_less(dc_elem e, ferry_value a, ferry_value b)
{
    switch (e) {
    case DC_ELEM_I32: return a.i32 < b.i32;
    case DC_ELEM_I64: return a.i64 < b.i64;
    case DC_ELEM_F32: return a.f < b.f;
    default: return a.d < b.d;
    }
}

/* a ranks below b in a top-k: smaller, or equal and later in the file. */
static int rec_worse(dc_elem e, const rec *a, const rec *b)
{
    if (val_less(e, a->v, b->v))
        return 1;
    if (val_less(e, b->v, a->v))
        return 0;
    return a->pos > b->pos;
}

/* Min-heap on rec_worse: the root is the record a better one replaces. */
static void heap_down(dc_elem e, rec *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && rec_worse(e, &h[l], &h[m]))
            m = l;
        if (r < n && rec_worse(e, &h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        rec t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_up(dc_elem e, rec *h, int64_t i)
{
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!rec_worse(e, &h[i], &h[p]))
            return;
        rec t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static void topk_offer(dc_elem e, list_state *s, const rec *r)
{
    rec *h = recs(s);
    if (s->n < s->cap) {
        h[s->n] = *r;
        heap_up(e, h, s->n++);
    } else if (s->cap > 0 && rec_worse(e, &h[0], r)) {
        h[0] = *r;
        heap_down(e, h, s->n, 0);
    }
}

/* ---- kernels ---- */

/* A lookup scans blocks with a branch-free test first: matches are rare,
 * so almost every block is dismissed without a mispredicted branch, and only
 * a block holding a match is walked element by element. The bounds sit in
 * locals: a stored record could alias fields of the operation. */
#define LOOKUP_LOOP(T, F, TEST)                                                                \
    do {                                                                                       \
        rec *r = recs(s);                                                                      \
        int64_t kept = s->n, cap = s->cap, total = s->total;                                   \
        for (int64_t b = 0; b < n; b += 64) {                                                  \
            int64_t e = n - b < 64 ? n : b + 64, any = 0;                                      \
            for (int64_t i = b; i < e; i++)                                                    \
                any |= (TEST);                                                                 \
            if (!any)                                                                          \
                continue;                                                                      \
            for (int64_t i = b; i < e; i++) {                                                  \
                if (!(TEST))                                                                   \
                    continue;                                                                  \
                if (kept < cap) {                                                              \
                    r[kept].pos = pos0 + i * (int64_t)sizeof(T);                               \
                    memset(&r[kept].v, 0, sizeof r[kept].v);                                   \
                    r[kept].v.F = x[i];                                                        \
                    kept++;                                                                    \
                }                                                                              \
                total++;                                                                       \
            }                                                                                  \
        }                                                                                      \
        s->n = kept;                                                                           \
        s->total = total;                                                                      \
    } while (0)

#define KERNELS(SFX, T, F, ISINT, NOTNUM)                                                            \
    static void sum_##SFX(mom_state *s, const T *x, int64_t n)                                 \
    {                                                                                          \
        if (ISINT) {                                                                           \
            uint64_t acc = s->isum;                                                            \
            for (int64_t i = 0; i < n; i++)                                                    \
                acc += (uint64_t)(int64_t)x[i];                                                \
            s->isum = acc;                                                                     \
        } else {                                                                               \
            double acc = s->dsum;                                                              \
            for (int64_t i = 0; i < n; i++)                                                    \
                acc += (double)x[i];                                                           \
            s->dsum = acc;                                                                     \
        }                                                                                      \
    }                                                                                          \
    static void minmax_##SFX(mom_state *s, const T *x, int64_t n)                              \
    {                                                                                          \
        int64_t i = 0;                                                                         \
        if (!s->have) {                                                                        \
            while (i < n && NOTNUM(x[i])) /* NaN never counts */                                \
                i++;                                                                           \
            if (i == n)                                                                        \
                return;                                                                        \
            s->min.F = s->max.F = x[i];                                                        \
            s->have = 1;                                                                       \
        }                                                                                      \
        T lo = s->min.F, hi = s->max.F;                                                        \
        for (; i < n; i++) {                                                                   \
            if (x[i] < lo)                                                                     \
                lo = x[i];                                                                     \
            if (x[i] > hi)                                                                     \
                hi = x[i];                                                                     \
        }                                                                                      \
        s->min.F = lo;                                                                         \
        s->max.F = hi;                                                                         \
    }                                                                                          \
    static void var_##SFX(mom_state *s, const T *x, int64_t n)                                 \
    {                                                                                          \
        if (n == 0)                                                                            \
            return;                                                                            \
        double sum = 0;                                                                        \
        for (int64_t i = 0; i < n; i++)                                                        \
            sum += (double)x[i];                                                               \
        double mean = sum / (double)n, m2 = 0;                                                 \
        for (int64_t i = 0; i < n; i++) {                                                      \
            double d = (double)x[i] - mean;                                                    \
            m2 += d * d;                                                                       \
        }                                                                                      \
        moments_merge(s, n, mean, m2);                                                         \
    }                                                                                          \
    static void hist_##SFX(const dc_op *op, int64_t *bins, const T *x, int64_t n)              \
    {                                                                                          \
        double lo = op->w.a, sc = op->scale, nb = (double)op->w.ival;                          \
        for (int64_t i = 0; i < n; i++) {                                                      \
            double t = ((double)x[i] - lo) * sc;                                               \
            if (t >= 0 && t < nb)                                                              \
                bins[(int64_t)t]++;                                                            \
        }                                                                                      \
    }                                                                                          \
    static void lookup_##SFX(const dc_op *op, list_state *s, const T *x, int64_t n, int64_t pos0) \
    {                                                                                          \
        if (op->none)                                                                          \
            return;                                                                            \
        const int64_t ilo = op->imin, ihi = op->imax;                                          \
        const double lo = op->w.a, hi = op->w.b;                                               \
        if (ISINT)                                                                             \
            LOOKUP_LOOP(T, F, ((int64_t)x[i] >= ilo) & ((int64_t)x[i] <= ihi));                \
        else if (op->w.ival)                                                                   \
            LOOKUP_LOOP(T, F, (double)x[i] > lo);                                              \
        else                                                                                   \
            LOOKUP_LOOP(T, F, ((double)x[i] >= lo) & ((double)x[i] <= hi));                    \
    }                                                                                          \
    static void topk_##SFX(const dc_op *op, list_state *s, const T *x, int64_t n, int64_t pos0) \
    {                                                                                          \
        rec *h = recs(s);                                                                      \
        s->total += n;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                      \
            if (NOTNUM(x[i]))                                                                  \
                continue;                                                                      \
            /* the common case: not better than the current k-th */                           \
            if (s->n == s->cap && !(x[i] > h[0].v.F))                                          \
                continue;                                                                      \
            rec r;                                                                             \
            memset(&r, 0, sizeof r);                                                           \
            r.pos = pos0 + i * (int64_t)sizeof(T);                                             \
            r.v.F = x[i];                                                                      \
            topk_offer(op->elem, s, &r);                                                       \
        }                                                                                      \
    }

static inline int never(int64_t v) { (void)v; return 0; }
KERNELS(i32, int32_t, i32, 1, never)
KERNELS(i64, int64_t, i64, 1, never)
KERNELS(f32, float, f, 0, isnan)
KERNELS(f64, double, d, 0, isnan)

/* Calls the kernel NAME for op's element type on data. */
#define DISPATCH(NAME, op, ...)                                              \
    do {                                                                     \
        switch ((op)->elem) {                                                \
        case DC_ELEM_I32: NAME##_i32(__VA_ARGS__, (const int32_t *)data, n); break; \
        case DC_ELEM_I64: NAME##_i64(__VA_ARGS__, (const int64_t *)data, n); break; \
        case DC_ELEM_F32: NAME##_f32(__VA_ARGS__, (const float *)data, n); break;   \
        case DC_ELEM_F64: NAME##_f64(__VA_ARGS__, (const double *)data, n); break;  \
        default: break;                                                      \
        }                                                                    \
    } while (0)
#define DISPATCH_POS(NAME, op, ...)                                          \
    do {                                                                     \
        switch ((op)->elem) {                                                \
        case DC_ELEM_I32: NAME##_i32(__VA_ARGS__, (const int32_t *)data, n, pos0); break; \
        case DC_ELEM_I64: NAME##_i64(__VA_ARGS__, (const int64_t *)data, n, pos0); break; \
        case DC_ELEM_F32: NAME##_f32(__VA_ARGS__, (const float *)data, n, pos0); break;   \
        case DC_ELEM_F64: NAME##_f64(__VA_ARGS__, (const double *)data, n, pos0); break;  \
        default: break;                                                      \
        }                                                                    \
    } while (0)

static int is_numeric(dc_elem e) { return e != DC_ELEM_RAW; }

static int kind_needs_numbers(int k)
{
    return k == DC_K_SUM || k == DC_K_MIN || k == DC_K_MAX || k == DC_K_MEAN || k == DC_K_VARIANCE ||
           k == DC_K_HIST || k == DC_K_LOOKUP || k == DC_K_TOPK;
}

/* Inclusive integer bounds of a lookup, rounded inward. */
static void int_bounds(dc_op *op)
{
    const double two63 = 9223372036854775808.0;
    double lo, hi;
    if (op->w.ival) {
        lo = isinf(op->w.a) && op->w.a < 0 ? -INFINITY : floor(op->w.a) + 1;
        hi = INFINITY;
    } else {
        lo = ceil(op->w.a);
        hi = floor(op->w.b);
    }
    if (isnan(lo) || isnan(hi) || lo > hi || lo >= two63 || hi < -two63) {
        op->none = 1;
        return;
    }
    op->imin = lo < -two63 ? INT64_MIN : (int64_t)lo;
    op->imax = hi >= two63 ? INT64_MAX : (int64_t)hi;
}

int dc_op_resolve(const dc_opwire *w, dc_elem elem, int64_t esize, dc_op *op, const char **why)
{
    memset(op, 0, sizeof *op);
    op->w = *w;
    op->elem = elem;
    op->esize = esize;
    op->utype = MPI_DATATYPE_NULL;
    if (w->kind < 0 || w->kind >= DC_K_END) {
        *why = "unknown operation";
        return MPI_ERR_OP;
    }
    if (kind_needs_numbers(w->kind) && !is_numeric(elem)) {
        *why = "built-in operations need int32, int64, float or double elements";
        return MPI_ERR_TYPE;
    }
    switch (w->kind) {
    case DC_K_NULL:
        break;
    case DC_K_SUM: case DC_K_MIN: case DC_K_MAX: case DC_K_COUNT: case DC_K_MEAN: case DC_K_VARIANCE:
        op->state_size = sizeof(mom_state);
        break;
    case DC_K_HIST:
        if (w->ival < 1 || w->ival > (1 << 24) || !(w->a < w->b) || !isfinite(w->a) || !isfinite(w->b)) {
            *why = "histogram needs 1 to 2^24 bins and a finite range lo < hi";
            return MPI_ERR_ARG;
        }
        op->scale = (double)w->ival / (w->b - w->a);
        op->state_size = (int64_t)w->ival * (int64_t)sizeof(int64_t);
        break;
    case DC_K_LOOKUP:
        if (w->cap < 0 || w->cap > ((int64_t)1 << 26)) {
            *why = "lookup keeps 0 to 2^26 records";
            return MPI_ERR_ARG;
        }
        if (elem == DC_ELEM_I32 || elem == DC_ELEM_I64)
            int_bounds(op);
        else if (!w->ival && !(w->a <= w->b))
            op->none = 1;
        op->state_size = (int64_t)sizeof(list_state) + w->cap * (int64_t)sizeof(rec);
        break;
    case DC_K_TOPK:
        if (w->ival < 1 || w->ival > (1 << 24)) {
            *why = "top-k needs 1 <= k <= 2^24";
            return MPI_ERR_ARG;
        }
        op->state_size = (int64_t)sizeof(list_state) + (int64_t)w->ival * (int64_t)sizeof(rec);
        break;
    case DC_K_USER: {
        const dc_user *u = dc_user_get(w->user);
        if (!u || u->hash != w->namehash) {
            *why = "operation not registered here (register user operations on every process, in the same order)";
            return MPI_ERR_OP;
        }
        op->user = u;
        op->state_size = u->state_size;
        switch (elem) {
        case DC_ELEM_I32: op->utype = MPI_INT32_T; break;
        case DC_ELEM_I64: op->utype = MPI_INT64_T; break;
        case DC_ELEM_F32: op->utype = MPI_FLOAT; break;
        case DC_ELEM_F64: op->utype = MPI_DOUBLE; break;
        default: op->utype = dc_raw_type(esize); break;
        }
        if (op->utype == MPI_DATATYPE_NULL) {
            *why = "no datatype for the operation's elements";
            return MPI_ERR_INTERN;
        }
        break;
    }
    default:
        break;
    }
    return MPI_SUCCESS;
}

void dc_op_init(const dc_op *op, void *state)
{
    if (op->state_size > 0)
        memset(state, 0, (size_t)op->state_size);
    if (op->w.kind == DC_K_LOOKUP)
        ((list_state *)state)->cap = op->w.cap;
    else if (op->w.kind == DC_K_TOPK)
        ((list_state *)state)->cap = op->w.ival;
}

int dc_op_update(const dc_op *op, void *state, void *data, int64_t n, int64_t pos0)
{
    if (n <= 0)
        return MPI_SUCCESS;
    mom_state *m = state;
    switch (op->w.kind) {
    case DC_K_NULL:
        return MPI_SUCCESS;
    case DC_K_SUM:
    case DC_K_MEAN:
        m->n += n;
        DISPATCH(sum, op, m);
        return MPI_SUCCESS;
    case DC_K_MIN:
    case DC_K_MAX:
        m->n += n;
        DISPATCH(minmax, op, m);
        return MPI_SUCCESS;
    case DC_K_COUNT:
        m->n += n;
        return MPI_SUCCESS;
    case DC_K_VARIANCE:
        DISPATCH(var, op, m); /* merges n itself */
        m->n += n;
        return MPI_SUCCESS;
    case DC_K_HIST:
        DISPATCH(hist, op, op, (int64_t *)state);
        return MPI_SUCCESS;
    case DC_K_LOOKUP:
        DISPATCH_POS(lookup, op, op, (list_state *)state);
        return MPI_SUCCESS;
    case DC_K_TOPK:
        DISPATCH_POS(topk, op, op, (list_state *)state);
        return MPI_SUCCESS;
    case DC_K_USER: {
        int rc = op->user->fn(state, data, (MPI_Count)n, op->utype);
        return rc == MPI_SUCCESS ? rc : rc < 0 ? MPI_ERR_OTHER : rc;
    }
    default:
        return MPI_ERR_OP;
    }
}

/* Keeps the first cap records of two position-sorted lists. */
static void lookup_merge(list_state *a, const list_state *b)
{
    int64_t keep = a->n + b->n < a->cap ? a->n + b->n : a->cap;
    rec *tmp = keep > 0 ? malloc((size_t)keep * sizeof *tmp) : NULL;
    if (keep > 0 && !tmp)
        keep = a->n; /* out of memory: keep a's records, the total stays exact */
    const rec *x = recs(a), *y = recs(b);
    int64_t i = 0, j = 0, k = 0;
    if (tmp) {
        while (k < keep) {
            if (j >= b->n || (i < a->n && x[i].pos <= y[j].pos))
                tmp[k++] = x[i++];
            else
                tmp[k++] = y[j++];
        }
        memcpy(recs(a), tmp, (size_t)keep * sizeof *tmp);
        free(tmp);
    }
    a->n = keep;
    a->total += b->total;
}

void dc_op_combine(const dc_op *op, void *into, const void *from)
{
    mom_state *a = into;
    const mom_state *b = from;
    switch (op->w.kind) {
    case DC_K_SUM: case DC_K_MIN: case DC_K_MAX: case DC_K_COUNT: case DC_K_MEAN: case DC_K_VARIANCE:
        if (b->have) {
            if (!a->have) {
                a->min = b->min;
                a->max = b->max;
                a->have = 1;
            } else {
                if (val_less(op->elem, b->min, a->min))
                    a->min = b->min;
                if (val_less(op->elem, a->max, b->max))
                    a->max = b->max;
            }
        }
        a->isum += b->isum;
        a->dsum += b->dsum;
        moments_merge(a, b->n, b->mean, b->m2);
        a->n += b->n;
        break;
    case DC_K_HIST: {
        int64_t *x = into;
        const int64_t *y = from;
        for (int32_t i = 0; i < op->w.ival; i++)
            x[i] += y[i];
        break;
    }
    case DC_K_LOOKUP:
        lookup_merge(into, from);
        break;
    case DC_K_TOPK: {
        list_state *x = into;
        const list_state *y = from;
        for (int64_t i = 0; i < y->n; i++)
            topk_offer(op->elem, x, &recs(y)[i]);
        x->total += y->total;
        break;
    }
    case DC_K_USER:
        if (op->user->combine)
            op->user->combine(into, from);
        break;
    default:
        break;
    }
}

int dc_op_splittable(const dc_op *op)
{
    return op->w.kind != DC_K_USER || op->user->combine != NULL;
}

static int64_t value_size(dc_elem e)
{
    return e == DC_ELEM_I32 || e == DC_ELEM_F32 ? 4 : 8;
}

int64_t dc_op_result_size(const dc_op *op)
{
    switch (op->w.kind) {
    case DC_K_NULL: return 0;
    case DC_K_MIN: case DC_K_MAX: return value_size(op->elem);
    case DC_K_SUM: case DC_K_COUNT: case DC_K_MEAN: case DC_K_VARIANCE: return 8;
    case DC_K_HIST: return (int64_t)op->w.ival * 8;
    case DC_K_LOOKUP: return (int64_t)sizeof(ferry_matches) + op->w.cap * (int64_t)sizeof(ferry_match);
    case DC_K_TOPK: return (int64_t)sizeof(ferry_matches) + (int64_t)op->w.ival * (int64_t)sizeof(ferry_match);
    case DC_K_USER: return op->state_size;
    default: return 0;
    }
}

static const dc_op *sort_op; /* qsort has no context argument */
static int topk_order(const void *x, const void *y)
{
    const rec *a = x, *b = y;
    if (rec_worse(sort_op->elem, b, a))
        return -1;
    if (rec_worse(sort_op->elem, a, b))
        return 1;
    return 0;
}

static int64_t finish_list(const dc_op *op, const list_state *s, dc_locate_fn locate, void *ctx, void *out)
{
    rec *r = recs(s);
    if (op->w.kind == DC_K_TOPK) {
        sort_op = op;
        qsort(r, (size_t)s->n, sizeof *r, topk_order);
    }
    ferry_matches *m = out;
    m->total = s->total;
    m->n = s->n;
    ferry_match *o = ferry_matches_at(m);
    for (int64_t i = 0; i < s->n; i++) {
        o[i].offset = locate(ctx, r[i].pos);
        o[i].value = r[i].v;
    }
    return (int64_t)sizeof *m + s->n * (int64_t)sizeof *o;
}

int64_t dc_op_finish(const dc_op *op, const void *state, dc_locate_fn locate, void *ctx, void *out)
{
    const mom_state *m = state;
    int isint = op->elem == DC_ELEM_I32 || op->elem == DC_ELEM_I64;
    switch (op->w.kind) {
    case DC_K_NULL:
        return 0;
    case DC_K_SUM:
        if (isint) {
            int64_t v = (int64_t)m->isum;
            memcpy(out, &v, 8);
        } else {
            memcpy(out, &m->dsum, 8);
        }
        return 8;
    case DC_K_MIN:
    case DC_K_MAX: {
        if (!m->have)
            return 0;
        ferry_value v = op->w.kind == DC_K_MIN ? m->min : m->max;
        memcpy(out, &v, (size_t)value_size(op->elem));
        return value_size(op->elem);
    }
    case DC_K_COUNT:
        memcpy(out, &m->n, 8);
        return 8;
    case DC_K_MEAN: {
        double s = isint ? (double)(int64_t)m->isum : m->dsum;
        double v = m->n ? s / (double)m->n : NAN;
        memcpy(out, &v, 8);
        return 8;
    }
    case DC_K_VARIANCE: {
        double v = m->n ? m->m2 / (double)m->n : NAN;
        memcpy(out, &v, 8);
        return 8;
    }
    case DC_K_HIST:
        memcpy(out, state, (size_t)op->state_size);
        return op->state_size;
    case DC_K_LOOKUP:
    case DC_K_TOPK:
        return finish_list(op, state, locate, ctx, out);
    case DC_K_USER:
        if (op->state_size > 0)
            memcpy(out, state, (size_t)op->state_size);
        return op->state_size;
    default:
        return 0;
    }
}

int dc_op_transform(const dc_op *op, void *data, int64_t n)
{
    if (op->w.kind == DC_K_NULL || n <= 0)
        return MPI_SUCCESS;
    if (op->w.kind != DC_K_USER)
        return MPI_ERR_OP;
    void *scratch = op->state_size > 0 ? calloc(1, (size_t)op->state_size) : NULL;
    if (op->state_size > 0 && !scratch)
        return MPI_ERR_NO_MEM;
    int rc = op->user->fn(scratch, data, (MPI_Count)n, op->utype);
    free(scratch);
    return rc == MPI_SUCCESS ? rc : rc < 0 ? MPI_ERR_OTHER : rc;
}
