/* Segment list -> ferry_flat: prefix sums, block count, file-view flags and
 * contiguity, all from the segments (blocks are never expanded); and the
 * references that free it. */
#include "datatype/flat_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct hull {
    int64_t lo, hi; /* [lo, hi): first byte of the lowest block, end of the highest */
    int64_t idx;
} hull;

static int cmp_hull(const void *a, const void *b)
{
    const hull *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sort by lo: LSD radix sort, 16-bit digits, skipping digits all keys share
 * (linear time; qsort only if the scratch space cannot be had). */
static void sort_hulls(hull *h, int64_t n)
{
    hull *tmp = malloc((size_t)n * sizeof *tmp);
    int64_t *cnt = malloc(65536 * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        qsort(h, (size_t)n, sizeof *h, cmp_hull);
        return;
    }
    hull *src = h, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (int64_t i = 0; i < n; i++)
            cnt[(((uint64_t)src[i].lo ^ ((uint64_t)1 << 63)) >> shift) & 0xffff]++;
        int64_t sum = 0, skip = 0;
        for (int d = 0; d < 65536; d++) {
            int64_t c = cnt[d];
            skip |= c == n;
            cnt[d] = sum;
            sum += c;
        }
        if (skip)
            continue;
        for (int64_t i = 0; i < n; i++)
            dst[cnt[(((uint64_t)src[i].lo ^ ((uint64_t)1 << 63)) >> shift) & 0xffff]++] = src[i];
        hull *t = src;
        src = dst;
        dst = t;
    }
    if (src != h)
        memcpy(h, src, (size_t)n * sizeof *h);
    free(tmp);
    free(cnt);
}

/* A segment's blocks as a set: lowest block at a, n blocks, step s > 0. */
typedef struct prog {
    int64_t a, l, n, s;
} prog;

static prog as_prog(const ferry_seg *g)
{
    prog p = {g->off, g->len, g->count, g->stride};
    if (p.n == 1 || p.s == 0)
        p.s = 1; /* stride 0 with count > 1 was flagged as overlap already */
    else if (p.s < 0) {
        p.a = g->off + (g->count - 1) * g->stride;
        p.s = -p.s;
    }
    return p;
}

