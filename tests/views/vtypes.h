/*
 * Datatypes the view tests use, one per combiner and some nested ones, and
 * the oracle: the bytes a transfer must put in the file are what MPI_Unpack
 * of the data stream into the file region (through the filetype) gives, the
 * data stream being MPI_Pack of the user buffer through the memory type.
 * Every type is rank independent, so all ranks agree on region sizes.
 */
#ifndef FERRY_TEST_VTYPES_H
#define FERRY_TEST_VTYPES_H

#include "mpi/tutil.h"

#include <stdint.h>

typedef MPI_Datatype (*vt_builder)(void);

static inline MPI_Datatype vt_commit(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype vt_contig(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(12, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(8, 3, 5, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_hvector(void)
{
    MPI_Datatype t;
    MPI_Type_create_hvector(6, 2, 20, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_indexed(void)
{
    int bl[3] = {2, 1, 3}, d[3] = {0, 4, 7};
    MPI_Datatype t;
    MPI_Type_indexed(3, bl, d, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_hindexed(void)
{
    int bl[3] = {2, 1, 3};
    MPI_Aint d[3] = {0, 20, 40};
    MPI_Datatype t;
    MPI_Type_create_hindexed(3, bl, d, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_indexed_block(void)
{
    int d[3] = {0, 3, 7};
    MPI_Datatype t;
    MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_hindexed_block(void)
{
    MPI_Aint d[3] = {0, 16, 40};
    MPI_Datatype t;
    MPI_Type_create_hindexed_block(3, 2, d, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_struct(void)
{
    int bl[3] = {2, 1, 3};
    MPI_Aint d[3] = {0, 16, 32};
    MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Datatype t;
    MPI_Type_create_struct(3, bl, d, ts, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_subarray_c(void)
{
    int sz[2] = {8, 8}, sub[2] = {3, 4}, st[2] = {2, 1};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_subarray_f(void)
{
    int sz[3] = {5, 4, 3}, sub[3] = {2, 2, 2}, st[3] = {1, 2, 1};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_darray(int dist, int psize)
{
    int g[2] = {8, 6}, d[2] = {dist, MPI_DISTRIBUTE_BLOCK};
    int a[2] = {dist == MPI_DISTRIBUTE_CYCLIC ? 2 : MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int p[2] = {dist == MPI_DISTRIBUTE_NONE ? 1 : psize, 2};
    MPI_Datatype t;
    /* process 1 of the grid: rank independent, not rank 0's trivial corner */
    MPI_Type_create_darray(p[0] * p[1], 1, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_darray_block(void) { return vt_darray(MPI_DISTRIBUTE_BLOCK, 2); }
static MPI_Datatype vt_darray_cyclic(void) { return vt_darray(MPI_DISTRIBUTE_CYCLIC, 2); }
static MPI_Datatype vt_darray_none(void) { return vt_darray(MPI_DISTRIBUTE_NONE, 1); }
static MPI_Datatype vt_resized(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 64, &t);
    MPI_Type_free(&v);
    return vt_commit(t);
}
static MPI_Datatype vt_resized_lb(void)
{
    /* lower bound above the first block's start is fine as long as data sits at >= 0 */
    MPI_Datatype c, t;
    MPI_Type_contiguous(3, MPI_INT, &c);
    MPI_Type_create_resized(c, 8, 40, &t);
    MPI_Type_free(&c);
    return vt_commit(t);
}
static MPI_Datatype vt_resized_neg_lb(void)
{
    /* a negative lower bound: instances tile from lb, data at 0 and up */
    MPI_Datatype c, t;
    MPI_Type_contiguous(3, MPI_INT, &c);
    MPI_Type_create_resized(c, -8, 24, &t);
    MPI_Type_free(&c);
    return vt_commit(t);
}
static MPI_Datatype vt_dup(void)
{
    MPI_Datatype v = vt_vector(), t;
    MPI_Type_dup(v, &t);
    MPI_Type_free(&v);
    return vt_commit(t);
}
static MPI_Datatype vt_vec_of_struct(void)
{
    MPI_Datatype s = vt_struct(), t;
    MPI_Type_vector(3, 2, 3, s, &t);
    MPI_Type_free(&s);
    return vt_commit(t);
}
static MPI_Datatype vt_hvec_of_indexed(void)
{
    MPI_Datatype i = vt_indexed(), t;
    MPI_Type_create_hvector(4, 1, 64, i, &t);
    MPI_Type_free(&i);
    return vt_commit(t);
}
static MPI_Datatype vt_subarray_of_vector(void)
{
    MPI_Datatype v, r, t;
    MPI_Type_vector(2, 1, 2, MPI_SHORT, &v);
    MPI_Type_create_resized(v, 0, 8, &r);
    int sz[2] = {4, 6}, sub[2] = {2, 3}, st[2] = {1, 2};
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, r, &t);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    return vt_commit(t);
}
static MPI_Datatype vt_struct_nested(void)
{
    MPI_Datatype v = vt_vector(), h = vt_hindexed(), t;
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 200};
    MPI_Datatype ts[2] = {v, h};
    MPI_Type_create_struct(2, bl, d, ts, &t);
    MPI_Type_free(&v);
    MPI_Type_free(&h);
    return vt_commit(t);
}
static MPI_Datatype vt_big_pieces(void)
{
    /* pieces big enough that no MPI should sieve them */
    MPI_Datatype t;
    MPI_Type_vector(3, 40000, 50000, MPI_BYTE, &t);
    return vt_commit(t);
}
static MPI_Datatype vt_bytes_sparse(void)
{
    /* one byte in 97: many tiny runs with small gaps */
    MPI_Datatype t;
    MPI_Type_vector(500, 1, 97, MPI_BYTE, &t);
    return vt_commit(t);
}

static MPI_Datatype vt_kilo_pieces(void)
{
    /* 1 KiB pieces, 512-byte gaps: sieved, and read without a second copy */
    MPI_Datatype t;
    MPI_Type_vector(20, 1024, 1536, MPI_BYTE, &t);
    return vt_commit(t);
}

typedef struct vt_case {
    const char *name;
    vt_builder build;
} vt_case;

static const vt_case vt_cases[] = {
    {"contig", vt_contig},
    {"vector", vt_vector},
    {"hvector", vt_hvector},
    {"indexed", vt_indexed},
    {"hindexed", vt_hindexed},
    {"indexed_block", vt_indexed_block},
    {"hindexed_block", vt_hindexed_block},
    {"struct", vt_struct},
    {"subarray_c", vt_subarray_c},
    {"subarray_f", vt_subarray_f},
    {"darray_block", vt_darray_block},
    {"darray_cyclic", vt_darray_cyclic},
    {"darray_none", vt_darray_none},
    {"resized", vt_resized},
    {"resized_lb", vt_resized_lb},
    {"resized_neg_lb", vt_resized_neg_lb},
    {"dup", vt_dup},
    {"vec_of_struct", vt_vec_of_struct},
    {"hvec_of_indexed", vt_hvec_of_indexed},
    {"subarray_of_vector", vt_subarray_of_vector},
    {"struct_nested", vt_struct_nested},
    {"big_pieces", vt_big_pieces},
    {"bytes_sparse", vt_bytes_sparse},
    {"kilo_pieces", vt_kilo_pieces},
};
#define VT_NCASES ((int)(sizeof vt_cases / sizeof vt_cases[0]))

static inline int64_t vt_size(MPI_Datatype t)
{
    MPI_Count s = 0;
    MPI_Type_size_x(t, &s);
    return s;
}

static inline void vt_extent(MPI_Datatype t, int64_t *lb, int64_t *extent)
{
    MPI_Count l = 0, e = 0;
    MPI_Type_get_extent_x(t, &l, &e);
    *lb = l;
    *extent = e;
}

/* Bytes spanned by n instances of t from its origin (true upper bound of the last one). */
static inline int64_t vt_span(MPI_Datatype t, int64_t n)
{
    MPI_Count lb, ext, tlb, text;
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    return (n - 1) * ext + tlb + text;
}

/* Memory for n instances of t, and the offset of the origin inside it (room
 * for a negative lower bound). */
static inline char *vt_alloc(MPI_Datatype t, int64_t n, int64_t *origin, int64_t *len)
{
    MPI_Count lb, ext, tlb, text;
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    int64_t lo = tlb < 0 ? -tlb : 0;
    int64_t hi = (n > 0 ? (n - 1) * ext : 0) + tlb + text;
    *origin = lo;
    *len = lo + (hi > 0 ? hi : 0) + 8;
    return calloc((size_t)*len, 1);
}

/* Cheap order-sensitive digest for REPORT lines. */
static inline unsigned long long vt_digest(const void *p, int64_t n)
{
    const unsigned char *b = p;
    unsigned long long h = 1469598103934665603ull;
    for (int64_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

#endif
