/* Every combiner, nested combinations, resized, zero-size, subarray and
 * darray shapes, checked against the MPI_Pack oracle, plus compactness of
 * the segment lists. */
#include "dt_oracle.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(OPEN_MPI) || (defined(OMPI_ENABLE_MPI1_COMPAT) && OMPI_ENABLE_MPI1_COMPAT)
#define HAVE_MPI_LB 1
#endif

static void check(MPI_Datatype t, const char *name)
{
    dt_check_type(t, name, 0);
}

/* check, then free (t is derived) */
static void checkf(MPI_Datatype t, const char *name)
{
    MPI_Type_commit(&t);
    check(t, name);
    MPI_Type_free(&t);
}

static void expect_segs(MPI_Datatype t, const char *name, int64_t nsegs, int64_t nblocks)
{
    ferry_flat *f;
    MPI_Type_commit(&t);
    snprintf(dt_context, sizeof dt_context, "%s", name);
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->nsegs == nsegs, "nsegs %lld, expected %lld", (long long)f->nsegs, (long long)nsegs);
    if (nblocks >= 0)
        DT_CHECK(f->nblocks == nblocks, "nblocks %lld, expected %lld", (long long)f->nblocks, (long long)nblocks);
    ferry_flat_release(f);
    dt_context[0] = 0;
}

