/*
 * libFuzzer harness for datatype flattening: the input bytes drive a random
 * type tree (every combiner, nested, negative and decreasing displacements,
 * resized, zero sizes, the MPI-4 _c constructors where mpi.h has them); the
 * committed type is flattened by ferry_flat_get and checked in full against
 * the MPI_Pack oracle of tests/datatype (stream bytes, cuts, skips, offsets,
 * unbounded tiling, flags, bounds), then freed (the flat cache lets go of it).
 * Any disagreement prints the type and aborts, so libFuzzer keeps the input.
 *
 * Sizes are kept small (the oracle packs every byte), and the generator
 * steers clear of the MPI libraries' own bugs that tests/datatype documents:
 * struct members of size zero get blocklength 0 (MPICH 4.0's pack divides by
 * zero), negative strides never make vector blocks touch (Open MPI 4.1).
 */
#include "dt_oracle.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *in;
static size_t in_left;
static char desc[8192];
static size_t dlen;

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (dlen < sizeof desc)
        dlen += (size_t)vsnprintf(desc + dlen, sizeof desc - dlen, fmt, ap);
    va_end(ap);
}

/* The next choice in [lo, hi] from the input (lo once it runs out). */
static int64_t pick(int64_t lo, int64_t hi)
{
    if (hi <= lo || in_left == 0)
        return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1, v = 0;
    int bytes = span > 65536 ? 4 : span > 256 ? 2 : 1;
    for (int i = 0; i < bytes && in_left; i++, in++, in_left--)
        v = v << 8 | *in;
    return lo + (int64_t)(v % span);
}

static const struct {
    MPI_Datatype t;
    const char *n;
} *basics;
static int nbasics;

static MPI_Datatype basic(void)
{
    int i = (int)pick(0, nbasics - 1);
    say("%s", basics[i].n);
    return basics[i].t;
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static void drop(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL && !is_named(*t))
        MPI_Type_free(t);
}

static int64_t extent_of(MPI_Datatype t)
{
    MPI_Count lb, ext;
    MPI_Type_get_extent_x(t, &lb, &ext);
    return ext;
}

static int64_t size_of(MPI_Datatype t)
{
    MPI_Count s;
    MPI_Type_size_x(t, &s);
    return s;
}

/* Open MPI packs vectors whose negative stride makes blocks touch as if the
 * stride were positive: keep such strides clear of the blocks. */
static int64_t safe_stride(int64_t stride, int64_t span)
{
#ifdef OPEN_MPI
    if (stride < 0 && -stride <= span)
        return -span - 1;
#else
    (void)span;
#endif
    return stride;
}

static MPI_Datatype gen(int depth);

#if MPI_VERSION >= 4
#define LARGE_OR(c, classic) rc = large ? (c) : (classic)
#else
#define LARGE_OR(c, classic) rc = (classic)
#endif

static MPI_Datatype node(int depth)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, old = MPI_DATATYPE_NULL;
    int k = (int)pick(0, 11), rc = MPI_SUCCESS;
    int large = MPI_VERSION >= 4 ? (int)pick(0, 1) : 0;
    int ib[4], id[4];
    MPI_Aint ad[4];
#if MPI_VERSION >= 4
    MPI_Count cb[4], cd[4];
