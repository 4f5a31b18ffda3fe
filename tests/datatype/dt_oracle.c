#include "dt_oracle.h"

#include <stdlib.h>
#include <string.h>

int dt_failures;
int dt_mpi_inconsistent;
char dt_context[256];

int64_t dt_oracle(MPI_Datatype t, int64_t count, int64_t **out)
{
    MPI_Count size, lb, ext, tlb, text;
    *out = NULL;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    if (size == 0 || count == 0)
        return 0;
    int64_t lo = tlb, hi = tlb + text;
    for (int64_t i = 1; i < count; i++) {
        if (tlb + i * ext < lo)
            lo = tlb + i * ext;
        if (tlb + text + i * ext > hi)
            hi = tlb + text + i * ext;
    }
    int64_t span = hi - lo, n = size * count;
    if (span > ((int64_t)1 << 28) || n > ((int64_t)1 << 26))
        return -1;
    unsigned char *buf = malloc((size_t)span), *pk = malloc((size_t)n);
    uint32_t *idx = calloc((size_t)n, sizeof *idx);
    int64_t *off = malloc((size_t)n * sizeof *off);
    if (!buf || !pk || !idx || !off) {
        free(buf), free(pk), free(idx), free(off);
        return -1;
    }
    for (int k = 0; k < 4; k++) {
        for (int64_t j = 0; j < span; j++)
            buf[j] = (unsigned char)((uint64_t)j >> (8 * k));
        int pos = 0;
        MPI_Pack(buf - lo, (int)count, t, pk, (int)n, &pos, MPI_COMM_SELF);
        if (pos != n) {
            fprintf(stderr, "oracle: MPI_Pack produced %d of %lld bytes\n", pos, (long long)n);
            free(buf), free(pk), free(idx), free(off);
            return -1;
        }
        for (int64_t b = 0; b < n; b++)
            idx[b] |= (uint32_t)pk[b] << (8 * k);
    }
    for (int64_t b = 0; b < n; b++)
        off[b] = (int64_t)idx[b] + lo;
    free(buf), free(pk), free(idx);
    *out = off;
    return n;
}

/* Expand an iterator into byte offsets; returns the number of bytes (capped
 * at cap), counts runs, checks each run against maxlen and (when uncut)
 * that consecutive runs never touch. */
static int64_t expand(ferry_iter *it, int64_t maxlen, int64_t cap, int64_t *dst, int64_t *nruns)
{
    int64_t n = 0, off, len, prev_end = INT64_MIN;
    *nruns = 0;
    while (n < cap && ferry_iter_next(it, maxlen, &off, &len)) {
        DT_CHECK(len > 0, "empty run");
        if (maxlen > 0)
            DT_CHECK(len <= maxlen, "run %lld longer than maxlen %lld", (long long)len, (long long)maxlen);
        else
            DT_CHECK(off != prev_end, "runs touch at %lld but were not merged", (long long)off);
        prev_end = off + len;
        (*nruns)++;
        for (int64_t j = 0; j < len && n < cap; j++)
            dst[n++] = off + j;
    }
    return n;
}