static void named(void)
{
    struct {
        MPI_Datatype t;
        const char *n;
    } v[] = {
        {MPI_BYTE, "MPI_BYTE"}, {MPI_CHAR, "MPI_CHAR"}, {MPI_SHORT, "MPI_SHORT"}, {MPI_INT, "MPI_INT"},
        {MPI_LONG, "MPI_LONG"}, {MPI_FLOAT, "MPI_FLOAT"}, {MPI_DOUBLE, "MPI_DOUBLE"},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"}, {MPI_INT64_T, "MPI_INT64_T"}, {MPI_UINT16_T, "MPI_UINT16_T"},
        {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"}, {MPI_AINT, "MPI_AINT"}, {MPI_OFFSET, "MPI_OFFSET"},
        {MPI_COUNT, "MPI_COUNT"}, {MPI_PACKED, "MPI_PACKED"}, {MPI_C_BOOL, "MPI_C_BOOL"},
        {MPI_FLOAT_INT, "MPI_FLOAT_INT"}, {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"}, {MPI_LONG_INT, "MPI_LONG_INT"},
        {MPI_2INT, "MPI_2INT"}, {MPI_SHORT_INT, "MPI_SHORT_INT"}, {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(v[i].t, v[i].n);
#ifdef HAVE_MPI_LB
    check(MPI_LB, "MPI_LB");
    check(MPI_UB, "MPI_UB");
#endif
    MPI_Datatype f90;
    if (MPI_Type_create_f90_real(6, MPI_UNDEFINED, &f90) == MPI_SUCCESS)
        check(f90, "f90_real(6)"); /* predefined: never freed */
    if (MPI_Type_create_f90_integer(9, &f90) == MPI_SUCCESS)
        check(f90, "f90_integer(9)");
    if (MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &f90) == MPI_SUCCESS)
        check(f90, "f90_complex(6)");
}

static void simple(void)
{
    MPI_Datatype t;
    MPI_Type_dup(MPI_DOUBLE, &t), checkf(t, "dup(double)");
    MPI_Type_dup(MPI_SHORT_INT, &t), checkf(t, "dup(short_int)");
    MPI_Type_contiguous(5, MPI_INT, &t), checkf(t, "contiguous(5,int)");
    MPI_Type_contiguous(0, MPI_INT, &t), checkf(t, "contiguous(0,int)");
    MPI_Type_contiguous(3, MPI_SHORT_INT, &t), checkf(t, "contiguous(3,short_int)");
    MPI_Type_contiguous(7, MPI_DOUBLE_INT, &t), checkf(t, "contiguous(7,double_int)");
    MPI_Type_vector(4, 2, 5, MPI_INT, &t), checkf(t, "vector(4,2,5,int)");
    MPI_Type_vector(4, 2, 2, MPI_INT, &t), checkf(t, "vector stride==blocklen");
    MPI_Type_vector(4, 2, -3, MPI_INT, &t), checkf(t, "vector negative stride");
    MPI_Type_vector(4, 3, 1, MPI_INT, &t), checkf(t, "vector overlapping blocks");
    MPI_Type_vector(4, 0, 3, MPI_INT, &t), checkf(t, "vector blocklen 0");
    MPI_Type_vector(1, 3, 100, MPI_INT, &t), checkf(t, "vector count 1");
    MPI_Type_vector(3, 2, 4, MPI_SHORT_INT, &t), checkf(t, "vector of short_int");
    MPI_Type_create_hvector(5, 3, 17, MPI_CHAR, &t), checkf(t, "hvector(5,3,17,char)");
    MPI_Type_create_hvector(5, 1, 0, MPI_INT, &t), checkf(t, "hvector stride 0");
    MPI_Type_create_hvector(5, 2, -10, MPI_INT, &t), checkf(t, "hvector negative stride");
    MPI_Type_create_hvector(4, 2, 3, MPI_INT, &t), checkf(t, "hvector stride < blocklen bytes");

    int bl[] = {2, 0, 3, 1}, di[] = {5, 1, -2, 9};
    MPI_Type_indexed(4, bl, di, MPI_INT, &t), checkf(t, "indexed (decreasing, zero block)");
    int bl2[] = {1, 1, 2}, di2[] = {0, 1, 2};
    MPI_Type_indexed(3, bl2, di2, MPI_DOUBLE, &t), checkf(t, "indexed touching -> one block");
    MPI_Type_indexed(0, bl2, di2, MPI_DOUBLE, &t), checkf(t, "indexed count 0");
    MPI_Aint hd[] = {100, 0, 36, 8};
    MPI_Type_create_hindexed(4, bl, hd, MPI_INT, &t), checkf(t, "hindexed");
    MPI_Aint hd2[] = {-16, 4, 4, 100};
    MPI_Type_create_hindexed(4, bl, hd2, MPI_INT, &t), checkf(t, "hindexed negative/overlap");
    int db[] = {3, 0, 7, 2};
    MPI_Type_create_indexed_block(4, 2, db, MPI_SHORT, &t), checkf(t, "indexed_block");
    MPI_Aint hb[] = {40, 0, 8, 24};
    MPI_Type_create_hindexed_block(4, 3, hb, MPI_SHORT, &t), checkf(t, "hindexed_block");
    MPI_Aint hb2[] = {0, 8, 16, 24, 32};
    MPI_Type_create_hindexed_block(5, 1, hb2, MPI_INT, &t), checkf(t, "hindexed_block regular");
}

static void structs(void)
{
    MPI_Datatype t, u;
    /* HACC-IO particle record: 7 floats, one int64, one uint16 */
    struct particle {
        float x[7];
        int64_t id;
        uint16_t mask;
    };
    int bl[] = {7, 1, 1};
    MPI_Aint di[] = {offsetof(struct particle, x), offsetof(struct particle, id), offsetof(struct particle, mask)};
    MPI_Datatype ty[] = {MPI_FLOAT, MPI_INT64_T, MPI_UINT16_T};
    MPI_Type_create_struct(3, bl, di, ty, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct particle), &u);
    MPI_Type_free(&t);
    MPI_Type_commit(&u);
    check(u, "HACC particle struct");
    MPI_Type_contiguous(5, u, &t), checkf(t, "contiguous(5, particle)");
    MPI_Type_free(&u);

    MPI_Datatype v;
    MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &v);
    int bl2[] = {1, 2, 1, 0};
    MPI_Aint di2[] = {0, 200, 40, 8};
    MPI_Datatype ty2[] = {v, MPI_SHORT_INT, MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(4, bl2, di2, ty2, &t), checkf(t, "struct of vector/pair/int/zero-count");
    MPI_Aint di3[] = {64, 0, 8, 8};
    MPI_Type_create_struct(4, bl2, di3, ty2, &t), checkf(t, "struct decreasing");
    MPI_Type_free(&v);
    int bl3[] = {0, 0};
    MPI_Aint di4[] = {0, 8};
    MPI_Datatype ty3[] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl3, di4, ty3, &t), checkf(t, "struct zero size");
    MPI_Type_create_struct(0, bl3, di4, ty3, &t), checkf(t, "struct count 0");
    int bl4[] = {1, 1};
    MPI_Aint di5[] = {4, 4};
    MPI_Type_create_struct(2, bl4, di5, ty3, &t), checkf(t, "struct overlap");
#ifdef HAVE_MPI_LB
    int bl5[] = {1, 2, 1};
    MPI_Aint di6[] = {-8, 0, 40};
    MPI_Datatype ty5[] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Type_create_struct(3, bl5, di6, ty5, &t), checkf(t, "struct with MPI_LB/MPI_UB");
#endif
}

static void resized(void)
{
    MPI_Datatype t, u, c;
    /* IOR: contiguous memory type resized to lb 0 extent 0 */
    MPI_Type_contiguous(16, MPI_DOUBLE, &c);
    MPI_Type_create_resized(c, 0, 0, &t), checkf(t, "IOR contiguous resized extent 0");
    MPI_Type_create_resized(c, -24, 200, &t), checkf(t, "resized negative lb, extent > size");
    MPI_Type_create_resized(c, 8, 64, &t), checkf(t, "resized extent < true extent (instances overlap)");
    MPI_Type_create_resized(c, 0, 128, &t), checkf(t, "resized = same (contig)");
    MPI_Type_free(&c);
    MPI_Type_create_resized(MPI_INT, -4, 12, &u);
    MPI_Type_create_resized(u, 2, 20, &t), checkf(t, "resized of resized");
    MPI_Type_contiguous(3, u, &t), checkf(t, "contiguous of resized(-4,12)");
    MPI_Type_vector(3, 2, -2, u, &t), checkf(t, "vector(-2) of resized");
    MPI_Type_free(&u);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 0, &u);
    MPI_Type_contiguous(4, u, &t), checkf(t, "contiguous of zero-extent double");
    MPI_Type_free(&u);
    MPI_Type_contiguous(0, MPI_INT, &c);
    MPI_Type_create_resized(c, -8, 0, &t), checkf(t, "zero-size resized negative lb");
    MPI_Type_free(&c);
}