static int64_t floordiv(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Blocks j of p meeting [x, x+l): *lo..*hi (empty when lo > hi). */
static void meeting(const prog *p, int64_t x, int64_t l, int64_t *lo, int64_t *hi)
{
    *lo = floordiv(x - p->l - p->a, p->s) + 1;
    *hi = floordiv(x + l - 1 - p->a, p->s);
    if (*lo < 0)
        *lo = 0;
    if (*hi > p->n - 1)
        *hi = p->n - 1;
}

/* 1 if two segments share a byte, 0 if not, -1 when out of budget. Walks the
 * blocks of the sparser one that lie in the other's hull, each tested in O(1). */
static int pair_overlap(const ferry_seg *x, const ferry_seg *y, int64_t *budget)
{
    prog a = as_prog(x), b = as_prog(y);
    if (a.n > b.n) {
        prog t = a;
        a = b;
        b = t;
    }
    int64_t i0, i1, j0, j1;
    meeting(&a, b.a, (b.n - 1) * b.s + b.l, &i0, &i1);
    for (int64_t i = i0; i <= i1; i++) {
        if (--*budget < 0)
            return -1;
        meeting(&b, a.a + i * a.s, a.l, &j0, &j1);
        if (j0 <= j1)
            return 1;
    }
    return 0;
}

/* Overlap test for types whose blocks are not in nondecreasing order: sweep
 * segment hulls in address order, testing each against the hulls still open.
 * Exact within a work budget linear in the segments; past it, conservative. */
static int overlap_unordered(const ferry_seg *s, int64_t n)
{
    hull *h = malloc((size_t)n * sizeof *h);
    int64_t *act = malloc((size_t)n * sizeof *act);
    if (!h || !act) {
        free(h);
        free(act);
        return 1; /* cannot tell: be conservative */
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t first = s[i].off, last = s[i].off + (s[i].count - 1) * s[i].stride;
        h[i].lo = first < last ? first : last;
        h[i].hi = (first > last ? first : last) + s[i].len;
        h[i].idx = i;
    }
    sort_hulls(h, n);
    int64_t budget = 16 * n + ((int64_t)1 << 22), nact = 0;
    int ov = 0;
    for (int64_t j = 0; j < n && !ov; j++) {
        int64_t k = 0;
        for (int64_t i = 0; i < nact; i++) /* close hulls that end before this one */
            if (h[act[i]].hi > h[j].lo)
                act[k++] = act[i];
        budget -= nact;
        nact = k;
        for (int64_t i = 0; i < nact && !ov; i++)
            ov = pair_overlap(&s[h[act[i]].idx], &s[h[j].idx], &budget) != 0;
        if (budget < 0)
            ov = 1;
        act[nact++] = j;
    }
    free(h);
    free(act);
    return ov;
}

int ferry_flat_compute_flags(const ferry_seg *s, int64_t n)
{
    int flags = 0;
    int64_t prev_start = INT64_MIN, maxend = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        int64_t first = s[i].off, last = s[i].off + (s[i].count - 1) * s[i].stride;
        int64_t lo = first < last ? first : last, hi = (first > last ? first : last) + s[i].len;
        if (lo < 0)
            flags |= FERRY_FLAT_NEGATIVE;
        if (first < prev_start || (s[i].count > 1 && s[i].stride < 0))
            flags |= FERRY_FLAT_DECREASE;
        if (s[i].count > 1 && (s[i].stride < 0 ? -s[i].stride : s[i].stride) < s[i].len)
            flags |= FERRY_FLAT_OVERLAP; /* blocks of one segment overlap */
        /* blocks in nondecreasing order overlap iff one starts before the
         * furthest end so far */
        if (first < maxend)
            flags |= FERRY_FLAT_OVERLAP;
        if (hi > maxend)
            maxend = hi;
        prev_start = last;
    }
    if (flags & FERRY_FLAT_DECREASE) {
        /* the sweep above assumed order; redo it on sorted hulls */
        int within = 0;
        for (int64_t i = 0; i < n; i++)
            if (s[i].count > 1 && (s[i].stride < 0 ? -s[i].stride : s[i].stride) < s[i].len)
                within = 1;
        flags &= ~FERRY_FLAT_OVERLAP;
        if (within || overlap_unordered(s, n))
            flags |= FERRY_FLAT_OVERLAP;
    }
    return flags;
}

int ferry_flat_finish(ferry_seglist *l, int64_t size, int64_t lb, int64_t extent,
                      int64_t true_lb, int64_t true_extent, ferry_flat **out)
{
    *out = NULL;
    ferry_flat *f = calloc(1, sizeof *f);
    int64_t n = l->n;
    int64_t *prefix = malloc((size_t)(n + 1) * sizeof *prefix);
    if (!f || !prefix) {
        free(f);
        free(prefix);
        ferry_sl_free(l);
        return MPI_ERR_NO_MEM;
    }
    int64_t sum = 0, nblocks = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t b;
        prefix[i] = sum;
        if (!ferry_mul64(l->v[i].len, l->v[i].count, &b) || !ferry_add64(sum, b, &sum)) {
            free(f);
            free(prefix);
            ferry_sl_free(l);
            return MPI_ERR_TYPE;
        }
        nblocks += l->v[i].count;
    }
    prefix[n] = sum;
    if (sum != size) {
        free(f);
        free(prefix);
        ferry_sl_free(l);
        return MPI_ERR_INTERN;
    }
    if (n > 0 && l->cap > n) { /* give back the slack of the doubling */
        ferry_seg *v = realloc(l->v, (size_t)n * sizeof *v);
        if (v)
            l->v = v;
    }
    f->segs = l->v;
    f->nsegs = n;
    l->v = NULL;
    l->n = l->cap = 0;
    f->prefix = prefix;
    f->size = size;
    f->lb = lb;
    f->extent = extent;
    f->true_lb = true_lb;
    f->true_extent = true_extent;
    f->nblocks = nblocks;
    f->flags = ferry_flat_compute_flags(f->segs, n);
    f->contig = n == 1 && f->segs[0].count == 1 && f->segs[0].off == lb &&
                f->segs[0].len == extent && extent == size;
    f->refs = 1;
    *out = f;
    return MPI_SUCCESS;
}

void ferry_flat_retain(ferry_flat *f)
{
    if (f)
        __atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void ferry_flat_release(ferry_flat *f)
{
    if (!f)
        return;
    if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(f->segs);
        free(f->prefix);
        free(f);
    }
}
