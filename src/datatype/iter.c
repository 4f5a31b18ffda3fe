/* The byte-stream iterator over `count` instances of a flattened type.
 *
 * Position = (instance, segment, block, bytes into the block). Seeking is a
 * binary search on the prefix sums. Within one instance consecutive blocks
 * never touch (the flattener merged them), so a run grows across at most one
 * instance boundary — except for single-block types whose block fills the
 * extent, where every instance touches the next and a run covers as many
 * instances as it likes in O(1). */
#include "datatype/flat_internal.h"

/* Index of the segment holding data byte r (0 <= r < size): the last i with
 * prefix[i] <= r. Branch-free halving with both possible next probes
 * prefetched (large tables are cache-miss bound), log2(nsegs) steps. */
static int64_t seg_of(const ferry_flat *f, int64_t r)
{
    const int64_t *base = f->prefix;
    int64_t n = f->nsegs;
    while (n > 1) {
        int64_t half = n / 2;
        __builtin_prefetch(base + half / 2);
        __builtin_prefetch(base + half + half / 2);
        base = base[half] <= r ? base + half : base;
        n -= half;
    }
    return base - f->prefix;
}

static void seek(ferry_iter *it, int64_t pos)
{
    const ferry_flat *f = it->f;
    it->inst = pos / f->size;
    int64_t r = pos % f->size;
    it->seg = seg_of(f, r);
    const ferry_seg *s = &f->segs[it->seg];
    r -= f->prefix[it->seg];
    it->blk = r / s->len;
    it->within = r % s->len;
}

void ferry_iter_init(ferry_iter *it, const ferry_flat *f, int64_t base, int64_t count,
                     int64_t skip)
{
    it->f = f;
    it->base = base;
    it->count = count;
    it->inst = it->seg = it->blk = it->within = 0;
    it->remain = 0;
    if (!f || f->size <= 0 || f->nsegs <= 0 || count <= 0)
        return;
    if (skip < 0)
        skip = 0;
    if (count == FERRY_ITER_UNBOUNDED) {
        it->remain = INT64_MAX;
    } else {
        int64_t total;
        if (!ferry_mul64(count, f->size, &total))
            total = INT64_MAX;
        if (skip >= total)
            return;
        it->remain = total - skip;
    }
    seek(it, skip);
}

/* Address of the current position. */
static inline int64_t here(const ferry_iter *it)
{
    const ferry_seg *s = &it->f->segs[it->seg];
    return it->base + it->inst * it->f->extent + s->off + it->blk * s->stride + it->within;
}

/* Consume n bytes of the current block (n <= bytes left in it). */
static inline void advance(ferry_iter *it, int64_t n)
{
    const ferry_flat *f = it->f;
    it->within += n;
    if (it->within < f->segs[it->seg].len)
        return;
    it->within = 0;
    if (++it->blk < f->segs[it->seg].count)
        return;
    it->blk = 0;
    if (++it->seg < f->nsegs)
        return;
    it->seg = 0;
    it->inst++;
}

int ferry_iter_next(ferry_iter *it, int64_t maxlen, int64_t *off, int64_t *len)
{
    if (it->remain <= 0)
        return 0;
    const ferry_flat *f = it->f;
    if (maxlen <= 0)
        maxlen = INT64_MAX;
    int64_t cap = maxlen < it->remain ? maxlen : it->remain;
    int64_t start = here(it), run;
    /* an unbounded stream of touching instances has no natural end: keep each
     * run (and off + len) well inside int64 */
    if (it->count == FERRY_ITER_UNBOUNDED && cap > ((int64_t)1 << 62))
        cap = (int64_t)1 << 62;
    if (start > 0 && cap > INT64_MAX - start)
        cap = INT64_MAX - start;

    if (f->nblocks == 1 && f->segs[0].len == f->extent) {
        /* instances tile: one run as long as allowed */
        int64_t L = f->segs[0].len, w = it->within;
        run = cap;
        it->inst += run / L;
        w += run % L;
        if (w >= L) {
            it->inst++;
            w -= L;
        }
        it->within = w;
    } else {
        int64_t avail = f->segs[it->seg].len - it->within;
        run = avail < cap ? avail : cap;
        advance(it, run);
        while (run < cap && here(it) == start + run) {
            int64_t more = f->segs[it->seg].len; /* at a block start */
            if (more > cap - run)
                more = cap - run;
            advance(it, more);
            run += more;
        }
    }
    if (it->count != FERRY_ITER_UNBOUNDED)
        it->remain -= run;
    *off = start;
    *len = run;
    return 1;
}

int64_t ferry_flat_offset_of(const ferry_flat *f, int64_t base, int64_t pos)
{
    ferry_iter it;
    it.f = f;
    it.base = base;
    if (f->size <= 0 || f->nsegs <= 0)
        return base;
    seek(&it, pos < 0 ? 0 : pos);
    return here(&it);
}
