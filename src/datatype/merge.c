/* Growable segment lists. Every append looks only at the last two segments,
 * so building a list is linear in the appends:
 *   - a block that starts where the previous block ends extends it (a strided
 *     tail segment gives up its last block for this);
 *   - a block of the same length as the tail segment, one step further on,
 *     extends the tail into (or along) a strided segment.
 * The result keeps typemap order and never has two touching consecutive blocks. */
#include "datatype/flat_internal.h"

#include <stdlib.h>
#include <string.h>

int64_t ferry_sl_extrapolations;

void ferry_sl_free(ferry_seglist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int push(ferry_seglist *l, ferry_seg s)
{
    if (l->n == l->cap) {
        if (l->n >= FERRY_FLAT_MAX_SEGS)
            return MPI_ERR_NO_MEM;
        int64_t cap = l->cap ? l->cap * 2 : 8;
        if (cap > FERRY_FLAT_MAX_SEGS)
            cap = FERRY_FLAT_MAX_SEGS;
        ferry_seg *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return MPI_ERR_NO_MEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return MPI_SUCCESS;
}

static inline int64_t last_start(const ferry_seg *s)
{
    return s->off + (s->count - 1) * s->stride;
}

/* Try to absorb the last segment into the one before it. */
static void fuse_tail(ferry_seglist *l)
{
    if (l->n < 2)
        return;
    ferry_seg *z = &l->v[l->n - 2], *y = &l->v[l->n - 1];
    if (z->len != y->len)
        return;
    if (z->count == 1) {
        int64_t step = y->off - z->off;
        if (step == z->len)
            return; /* touching: cannot happen after merging, keep both */
        if (y->count == 1) {
            z->count = 2;
            z->stride = step;
            l->n--;
        } else if (step == y->stride) {
            z->count = y->count + 1;
            z->stride = step;
            l->n--;
        }
        return;
    }
    /* z strided: y must continue its progression */
    if (y->count > 1 && y->stride != z->stride)
        return;
    int64_t next;
    if (!ferry_mul64(z->count, z->stride, &next) || !ferry_add64(next, z->off, &next))
        return;
    if (y->off == next) {
        z->count += y->count;
        l->n--;
    }
}

int ferry_sl_append(ferry_seglist *l, int64_t off, int64_t len, int64_t count, int64_t stride)
{
    if (len <= 0 || count <= 0)
        return MPI_SUCCESS;
    int64_t span;
    /* every block's address must fit: off + (count-1)*stride + len */
    if (!ferry_mul64(count - 1, stride, &span) || !ferry_add64(off, span, &span) ||
        !ferry_add64(span, len, &span) || !ferry_add64(off, len, &span))
        return MPI_ERR_TYPE;
    if (count > 1 && stride == len) {
        if (!ferry_mul64(len, count, &len))
            return MPI_ERR_TYPE;
        count = 1;
    }
    if (count == 1)
        stride = 0;
    ferry_seg x = {off, len, count, stride};
    int rc;

    if (l->n > 0) {
        ferry_seg *y = &l->v[l->n - 1];
        int64_t ylast = last_start(y);
        if (ylast + y->len == x.off) {
            /* x's first block continues y's last block */
            if (y->count > 1) {
                ferry_seg b = {ylast, y->len, 1, 0};
                y->count--;
                if (y->count == 1)
                    y->stride = 0;
                if ((rc = push(l, b)) != MPI_SUCCESS)
                    return rc;
                y = &l->v[l->n - 1];
            }
            if (!ferry_add64(y->len, x.len, &y->len))
                return MPI_ERR_TYPE;
            fuse_tail(l);
            if (x.count == 1)
                return MPI_SUCCESS;
            x.off += x.stride;
            x.count--;
            if (x.count == 1)
                x.stride = 0;
            /* x's new first block cannot touch: x.stride != x.len */
        }
    }
    if ((rc = push(l, x)) != MPI_SUCCESS)
        return rc;
    fuse_tail(l);
    return MPI_SUCCESS;
}

/* Steady state of a replication. When copies of a multi-segment pattern
 * touch, each copy often only lengthens some strided segments by one block
 * and shifts the segments after them by the copy stride, leaving the list
 * length unchanged. Appends depend only on the tail of the list, relative to
 * the incoming blocks, so once two consecutive copies made the same change
 * (growing segments at least 3 blocks long, so no count-1 special case can
 * differ) every further copy makes it too: the rest is applied at once. */
typedef struct period {
    int64_t w;         /* window: the last w segments */
    int64_t we;        /* of which the last snapshots hold we (n equal => same we) */
    int64_t n[3];      /* list length after the last three copies */
    ferry_seg *s[3];   /* their windows, oldest first */
    int have;          /* snapshots taken */
    signed char *kind; /* per window slot: 0 same, 1 grown, 2 shifted (2 steps) */
} period;

static void period_init(period *p, int64_t nsrc)
{
    p->w = nsrc + 4;
    p->we = 0;
    p->have = 0;
    p->kind = NULL;
    p->n[0] = p->n[1] = p->n[2] = -1;
    for (int i = 0; i < 3; i++)
        p->s[i] = NULL;
}

static void period_free(period *p)
{
    for (int i = 0; i < 3; i++)
        free(p->s[i]);
    free(p->kind);
}

/* How window a became window b, slot by slot; 0 if not a steady step. */
static int classify(const period *p, const ferry_seg *a, const ferry_seg *b, int64_t stride,
                    int64_t pbytes, signed char *kind)
{
    int64_t grown = 0;
    for (int64_t i = 0; i < p->we; i++) {
        const ferry_seg *x = &a[i], *y = &b[i];
        if (x->off == y->off && x->len == y->len && x->count == y->count && x->stride == y->stride)
            kind[i] = 0;
        else if (x->off == y->off && x->len == y->len && y->count == x->count + 1 && x->count >= 3 &&
                 x->stride == y->stride && y->stride == stride)
            kind[i] = 1, grown += y->len;
        else if (y->off - x->off == stride && x->len == y->len && x->count == y->count && x->stride == y->stride)
            kind[i] = 2;
        else
            return 0;
    }
    return grown == pbytes; /* the copy's bytes all went into growth */
}

/* Record the state after a copy; 1 when the last two copies were the same
 * steady step (p->kind then says what each slot does per copy). */
static int period_step(period *p, const ferry_seglist *l, int64_t minn, int64_t stride, int64_t pbytes)
{
    if (p->w == INT64_MAX)
        return 0; /* disabled */
    /* every segment the copy touched must lie in the window (a list no
     * longer than the window is all window) */
    if (l->n > p->w && minn < l->n - p->w + 4) {
        p->have = 0;
        return 0;
    }
    if (!p->kind) {
        p->kind = malloc(2 * (size_t)p->w);
        for (int i = 0; i < 3; i++)
            p->s[i] = malloc((size_t)p->w * sizeof(ferry_seg));
        if (!p->kind || !p->s[0] || !p->s[1] || !p->s[2]) {
            p->w = INT64_MAX; /* give up on periodicity */
            return 0;
        }
    }
    ferry_seg *t = p->s[0];
    p->s[0] = p->s[1], p->s[1] = p->s[2], p->s[2] = t;
    p->n[0] = p->n[1], p->n[1] = p->n[2];
    p->we = l->n < p->w ? l->n : p->w;
    memcpy(p->s[2], l->v + l->n - p->we, (size_t)p->we * sizeof(ferry_seg));
    p->n[2] = l->n;
    if (p->have < 3)
        p->have++;
    if (p->have < 3 || p->n[0] != p->n[2] || p->n[1] != p->n[2])
        return 0;
    /* this copy and the one before made the same change */
    signed char *k1 = p->kind + p->w, *k2 = p->kind;
    return classify(p, p->s[1], p->s[2], stride, pbytes, k2) &&
           classify(p, p->s[0], p->s[1], stride, pbytes, k1) && memcmp(k1, k2, (size_t)p->we) == 0;
}

/* Apply r more steady copies to the window at the tail of l. */
static int period_extrapolate(const period *p, ferry_seglist *l, int64_t r, int64_t stride)
{
    ferry_seg *v = l->v + l->n - p->we;
    for (int64_t i = 0; i < p->we; i++) {
        int64_t end, shift;
        if (p->kind[i] == 1) {
            if (!ferry_add64(v[i].count, r, &v[i].count))
                return MPI_ERR_TYPE;
        } else if (p->kind[i] == 2) {
            if (!ferry_mul64(r, stride, &shift) || !ferry_add64(v[i].off, shift, &v[i].off))
                return MPI_ERR_TYPE;
        } else {
            continue;
        }
        /* every block must still be addressable */
        if (!ferry_mul64(v[i].count - 1, v[i].stride, &end) || !ferry_add64(end, v[i].off, &end) ||
            !ferry_add64(end, v[i].len, &end))
            return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}

int ferry_sl_replicate(ferry_seglist *l, const ferry_seg *src, int64_t nsrc, int64_t n,
                       int64_t stride, int64_t disp)
{
    if (n <= 0 || nsrc <= 0)
        return MPI_SUCCESS;
    int64_t off, tot;
    if (nsrc == 1) {
        const ferry_seg *s = src;
        if (!ferry_add64(s->off, disp, &off))
            return MPI_ERR_TYPE;
        if (n == 1)
            return ferry_sl_append(l, off, s->len, s->count, s->stride);
        if (s->count == 1)
            return ferry_sl_append(l, off, s->len, n, stride);
        /* copies continue the progression: one longer strided segment */
        if (ferry_mul64(s->count, s->stride, &tot) && tot == stride &&
            ferry_mul64(s->count, n, &tot))
            return ferry_sl_append(l, off, s->len, tot, s->stride);
    }
    /* Appending into the list being read would invalidate src. */
    if (l->v && src >= l->v && src < l->v + l->cap)
        return MPI_ERR_INTERN;
    int64_t pbytes = 0;
    for (int64_t i = 0; i < nsrc; i++)
        pbytes += src[i].len * src[i].count;
    period pd;
    period_init(&pd, nsrc);
    int rc = MPI_SUCCESS;
    for (int64_t k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int64_t d;
        if (!ferry_mul64(k, stride, &d) || !ferry_add64(d, disp, &d)) {
            rc = MPI_ERR_TYPE;
            break;
        }
        int64_t minn = l->n;
        for (int64_t i = 0; i < nsrc && rc == MPI_SUCCESS; i++) {
            if (!ferry_add64(src[i].off, d, &off))
                rc = MPI_ERR_TYPE;
            else
                rc = ferry_sl_append(l, off, src[i].len, src[i].count, src[i].stride);
            if (l->n < minn)
                minn = l->n;
        }
        if (rc == MPI_SUCCESS && k + 1 < n && period_step(&pd, l, minn, stride, pbytes)) {
            rc = period_extrapolate(&pd, l, n - 1 - k, stride);
            __atomic_add_fetch(&ferry_sl_extrapolations, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    period_free(&pd);
    return rc;
}