#endif
    int64_t n, bl, st;
    (void)large;
    switch (k) {
    case 0:
        say("dup(");
        old = gen(depth - 1);
        rc = MPI_Type_dup(old, &t);
        break;
    case 1:
        n = pick(0, 5);
        say("contiguous(%lld,", (long long)n);
        old = gen(depth - 1);
        LARGE_OR(MPI_Type_contiguous_c(n, old, &t), MPI_Type_contiguous((int)n, old, &t));
        break;
    case 2:
    case 3:
        n = pick(0, 4), bl = pick(0, 3), st = k == 2 ? pick(-4, 6) : pick(-40, 80);
        say("%s(%lld,%lld,%lld,", k == 2 ? "vector" : "hvector", (long long)n, (long long)bl, (long long)st);
        old = gen(depth - 1);
        st = safe_stride(st, k == 2 ? bl : bl * extent_of(old));
        if (k == 2)
            LARGE_OR(MPI_Type_vector_c(n, bl, st, old, &t), MPI_Type_vector((int)n, (int)bl, (int)st, old, &t));
        else
            LARGE_OR(MPI_Type_create_hvector_c(n, bl, st, old, &t),
                     MPI_Type_create_hvector((int)n, (int)bl, st, old, &t));
        break;
    case 4:
    case 5:
    case 6:
        n = pick(0, 4);
        bl = pick(0, 3);
        say("%s(%lld,[", k == 4 ? "indexed" : k == 5 ? "hindexed" : "hindexed_block", (long long)n);
        for (int i = 0; i < n; i++) {
            ib[i] = k == 6 ? (int)bl : (int)pick(0, 3);
            id[i] = (int)(k == 4 ? pick(-4, 12) : pick(-48, 120));
            ad[i] = id[i];
#if MPI_VERSION >= 4
            cb[i] = ib[i];
            cd[i] = id[i];
#endif
            say("%d@%d ", ib[i], id[i]);
        }
        say("],");
        old = gen(depth - 1);
        if (k == 4)
            LARGE_OR(MPI_Type_indexed_c(n, cb, cd, old, &t), MPI_Type_indexed((int)n, ib, id, old, &t));
        else if (k == 5)
            LARGE_OR(MPI_Type_create_hindexed_c(n, cb, cd, old, &t),
                     MPI_Type_create_hindexed((int)n, ib, ad, old, &t));
        else
            LARGE_OR(MPI_Type_create_hindexed_block_c(n, bl, cd, old, &t),
                     MPI_Type_create_hindexed_block((int)n, (int)bl, ad, old, &t));
        break;
    case 7: {
        n = pick(1, 3);
        MPI_Datatype ty[3];
        say("struct(");
        for (int i = 0; i < n; i++) {
            ib[i] = (int)pick(0, 3);
            ad[i] = pick(-48, 120);
            say("%d@%lld:", ib[i], (long long)ad[i]);
            ty[i] = gen(depth - 1);
            if (size_of(ty[i]) == 0 && ib[i] > 0) {
                ib[i] = 0;
                say("{bl 0}");
            }
#if MPI_VERSION >= 4
            cb[i] = ib[i];
            cd[i] = ad[i];
#endif
            say(" ");
        }
        LARGE_OR(MPI_Type_create_struct_c(n, cb, cd, ty, &t), MPI_Type_create_struct((int)n, ib, ad, ty, &t));
        for (int i = 0; i < n; i++)
            drop(&ty[i]);
        break;
    }
    case 8: {
        int nd = (int)pick(1, 3), sz[3], sb[3], so[3];
        int order = pick(0, 1) ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        say("subarray(%s,", order == MPI_ORDER_C ? "C" : "F");
        for (int d = 0; d < nd; d++) {
            sz[d] = (int)pick(1, 4);
            sb[d] = (int)pick(1, sz[d]);
            so[d] = (int)pick(0, sz[d] - sb[d]);
            say("%d/%d+%d ", sb[d], sz[d], so[d]);
        }
        old = gen(depth - 1);
        rc = MPI_Type_create_subarray(nd, sz, sb, so, order, old, &t);
        break;
    }
    case 9: {
        int nd = (int)pick(1, 3), gs[3], ds[3], da[3], ps[3], np = 1;
        int order = pick(0, 1) ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        for (int d = 0; d < nd; d++) {
            gs[d] = (int)pick(1, 7);
            int kind = (int)pick(0, 2);
            ps[d] = kind == 2 ? 1 : (int)pick(1, 3);
            np *= ps[d];
            ds[d] = kind == 0 ? MPI_DISTRIBUTE_BLOCK : kind == 1 ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_NONE;
            da[d] = MPI_DISTRIBUTE_DFLT_DARG;
            if (kind == 0 && pick(0, 1))
                da[d] = (gs[d] + ps[d] - 1) / ps[d] + (int)pick(0, 2);
            if (kind == 1 && pick(0, 1))
                da[d] = (int)pick(1, 3);
        }
        int rank = (int)pick(0, np - 1);
        say("darray(rank %d/%d,", rank, np);
        old = gen(depth - 1);
        if (size_of(old) == 0) { /* rejected by Open MPI 4.1 */
            drop(&old);
            old = MPI_INT;
            say("{int}");
        }
        rc = MPI_Type_create_darray(np, rank, nd, gs, ds, da, ps, order, old, &t);
        break;
    }
    default: {
        int64_t lb = pick(-24, 24), ext = pick(0, 3) ? pick(0, 64) : 0;
        say("resized(%lld,%lld,", (long long)lb, (long long)ext);
        old = gen(depth - 1);
        LARGE_OR(MPI_Type_create_resized_c(old, lb, ext, &t), MPI_Type_create_resized(old, lb, ext, &t));
        break;
    }
    }
    say(")");
    drop(&old);
    if (rc != MPI_SUCCESS) {
        say("{rejected by MPI}");
        return basic();
    }
    return t;
}

static MPI_Datatype gen(int depth)
{
    if (depth <= 0 || pick(0, 3) == 0)
        return basic();
    size_t mark = dlen;
    MPI_Datatype t = node(depth);
    MPI_Count size, lb, ext, tlb, text;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    if (size > 4096 || text > 20000 || ext > 20000 || ext < 0 || tlb < -20000 || tlb > 20000) {
        drop(&t);
        dlen = mark;
        desc[dlen] = 0;
        say("[too big -> ");
        t = basic();
        say("]");
    }
    return t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    static const struct {
        MPI_Datatype t;
        const char *n;
    } b[] = {{MPI_BYTE, "byte"},       {MPI_CHAR, "char"},         {MPI_SHORT, "short"},
             {MPI_INT, "int"},         {MPI_DOUBLE, "double"},     {MPI_SHORT_INT, "short_int"},
             {MPI_DOUBLE_INT, "double_int"}, {MPI_FLOAT_INT, "float_int"}, {MPI_2INT, "2int"},
             {MPI_LONG_INT, "long_int"}, {MPI_INT64_T, "int64"}};
    basics = (void *)b;
    nbasics = (int)(sizeof b / sizeof b[0]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    in = data;
    in_left = size;
    dlen = 0;
    desc[0] = 0;
    MPI_Datatype t = gen(4);
    if (is_named(t)) {
        /* named types are flattened once and cached for good */
        ferry_flat *f = NULL;
        if (ferry_flat_get(t, &f) != MPI_SUCCESS || !f)
            abort();
        ferry_flat_release(f);
        return 0;
    }
    MPI_Type_commit(&t);
    unsigned seed = (unsigned)pick(1, 1 << 30);
    dt_failures = 0;
    dt_check_type(t, "fuzz", seed);
    if (dt_failures) {
        fprintf(stderr, "fuzz_flat: ferry disagrees with MPI_Pack for %s\n", desc);
        abort();
    }
    drop(&t);
    return 0;
}
