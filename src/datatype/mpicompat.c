/* Datatype queries through the public MPI interface: the MPI-4 large-count
 * (`_c`) forms when the header offers them, the MPI-3 `_x` forms otherwise. */
#include "datatype/flat_internal.h"

#include <stdlib.h>

int ferry_dt_combiner(MPI_Datatype t, int *comb)
{
#if MPI_VERSION >= 4
    MPI_Count ni, na, nc, nd;
    return MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, comb);
#else
    int ni, na, nd;
    return MPI_Type_get_envelope(t, &ni, &na, &nd, comb);
#endif
}

int ferry_dt_is_predefined_combiner(int comb)
{
    return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
           comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

static void *xmalloc(int64_t n, size_t each)
{
    return malloc((size_t)(n > 0 ? n : 1) * each);
}

int ferry_dt_contents_get(MPI_Datatype t, ferry_dt_contents *c)
{
    int rc;
    c->ints = NULL;
    c->addrs = NULL;
    c->cnts = NULL;
    c->types = NULL;
    c->nd = 0;
#if MPI_VERSION >= 4
    MPI_Count ni, na, nc, nd;
    rc = MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &c->comb);
#else
    int ni, na, nd;
    MPI_Count nc = 0;
    rc = MPI_Type_get_envelope(t, &ni, &na, &nd, &c->comb);
#endif
    if (rc != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    c->ni = ni;
    c->na = na;
    c->nc = nc;
    c->large = nc > 0;
    c->ints = xmalloc(ni, sizeof(int));
    c->addrs = xmalloc(na, sizeof(MPI_Aint));
    c->cnts = xmalloc(nc, sizeof(MPI_Count));
    c->types = xmalloc(nd, sizeof(MPI_Datatype));
    if (!c->ints || !c->addrs || !c->cnts || !c->types) {
        ferry_dt_contents_free(c);
        return MPI_ERR_NO_MEM;
    }
#if MPI_VERSION >= 4
    rc = MPI_Type_get_contents_c(t, ni, na, nc, nd, c->ints, c->addrs, c->cnts, c->types);
#else
    rc = MPI_Type_get_contents(t, ni, na, nd, c->ints, c->addrs, c->types);
#endif
    if (rc != MPI_SUCCESS) {
        ferry_dt_contents_free(c);
        return MPI_ERR_TYPE;
    }
    c->nd = nd; /* from here on the types are ours to free */
    return MPI_SUCCESS;
}

void ferry_dt_contents_free(ferry_dt_contents *c)
{
    for (int64_t i = 0; i < c->nd; i++) {
        int comb;
        if (ferry_dt_combiner(c->types[i], &comb) == MPI_SUCCESS &&
            !ferry_dt_is_predefined_combiner(comb))
            MPI_Type_free(&c->types[i]);
    }
    free(c->ints);
    free(c->addrs);
    free(c->cnts);
    free(c->types);
    c->ints = NULL;
    c->addrs = NULL;
    c->cnts = NULL;
    c->types = NULL;
    c->nd = 0;
}

int ferry_dt_extents(MPI_Datatype t, int64_t *size, int64_t *lb, int64_t *extent,
                     int64_t *true_lb, int64_t *true_extent)
{
    MPI_Count s, l, e, tl, te;
#if MPI_VERSION >= 4
    if (MPI_Type_size_c(t, &s) != MPI_SUCCESS || MPI_Type_get_extent_c(t, &l, &e) != MPI_SUCCESS ||
        MPI_Type_get_true_extent_c(t, &tl, &te) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
#else
    if (MPI_Type_size_x(t, &s) != MPI_SUCCESS || MPI_Type_get_extent_x(t, &l, &e) != MPI_SUCCESS ||
        MPI_Type_get_true_extent_x(t, &tl, &te) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
#endif
    if (s == MPI_UNDEFINED || s < 0)
        return MPI_ERR_TYPE;
    *size = s;
    *lb = l;
    *extent = e;
    *true_lb = tl;
    *true_extent = te;
    return MPI_SUCCESS;
}
