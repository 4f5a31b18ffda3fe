/* Growable segment lists. Every append looks only at the last two segments,
 * so building a list is linear in the appends:
 *   - a block that starts where the previous block ends extends it (a strided
 *     tail segment gives up its last block for this);
 *   - a block of the same length as the tail segment, one step further on,
 *     extends the tail into (or along) a strided segment.
 * The result keeps typemap order and never has two touching consecutive blocks. */
#include "datatype/flat_internal.h"

#include <stdlib.h>

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
    if (src >= l->v && src < l->v + l->cap)
        return MPI_ERR_INTERN;
    for (int64_t k = 0; k < n; k++) {
        int64_t d;
        if (!ferry_mul64(k, stride, &d) || !ferry_add64(d, disp, &d))
            return MPI_ERR_TYPE;
        for (int64_t i = 0; i < nsrc; i++) {
            if (!ferry_add64(src[i].off, d, &off))
                return MPI_ERR_TYPE;
            int rc = ferry_sl_append(l, off, src[i].len, src[i].count, src[i].stride);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}
