/* Rebuilding a datatype over other leaves, combiner by combiner, with the
 * arguments MPI_Type_get_contents returns (the large-count form through the
 * MPI-4 `_c` constructors). */
#include "datatype/remap.h"
#include "datatype/flat_internal.h"

#include <stdlib.h>

static int build_classic(const ferry_dt_contents *c, MPI_Datatype *k, MPI_Datatype *out)
{
    const int *i = c->ints;
    const MPI_Aint *a = c->addrs;
    int n;
    switch (c->comb) {
    case MPI_COMBINER_DUP:
        return MPI_Type_dup(k[0], out);
    case MPI_COMBINER_CONTIGUOUS:
        return MPI_Type_contiguous(i[0], k[0], out);
    case MPI_COMBINER_VECTOR:
        return MPI_Type_vector(i[0], i[1], i[2], k[0], out);
    case MPI_COMBINER_HVECTOR:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
        return MPI_Type_create_hvector(i[0], i[1], a[0], k[0], out);
    case MPI_COMBINER_INDEXED:
        return MPI_Type_indexed(i[0], i + 1, i + 1 + i[0], k[0], out);
    case MPI_COMBINER_HINDEXED:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
        return MPI_Type_create_hindexed(i[0], i + 1, a, k[0], out);
    case MPI_COMBINER_INDEXED_BLOCK:
        return MPI_Type_create_indexed_block(i[0], i[1], i + 2, k[0], out);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return MPI_Type_create_hindexed_block(i[0], i[1], a, k[0], out);
    case MPI_COMBINER_STRUCT:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
        return MPI_Type_create_struct(i[0], i + 1, a, k, out);
    case MPI_COMBINER_SUBARRAY:
        n = i[0];
        return MPI_Type_create_subarray(n, i + 1, i + 1 + n, i + 1 + 2 * n, i[1 + 3 * n], k[0], out);
    case MPI_COMBINER_DARRAY:
        n = i[2];
        return MPI_Type_create_darray(i[0], i[1], n, i + 3, i + 3 + n, i + 3 + 2 * n, i + 3 + 3 * n, i[3 + 4 * n],
                                      k[0], out);
    case MPI_COMBINER_RESIZED:
        return MPI_Type_create_resized(k[0], a[0], a[1], out);
    default:
        return MPI_ERR_TYPE;
    }
}

#if MPI_VERSION >= 4
static int build_large(const ferry_dt_contents *c, MPI_Datatype *k, MPI_Datatype *out)
{
    const int *i = c->ints;
    const MPI_Count *m = c->cnts;
    MPI_Count n;
    switch (c->comb) {
    case MPI_COMBINER_CONTIGUOUS:
        return MPI_Type_contiguous_c(m[0], k[0], out);
    case MPI_COMBINER_VECTOR:
        return MPI_Type_vector_c(m[0], m[1], m[2], k[0], out);
    case MPI_COMBINER_HVECTOR:
        return MPI_Type_create_hvector_c(m[0], m[1], m[2], k[0], out);
    case MPI_COMBINER_INDEXED:
        return MPI_Type_indexed_c(m[0], m + 1, m + 1 + m[0], k[0], out);
    case MPI_COMBINER_HINDEXED:
        return MPI_Type_create_hindexed_c(m[0], m + 1, m + 1 + m[0], k[0], out);
    case MPI_COMBINER_INDEXED_BLOCK:
        return MPI_Type_create_indexed_block_c(m[0], m[1], m + 2, k[0], out);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return MPI_Type_create_hindexed_block_c(m[0], m[1], m + 2, k[0], out);
    case MPI_COMBINER_STRUCT:
        return MPI_Type_create_struct_c(m[0], m + 1, m + 1 + m[0], k, out);
    case MPI_COMBINER_SUBARRAY:
        n = i[0];
        return MPI_Type_create_subarray_c(i[0], m, m + n, m + 2 * n, i[1], k[0], out);
    case MPI_COMBINER_DARRAY:
        n = i[2];
        return MPI_Type_create_darray_c(i[0], i[1], i[2], m, i + 3, i + 3 + n, i + 3 + 2 * n, i[3 + 3 * n], k[0], out);
    case MPI_COMBINER_RESIZED:
        return MPI_Type_create_resized_c(k[0], m[0], m[1], out);
    default:
        return build_classic(c, k, out);
    }
}
#endif

/* t rebuilt (uncommitted); *owned says whether the caller must free it. */
static int remap(MPI_Datatype t, ferry_leaf_fn leaf, void *arg, MPI_Datatype *out, int *owned)
{
    int comb;
    *owned = 0;
    if (ferry_dt_combiner(t, &comb) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (ferry_dt_is_predefined_combiner(comb)) {
        *out = leaf(t, arg);
        return *out == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
    }
    ferry_dt_contents c;
    int rc = ferry_dt_contents_get(t, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Datatype *k = calloc((size_t)(c.nd > 0 ? c.nd : 1), sizeof *k);
    int *kown = calloc((size_t)(c.nd > 0 ? c.nd : 1), sizeof *kown);
    if (!k || !kown)
        rc = MPI_ERR_NO_MEM;
    int64_t made = 0;
    for (; made < c.nd && rc == MPI_SUCCESS; made++)
        rc = remap(c.types[made], leaf, arg, &k[made], &kown[made]);
    if (rc == MPI_SUCCESS) {
#if MPI_VERSION >= 4
        rc = c.large ? build_large(&c, k, out) : build_classic(&c, k, out);
#else
        rc = build_classic(&c, k, out);
#endif
        rc = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_TYPE;
        *owned = rc == MPI_SUCCESS;
    }
    for (int64_t j = 0; j < made; j++)
        if (kown && kown[j])
            MPI_Type_free(&k[j]);
    free(k);
    free(kown);
    ferry_dt_contents_free(&c);
    return rc;
}

int ferry_type_remap(MPI_Datatype t, ferry_leaf_fn leaf, void *arg, MPI_Datatype *out)
{
    int owned = 0;
    MPI_Datatype r;
    int rc = remap(t, leaf, arg, &r, &owned);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!owned) /* a predefined type: hand out a type of our own */
        rc = MPI_Type_dup(r, out);
    else
        *out = r;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_TYPE;
}