static int64_t maximal_runs(const int64_t *o, int64_t n)
{
    int64_t r = n > 0;
    for (int64_t i = 1; i < n; i++)
        r += o[i] != o[i - 1] + 1;
    return r;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void check_structure(const ferry_flat *f)
{
    int64_t sum = 0, nb = 0;
    for (int64_t i = 0; i < f->nsegs; i++) {
        const ferry_seg *s = &f->segs[i];
        DT_CHECK(s->len > 0 && s->count >= 1, "seg %lld len %lld count %lld", (long long)i,
                 (long long)s->len, (long long)s->count);
        DT_CHECK(s->count > 1 || s->stride == 0, "seg %lld count 1 stride %lld", (long long)i, (long long)s->stride);
        DT_CHECK(s->count == 1 || s->stride != s->len, "seg %lld touching blocks unmerged", (long long)i);
        DT_CHECK(f->prefix[i] == sum, "prefix[%lld]", (long long)i);
        sum += s->len * s->count;
        nb += s->count;
    }
    DT_CHECK(f->prefix[f->nsegs] == sum && sum == f->size, "prefix end %lld size %lld",
             (long long)f->prefix[f->nsegs], (long long)f->size);
    DT_CHECK(nb == f->nblocks, "nblocks %lld vs %lld", (long long)f->nblocks, (long long)nb);
}

static void check_flags(const ferry_flat *f, const int64_t *o, int64_t n)
{
    int neg = 0, dec = 0, ov = 0;
    int64_t prev_start = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        if (o[i] < 0)
            neg = 1;
        if (i == 0 || o[i] != o[i - 1] + 1) { /* a maximal block starts */
            if (o[i] < prev_start)
                dec = 1;
            prev_start = o[i];
        }
    }
    int64_t *s = malloc((size_t)(n ? n : 1) * sizeof *s);
    if (n > 0)
        memcpy(s, o, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp64);
    for (int64_t i = 1; i < n; i++)
        if (s[i] == s[i - 1])
            ov = 1;
    free(s);
    DT_CHECK(!!(f->flags & FERRY_FLAT_NEGATIVE) == neg, "NEGATIVE flag %d oracle %d", !!(f->flags & FERRY_FLAT_NEGATIVE), neg);
    DT_CHECK(!!(f->flags & FERRY_FLAT_DECREASE) == dec, "DECREASE flag %d oracle %d", !!(f->flags & FERRY_FLAT_DECREASE), dec);
    /* exact for every type this small (beyond a large work budget, decreasing
     * types may report OVERLAP conservatively) */
    DT_CHECK(!!(f->flags & FERRY_FLAT_OVERLAP) == ov, "OVERLAP flag %d oracle %d", !!(f->flags & FERRY_FLAT_OVERLAP), ov);
    DT_CHECK(f->nblocks == maximal_runs(o, n), "nblocks %lld, oracle has %lld maximal blocks",
             (long long)f->nblocks, (long long)maximal_runs(o, n));
    int contig = n > 0 && maximal_runs(o, n) == 1 && o[0] == f->lb && f->size == f->extent;
    DT_CHECK(f->contig == contig, "contig %d oracle %d", f->contig, contig);
}

static void compare(const int64_t *got, int64_t ngot, const int64_t *want, int64_t nwant, int64_t base, const char *what)
{
    DT_CHECK(ngot == nwant, "%s: %lld bytes, oracle %lld", what, (long long)ngot, (long long)nwant);
    int64_t m = ngot < nwant ? ngot : nwant;
    for (int64_t i = 0; i < m; i++)
        if (got[i] != want[i] + base) {
            DT_CHECK(got[i] == want[i] + base, "%s: byte %lld at %lld, oracle %lld", what, (long long)i,
                     (long long)(got[i] - base), (long long)want[i]);
            break;
        }
}