static void nested(void)
{
    MPI_Datatype a, b, c, t;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &a);
    MPI_Type_vector(5, 1, 7, a, &t), checkf(t, "vector of vector");
    MPI_Type_create_hvector(5, 2, 200, a, &t), checkf(t, "hvector(bl 2) of vector");
    int bl[] = {1, 2};
    MPI_Aint di[] = {0, 512};
    MPI_Datatype ty[] = {a, MPI_SHORT_INT};
    MPI_Type_create_struct(2, bl, di, ty, &b);
    MPI_Type_contiguous(3, b, &t), checkf(t, "contiguous of struct of vector");
    int sizes[] = {4, 6}, subs[] = {2, 3}, starts[] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, b, &c);
    MPI_Type_commit(&c);
    check(c, "subarray of struct of vector");
    MPI_Type_create_resized(c, -100, 40000, &t), checkf(t, "resized subarray of struct");
    int ibl[] = {1, 2};
    int idi[] = {3, 0};
    MPI_Type_indexed(2, ibl, idi, c, &t), checkf(t, "indexed of subarray of struct");
    MPI_Type_free(&c);
    MPI_Type_free(&b);
    MPI_Type_dup(a, &b);
    MPI_Type_dup(b, &c);
    MPI_Type_vector(2, 2, 3, c, &t), checkf(t, "vector of dup of dup of vector");
    MPI_Type_free(&c);
    MPI_Type_free(&b);
    MPI_Type_free(&a);
}

static void subarrays(void)
{
    MPI_Datatype t, e;
    int s2[] = {6, 8}, u2[] = {3, 4}, o2[] = {2, 1};
    MPI_Type_create_subarray(2, s2, u2, o2, MPI_ORDER_C, MPI_DOUBLE, &t), checkf(t, "subarray 2-D C");
    MPI_Type_create_subarray(2, s2, u2, o2, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t), checkf(t, "subarray 2-D Fortran");
    int s3[] = {5, 6, 7}, u3[] = {2, 3, 4}, o3[] = {1, 2, 3};
    MPI_Type_create_subarray(3, s3, u3, o3, MPI_ORDER_C, MPI_INT, &t), checkf(t, "subarray 3-D C");
    MPI_Type_create_subarray(3, s3, u3, o3, MPI_ORDER_FORTRAN, MPI_INT, &t), checkf(t, "subarray 3-D Fortran");
    int f3[] = {2, 6, 7}, z3[] = {0, 0, 0}, p3[] = {1, 0, 0};
    MPI_Type_create_subarray(3, s3, f3, p3, MPI_ORDER_C, MPI_INT, &t);
    expect_segs(t, "subarray full inner planes", 1, 1);
    MPI_Type_free(&t);
    MPI_Type_create_subarray(3, s3, u3, z3, MPI_ORDER_C, MPI_INT, &t);
    expect_segs(t, "3-D subarray: one segment per plane", 2, 2 * 3);
    MPI_Type_free(&t);
    int s1[] = {10}, u1[] = {4}, o1[] = {3};
    MPI_Type_create_subarray(1, s1, u1, o1, MPI_ORDER_C, MPI_SHORT_INT, &t), checkf(t, "subarray 1-D of short_int");
    /* Tile-IO: 2-D tile of 8-byte elements, 1 KiB rows */
    int ts[] = {64, 256}, tu[] = {32, 128}, to[] = {32, 128};
    MPI_Type_create_subarray(2, ts, tu, to, MPI_ORDER_C, MPI_DOUBLE, &t), checkf(t, "Tile-IO tile");
    /* BT-IO-like 3-D cell of 5 doubles */
    MPI_Type_contiguous(5, MPI_DOUBLE, &e);
    int bs[] = {12, 12, 12}, bu[] = {4, 4, 4}, bo[] = {4, 8, 0};
    MPI_Type_create_subarray(3, bs, bu, bo, MPI_ORDER_FORTRAN, e, &t), checkf(t, "BT-IO 3-D cell");
    MPI_Type_free(&e);
}

