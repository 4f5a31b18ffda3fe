/* Iterator behaviour beyond what the oracle can reach (huge counts, runs
 * merged across instances, maxlen cuts of huge blocks, unbounded file-view
 * tiling far out) and file-view flags on crafted types. */
#include "dt_oracle.h"

#include <stdlib.h>

static ferry_flat *flat(MPI_Datatype t)
{
    ferry_flat *f = NULL;
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    return f;
}

static void tiling(void)
{
    int64_t off, len;
    ferry_iter it;
    snprintf(dt_context, sizeof dt_context, "tiling");

    /* a contiguous type repeated 10^12 times is one run, found in O(1) */
    ferry_flat *f = ferry_flat_bytes(8);
    ferry_iter_init(&it, f, 100, 1000000000000LL, 0);
    DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 100 && len == 8000000000000LL, "10^12 instances");
    DT_CHECK(!ferry_iter_next(&it, 0, &off, &len), "end");
    ferry_iter_init(&it, f, 100, 1000000000000LL, 5000000000003LL);
    DT_CHECK(ferry_iter_next(&it, 1 << 20, &off, &len) && off == 5000000000103LL && len == 1 << 20, "skip far, cut");
    DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 5000000000103LL + (1 << 20) &&
                 len == 8000000000000LL - 5000000000003LL - (1 << 20),
             "rest in one run");
    ferry_flat_release(f);

    /* a block filling its extent, lb below it: instances touch */
    MPI_Datatype c, t;
    MPI_Type_contiguous(4, MPI_INT, &c);
    MPI_Type_create_resized(c, -8, 16, &t);
    f = flat(t);
    DT_CHECK(!f->contig, "lb != block start is not contig");
    ferry_iter_init(&it, f, 0, 1000, 4);
    DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 4 && len == 16000 - 4, "touching instances merge");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&c);

    /* [0,4) [8,12), extent 12: a run spans one instance boundary */
    int bl[] = {1, 1};
    MPI_Aint di[] = {0, 8};
    MPI_Datatype ty[] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, di, ty, &c);
    MPI_Type_create_resized(c, 0, 12, &t);
    f = flat(t);
    ferry_iter_init(&it, f, 0, 5, 0);
    int64_t want[][2] = {{0, 4}, {8, 8}, {20, 8}, {32, 8}, {44, 8}, {56, 4}};
    for (int i = 0; i < 6; i++)
        DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == want[i][0] && len == want[i][1],
                 "run %d: %lld+%lld", i, (long long)off, (long long)len);
    DT_CHECK(!ferry_iter_next(&it, 0, &off, &len), "end");
    /* unbounded: the pattern goes on forever */
    ferry_iter_init(&it, f, 0, FERRY_ITER_UNBOUNDED, 8 * 1000000 + 4);
    DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 12 * 1000000 + 8 && len == 8, "unbounded far: %lld+%lld",
             (long long)off, (long long)len);
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&c);

    /* zero extent (IOR's memory type): every instance reads the same bytes */
    MPI_Type_contiguous(4, MPI_DOUBLE, &c);
    MPI_Type_create_resized(c, 0, 0, &t);
    f = flat(t);
    ferry_iter_init(&it, f, 64, 3, 0);
    for (int i = 0; i < 3; i++)
        DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 64 && len == 32, "zero extent instance %d", i);
    DT_CHECK(!ferry_iter_next(&it, 0, &off, &len), "end");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&c);
}