void dt_check_type(MPI_Datatype t, const char *name, unsigned seed)
{
    char saved[256];
    memcpy(saved, dt_context, sizeof saved);
    if (seed)
        snprintf(dt_context, sizeof dt_context, "%s seed %u", name, seed);
    else
        snprintf(dt_context, sizeof dt_context, "%s", name);
    uint64_t rs = seed * 7919u + 17;

    ferry_flat *f = NULL;
    int rc = ferry_flat_get(t, &f);
    DT_CHECK(rc == MPI_SUCCESS && f, "ferry_flat_get returned %d", rc);
    if (rc != MPI_SUCCESS || !f)
        goto out;

    MPI_Count size, lb, ext, tlb, text;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    DT_CHECK(f->size == size && f->lb == lb && f->extent == ext, "size/lb/extent %lld/%lld/%lld vs MPI %lld/%lld/%lld",
             (long long)f->size, (long long)f->lb, (long long)f->extent, (long long)size, (long long)lb, (long long)ext);
    DT_CHECK(f->true_lb == tlb && f->true_extent == text, "true bounds");
    check_structure(f);

    int64_t *o1;
    int64_t n1 = dt_oracle(t, 1, &o1);
    if (n1 < 0) {
        DT_CHECK(0, "type too large for the oracle");
        goto out;
    }
    check_flags(f, o1, n1);

    /* The oracle needs MPI's pack engine to agree with MPI's own extent:
     * instance 1 = instance 0 shifted by the extent. Open MPI 4.1 breaks this
     * for structs holding empty-typemap members (it reports one extent and
     * packs with another); then only one instance can be checked. */
    int64_t maxcount = 3, *o2;
    int64_t n2 = dt_oracle(t, 2, &o2);
    int consistent = n2 == 2 * n1;
    for (int64_t i = 0; consistent && i < n1; i++)
        consistent = o2[i] == o1[i] && o2[n1 + i] == o1[i] + ext;
    free(o2);
    free(o1);
    if (!consistent) {
        dt_mpi_inconsistent++;
        maxcount = 1;
#ifndef OPEN_MPI
        DT_CHECK(consistent, "MPI_Pack disagrees with MPI_Type_get_extent");
#else
        fprintf(stderr, "note [%s]: Open MPI packs instances at a stride other than its reported extent; "
                        "checking one instance only\n", dt_context);
#endif
    }

    for (int64_t count = 0; count <= maxcount; count++) {
        int64_t *o;
        int64_t n = dt_oracle(t, count, &o);
        if (n < 0)
            continue;
        int64_t *got = malloc((size_t)(n + 1) * sizeof *got), runs;
        ferry_iter it;
        int64_t base = (int64_t)dt_range(&rs, -5000, 5000);
        char what[64];

        /* whole stream, uncut */
        ferry_iter_init(&it, f, base, count, 0);
        int64_t ng = expand(&it, 0, n + 1, got, &runs);
        snprintf(what, sizeof what, "count %lld uncut", (long long)count);
        compare(got, ng, o, n, base, what);
        DT_CHECK(runs == maximal_runs(o, n), "count %lld: %lld runs, oracle %lld maximal", (long long)count,
                 (long long)runs, (long long)maximal_runs(o, n));
        DT_CHECK(ferry_iter_remaining(&it) == 0, "remaining after end");

        /* cut at random maxlen */
        int64_t ml = dt_range(&rs, 1, size > 1 ? 2 * size : 3);
        ferry_iter_init(&it, f, base, count, 0);
        ng = expand(&it, ml, n + 1, got, &runs);
        snprintf(what, sizeof what, "count %lld maxlen %lld", (long long)count, (long long)ml);
        compare(got, ng, o, n, base, what);

        /* random skips, with and without cuts */
        for (int k = 0; k < 6 && n > 0; k++) {
            int64_t skip = dt_range(&rs, 0, n);
            int64_t m = k & 1 ? dt_range(&rs, 1, 9) : 0;
            ferry_iter_init(&it, f, base, count, skip);
            DT_CHECK(ferry_iter_remaining(&it) == n - skip, "remaining after skip");
            ng = expand(&it, m, n + 1, got, &runs);
            snprintf(what, sizeof what, "count %lld skip %lld maxlen %lld", (long long)count, (long long)skip, (long long)m);
            compare(got, ng, o + skip, n - skip, base, what);
        }
        /* offset_of */
        for (int k = 0; k < 8 && n > 0; k++) {
            int64_t pos = dt_range(&rs, 0, n - 1);
            int64_t got1 = ferry_flat_offset_of(f, base, pos);
            DT_CHECK(got1 == o[pos] + base, "offset_of(%lld) = %lld, oracle %lld", (long long)pos,
                     (long long)(got1 - base), (long long)o[pos]);
        }
        /* unbounded stream = the first bytes of any bounded one */
        if (count == 3 && n > 0) {
            int64_t skip = dt_range(&rs, 0, n / 3);
            ferry_iter_init(&it, f, base, FERRY_ITER_UNBOUNDED, skip);
            DT_CHECK(ferry_iter_remaining(&it) == INT64_MAX, "unbounded remaining");
            ng = expand(&it, dt_range(&rs, 0, 5), n - skip, got, &runs);
            compare(got, ng, o + skip, n - skip, base, "unbounded");
        }
        free(got);
        free(o);
    }
out:
    ferry_flat_release(f);
    memcpy(dt_context, saved, sizeof saved);
}

int dt_finish(const char *test)
{
    if (dt_failures)
        fprintf(stderr, "%s: %d failure(s)\n", test, dt_failures);
    else
        printf("%s: ok\n", test);
    MPI_Finalize();
    return dt_failures ? 1 : 0;
}