static void darray_case(int ndims, const int *gs, const int *dist, const int *darg, const int *ps, int order,
                        MPI_Datatype old, const char *name)
{
    int n = 1;
    for (int d = 0; d < ndims; d++)
        n *= ps[d];
    for (int r = 0; r < n; r++) {
        MPI_Datatype t;
        char nm[128];
        snprintf(nm, sizeof nm, "%s rank %d/%d", name, r, n);
        MPI_Type_create_darray(n, r, ndims, gs, dist, darg, ps, order, old, &t);
        checkf(t, nm);
    }
}

static void darrays(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    for (int o = 0; o < 2; o++) {
        int order = o ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        const char *on = o ? "F" : "C";
        char nm[96];
        int g2[] = {10, 9}, p2[] = {2, 3};
        int bb[] = {B, B}, dd[] = {D, D};
        snprintf(nm, sizeof nm, "darray block/block %s", on);
        darray_case(2, g2, bb, dd, p2, order, MPI_DOUBLE, nm);
        int cc[] = {C, C}, k1[] = {1, 1}, k2[] = {3, 2};
        snprintf(nm, sizeof nm, "darray cyclic(1) %s", on);
        darray_case(2, g2, cc, k1, p2, order, MPI_INT, nm);
        snprintf(nm, sizeof nm, "darray cyclic(3,2) %s", on);
        darray_case(2, g2, cc, k2, p2, order, MPI_INT, nm);
        snprintf(nm, sizeof nm, "darray cyclic(dflt) %s", on);
        darray_case(2, g2, cc, dd, p2, order, MPI_SHORT_INT, nm);
        int bc[] = {B, C}, kb[] = {4, 2}, pb[] = {3, 2};
        snprintf(nm, sizeof nm, "darray block(4)/cyclic(2) %s", on);
        darray_case(2, g2, bc, kb, pb, order, MPI_DOUBLE, nm);
        int nb[] = {N, B}, p12[] = {1, 4};
        snprintf(nm, sizeof nm, "darray none/block %s", on);
        darray_case(2, g2, nb, dd, p12, order, MPI_INT, nm);
        int g3[] = {5, 6, 7}, d3[] = {C, N, B}, a3[] = {2, D, D}, p3[] = {2, 1, 3};
        snprintf(nm, sizeof nm, "darray 3-D cyclic/none/block %s", on);
        darray_case(3, g3, d3, a3, p3, order, MPI_INT, nm);
        int g1[] = {5}, b1[] = {B}, a1[] = {2}, p1[] = {4}; /* last ranks own nothing */
        snprintf(nm, sizeof nm, "darray 1-D block(2) over 4 %s", on);
        darray_case(1, g1, b1, a1, p1, order, MPI_DOUBLE, nm);
    }
}