static void cuts(void)
{
    int64_t off, len;
    ferry_iter it;
    snprintf(dt_context, sizeof dt_context, "cuts");
    /* a 2^40-byte block cut into MiB runs */
    ferry_flat *f = ferry_flat_bytes((int64_t)1 << 40);
    ferry_iter_init(&it, f, 0, 1, 0);
    for (int i = 0; i < 3; i++)
        DT_CHECK(ferry_iter_next(&it, 1 << 20, &off, &len) && off == (int64_t)i << 20 && len == 1 << 20, "cut %d", i);
    DT_CHECK(ferry_iter_remaining(&it) == ((int64_t)1 << 40) - (3 << 20), "remaining");
    ferry_flat_release(f);

    /* view far out in a subarray file view: iterator == offset_of */
    MPI_Datatype t;
    int sz[] = {100, 200}, sub[] = {10, 20}, st[] = {30, 40};
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
    f = flat(t);
    uint64_t rs = 99;
    for (int k = 0; k < 1000; k++) {
        int64_t pos = dt_range(&rs, 0, (int64_t)1 << 40);
        ferry_iter_init(&it, f, 4096, FERRY_ITER_UNBOUNDED, pos);
        DT_CHECK(ferry_iter_next(&it, dt_range(&rs, 1, 200), &off, &len) && off == ferry_flat_offset_of(f, 4096, pos),
                 "pos %lld", (long long)pos);
        int64_t inst = pos / f->size, r = pos % f->size;
        int64_t row = r / (20 * 8), col = r % (20 * 8);
        DT_CHECK(off == 4096 + inst * f->extent + (30 + row) * 200 * 8 + 40 * 8 + col, "pos %lld by hand",
                 (long long)pos);
    }
    ferry_flat_release(f);
    MPI_Type_free(&t);
}

static void expect_flags(MPI_Datatype t, const char *name, int flags)
{
    snprintf(dt_context, sizeof dt_context, "flags: %s", name);
    MPI_Type_commit(&t);
    ferry_flat *f = flat(t);
    DT_CHECK(f->flags == flags, "flags %d, expected %d", f->flags, flags);
    ferry_flat_release(f);
    dt_check_type(t, name, 0); /* and the oracle agrees */
    MPI_Type_free(&t);
}

static void flags(void)
{
    enum { N = FERRY_FLAT_NEGATIVE, D = FERRY_FLAT_DECREASE, O = FERRY_FLAT_OVERLAP };
    MPI_Datatype t, c;
    int bl[] = {1, 1, 1};
    MPI_Aint a1[] = {0, 8, 4};
    MPI_Type_create_hindexed(3, bl, a1, MPI_INT, &t), expect_flags(t, "hindexed 0,8,4", D);
    MPI_Aint a2[] = {0, 2, 8};
    MPI_Type_create_hindexed(3, bl, a2, MPI_INT, &t), expect_flags(t, "hindexed 0,2,8 overlaps", O);
    MPI_Aint a3[] = {-4, 0, 8};
    MPI_Type_create_hindexed(3, bl, a3, MPI_INT, &t), expect_flags(t, "hindexed -4,0,8", N);
    MPI_Aint a4[] = {8, -4, 6};
    MPI_Type_create_hindexed(3, bl, a4, MPI_INT, &t), expect_flags(t, "hindexed 8,-4,6", N | D | O);
    MPI_Type_vector(3, 1, -2, MPI_INT, &t), expect_flags(t, "vector stride -2", N | D);
    MPI_Type_create_hvector(3, 1, 0, MPI_INT, &t), expect_flags(t, "hvector stride 0", O);
    MPI_Type_create_hvector(3, 2, 6, MPI_INT, &t), expect_flags(t, "hvector stride < len", O);
    MPI_Type_vector(3, 2, 5, MPI_INT, &t), expect_flags(t, "plain vector", 0);
    MPI_Type_contiguous(2, MPI_INT, &c);
    MPI_Type_create_resized(c, -16, 32, &t), expect_flags(t, "negative lb, data at 0", 0);
    MPI_Type_free(&c);
    /* two vectors, the second interleaved between the first's blocks and
     * listed first: decreasing, disjoint */
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 4, MPI_INT, &v);
    int sb[] = {1, 1};
    MPI_Aint sd[] = {8, 0};
    MPI_Datatype st[] = {v, v};
    MPI_Type_create_struct(2, sb, sd, st, &t);
    MPI_Type_commit(&t);
    ferry_flat *f = flat(t);
    snprintf(dt_context, sizeof dt_context, "flags: interleaved vectors");
    DT_CHECK(f->flags == D, "flags %d", f->flags);
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&v);
    /* the same with 8-byte blocks 4 bytes apart: now they overlap */
    MPI_Type_vector(4, 2, 4, MPI_INT, &v);
    st[0] = st[1] = v;
    sd[0] = 4;
    MPI_Type_create_struct(2, sb, sd, st, &t), expect_flags(t, "interleaved vectors, overlapping", D | O);
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tiling();
    cuts();
    flags();
    return dt_finish("datatype_iter");
}