static void compactness(void)
{
    MPI_Datatype a, t;
    MPI_Type_vector(1000000, 1, 2, MPI_INT, &t);
    expect_segs(t, "vector(1e6) is one segment", 1, 1000000);
    MPI_Type_free(&t);
    MPI_Type_vector(1000, 3, 3, MPI_INT, &t);
    expect_segs(t, "vector stride==blocklen is one block", 1, 1);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(100000, 2, 64, MPI_DOUBLE, &t);
    expect_segs(t, "hvector of contiguous blocks", 1, 100000);
    MPI_Type_free(&t);
    MPI_Type_vector(100, 1, 10, MPI_DOUBLE, &a);
    MPI_Type_vector(50, 1, 7, a, &t);
    expect_segs(t, "nested vector: one segment per outer element", 50, 5000);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(50, 1, 8000, a, &t); /* outer continues the inner progression */
    expect_segs(t, "nested vector continuing the stride", 1, 5000);
    MPI_Type_free(&t);
    MPI_Type_free(&a);
    MPI_Type_contiguous(1000, MPI_SHORT_INT, &t);
    expect_segs(t, "contiguous of short_int: gaps fused", 3, 1001);
    check(t, "contiguous(1000, short_int)");
    MPI_Type_free(&t);
    MPI_Type_contiguous(1000000000, MPI_SHORT_INT, &t); /* steady state extrapolated */
    expect_segs(t, "contiguous(10^9, short_int)", 3, 1000000001);
    MPI_Type_free(&t);
    {
        /* copies touch through a 3-block pattern: [0,2) [4,6) [8,12) extent 12 */
        int b3[] = {1, 1, 2};
        MPI_Aint d3[] = {0, 4, 8};
        MPI_Datatype s3, ty3[] = {MPI_SHORT, MPI_SHORT, MPI_SHORT};
        MPI_Type_create_struct(3, b3, d3, ty3, &s3);
        MPI_Type_contiguous(777, s3, &t);
        MPI_Type_commit(&t);
        check(t, "contiguous(777) of 3-block struct");
        MPI_Type_free(&t);
        MPI_Type_create_hvector(333, 2, 30, s3, &t);
        MPI_Type_commit(&t);
        check(t, "hvector(333,2,30) of 3-block struct");
        MPI_Type_free(&t);
        MPI_Type_free(&s3);
    }
    MPI_Aint d[1000];
    int bl[1000];
    for (int i = 0; i < 1000; i++)
        d[i] = 24 * i, bl[i] = 2;
    MPI_Type_create_hindexed(1000, bl, d, MPI_INT, &t);
    expect_segs(t, "regular hindexed fuses to one strided segment", 1, 1000);
    MPI_Type_free(&t);
    int gs[] = {1000, 1000}, ds[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC},
        da[] = {1, 1}, ps[] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_segs(t, "darray cyclic 2-D: one segment per owned row", 500, 250000);
    MPI_Type_free(&t);
}

#if MPI_VERSION >= 4
/* The MPI-4 large-count constructors store their arguments differently. */
static void large_layout(void)
{
    MPI_Datatype t, v;
    MPI_Count bl[] = {2, 1, 3}, di[] = {4, 0, 9}, hd[] = {40, 0, 16};
    MPI_Type_contiguous_c(5, MPI_INT, &t), checkf(t, "contiguous_c");
    MPI_Type_vector_c(4, 2, 5, MPI_INT, &t), checkf(t, "vector_c");
    MPI_Type_create_hvector_c(4, 2, 28, MPI_INT, &t), checkf(t, "hvector_c");
    MPI_Type_indexed_c(3, bl, di, MPI_SHORT, &t), checkf(t, "indexed_c");
    MPI_Type_create_hindexed_c(3, bl, hd, MPI_SHORT, &t), checkf(t, "hindexed_c");
    MPI_Type_create_indexed_block_c(3, 2, di, MPI_SHORT, &t), checkf(t, "indexed_block_c");
    MPI_Type_create_hindexed_block_c(3, 2, hd, MPI_SHORT, &t), checkf(t, "hindexed_block_c");
    MPI_Type_vector_c(2, 1, 3, MPI_DOUBLE, &v);
    MPI_Datatype ty[] = {v, MPI_INT, MPI_SHORT_INT};
    MPI_Type_create_struct_c(3, bl, hd, ty, &t), checkf(t, "struct_c");
    MPI_Count s[] = {5, 6, 7}, u[] = {2, 3, 4}, o[] = {1, 2, 3};
    MPI_Type_create_subarray_c(3, s, u, o, MPI_ORDER_C, v, &t), checkf(t, "subarray_c C");
    MPI_Type_create_subarray_c(3, s, u, o, MPI_ORDER_FORTRAN, MPI_INT, &t), checkf(t, "subarray_c Fortran");
    MPI_Count g[] = {10, 9};
    int dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, darg[] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 3};
    for (int r = 0; r < 6; r++) {
        MPI_Type_create_darray_c(6, r, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t), checkf(t, "darray_c C");
        MPI_Type_create_darray_c(6, r, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t), checkf(t, "darray_c F");
    }
    MPI_Type_create_resized_c(v, -8, 64, &t), checkf(t, "resized_c");
    MPI_Type_free(&v);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    named();
    simple();
    structs();
    resized();
    nested();
    subarrays();
    darrays();
    compactness();
#if MPI_VERSION >= 4
    large_layout();
#endif
    return dt_finish("datatype_combiners");
}
