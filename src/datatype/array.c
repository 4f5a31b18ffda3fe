/* Subarray and darray, computed from their parameters.
 *
 * Both select, in every dimension of a global array of oldtype elements, a
 * set of indices; the typemap visits the selected elements with the last
 * dimension fastest (C order) or the first (Fortran order), each dimension in
 * increasing index order. Per dimension the selection is a few "groups":
 * count runs of len consecutive indices, run j starting at start + j*step.
 * The segments are built from the fastest dimension outward, each level
 * replicating the level below, so a d-dimensional selection costs one
 * segment per selected row of the next-to-fastest dimension at most. */
#include "datatype/flat_internal.h"

#include <stdlib.h>

typedef struct group {
    int64_t start, len, count, step;
} group;

enum { MAXG = 2 };

typedef struct dim {
    int64_t gsize;
    int ngroups;
    group g[MAXG];
} dim;

static int build_levels(dim *dims, int64_t nd, const ferry_flat *old, ferry_seglist *out)
{
    for (int64_t d = 0; d < nd; d++) {
        int64_t sel = 0;
        for (int i = 0; i < dims[d].ngroups; i++)
            sel += dims[d].g[i].len * dims[d].g[i].count;
        if (sel == 0)
            return MPI_SUCCESS; /* nothing selected: empty type */
    }
    /* mult[d]: bytes between consecutive indices of dimension d */
    int64_t *mult = malloc((size_t)nd * sizeof *mult);
    if (!mult)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    mult[nd - 1] = old->extent;
    for (int64_t d = nd - 2; d >= 0 && rc == MPI_SUCCESS; d--)
        if (!ferry_mul64(mult[d + 1], dims[d + 1].gsize, &mult[d]))
            rc = MPI_ERR_TYPE;

    const ferry_seg *cur = old->segs;
    int64_t ncur = old->nsegs;
    ferry_seglist prev = {0}, next = {0}, blk = {0};
    for (int64_t d = nd - 1; d >= 0 && rc == MPI_SUCCESS; d--) {
        ferry_seglist *tgt = d == 0 ? out : &next;
        for (int i = 0; i < dims[d].ngroups && rc == MPI_SUCCESS; i++) {
            const group *g = &dims[d].g[i];
            int64_t disp, step;
            if (!ferry_mul64(g->start, mult[d], &disp) || !ferry_mul64(g->step, mult[d], &step)) {
                rc = MPI_ERR_TYPE;
                break;
            }
            if (g->count == 1) {
                rc = ferry_sl_replicate(tgt, cur, ncur, g->len, mult[d], disp);
            } else {
                blk.n = 0;
                rc = ferry_sl_replicate(&blk, cur, ncur, g->len, mult[d], 0);
                if (rc == MPI_SUCCESS)
                    rc = ferry_sl_replicate(tgt, blk.v, blk.n, g->count, step, disp);
            }
        }
        /* next level replicates this one */
        ferry_sl_free(&prev);
        prev = next;
        next = (ferry_seglist){0};
        cur = prev.v;
        ncur = prev.n;
    }
    ferry_sl_free(&prev);
    ferry_sl_free(&next);
    ferry_sl_free(&blk);
    free(mult);
    return rc;
}

/* Reverse the dimension order (Fortran -> C). */
static void reverse(dim *dims, int64_t nd)
{
    for (int64_t i = 0, j = nd - 1; i < j; i++, j--) {
        dim t = dims[i];
        dims[i] = dims[j];
        dims[j] = t;
    }
}

int ferry_flatten_subarray(const ferry_dt_contents *c, const ferry_flat *old, ferry_seglist *out)
{
    if (c->ni < 1)
        return MPI_ERR_TYPE;
    int64_t nd = c->ints[0];
    if (nd < 1 || (c->large ? (c->ni < 2 || c->nc < 3 * nd) : c->ni < 3 * nd + 2))
        return MPI_ERR_TYPE;
    int order = c->large ? c->ints[1] : c->ints[1 + 3 * nd];
    dim *dims = calloc((size_t)nd, sizeof *dims);
    if (!dims)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int64_t d = 0; d < nd; d++) {
        int64_t size, sub, start;
        if (c->large) {
            size = c->cnts[d];
            sub = c->cnts[nd + d];
            start = c->cnts[2 * nd + d];
        } else {
            size = c->ints[1 + d];
            sub = c->ints[1 + nd + d];
            start = c->ints[1 + 2 * nd + d];
        }
        if (size < 1 || sub < 0 || start < 0 || start + sub > size)
            rc = MPI_ERR_TYPE;
        dims[d].gsize = size;
        dims[d].ngroups = 1;
        dims[d].g[0] = (group){start, sub, 1, 0};
    }
    if (order == MPI_ORDER_FORTRAN)
        reverse(dims, nd);
    else if (order != MPI_ORDER_C)
        rc = MPI_ERR_TYPE;
    if (rc == MPI_SUCCESS)
        rc = build_levels(dims, nd, old, out);
    free(dims);
    return rc;
}

/* The indices of one dimension owned by process coordinate `coord`. */
static int distribute(dim *dm, int64_t gsize, int distrib, int64_t darg, int64_t p, int64_t coord)
{
    dm->gsize = gsize;
    dm->ngroups = 0;
    if (p < 1 || coord < 0 || coord >= p)
        return MPI_ERR_TYPE;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        dm->ngroups = 1;
        dm->g[0] = (group){0, gsize, 1, 0};
        return MPI_SUCCESS;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
        if (blk < 1)
            return MPI_ERR_TYPE;
        int64_t start;
        if (!ferry_mul64(coord, blk, &start))
            return MPI_ERR_TYPE;
        if (start < gsize) {
            int64_t len = gsize - start < blk ? gsize - start : blk;
            dm->ngroups = 1;
            dm->g[0] = (group){start, len, 1, 0};
        }
        return MPI_SUCCESS;
    }
    if (distrib == MPI_DISTRIBUTE_CYCLIC) {
        int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        int64_t first, span;
        if (k < 1 || !ferry_mul64(coord, k, &first) || !ferry_mul64(k, p, &span))
            return MPI_ERR_TYPE;
        if (first >= gsize)
            return MPI_SUCCESS;
        int64_t nb = (gsize - first + span - 1) / span; /* blocks, the last maybe short */
        int64_t last = first + (nb - 1) * span;
        int64_t lastlen = gsize - last < k ? gsize - last : k;
        if (lastlen == k) {
            dm->g[dm->ngroups++] = (group){first, k, nb, span};
        } else {
            if (nb > 1)
                dm->g[dm->ngroups++] = (group){first, k, nb - 1, span};
            dm->g[dm->ngroups++] = (group){last, lastlen, 1, 0};
        }
        return MPI_SUCCESS;
    }
    return MPI_ERR_TYPE;
}

int ferry_flatten_darray(const ferry_dt_contents *c, const ferry_flat *old, ferry_seglist *out)
{
    if (c->ni < 3)
        return MPI_ERR_TYPE;
    int64_t rank = c->ints[1], nd = c->ints[2];
    if (nd < 1 || (c->large ? (c->ni < 3 * nd + 4 || c->nc < nd) : c->ni < 4 * nd + 4))
        return MPI_ERR_TYPE;
    /* classic: size rank ndims gsizes[] distribs[] dargs[] psizes[] order
     * large:   size rank ndims distribs[] dargs[] psizes[] order; cnts: gsizes[] */
    const int *ip = c->ints + 3 + (c->large ? 0 : nd);
    const int *distribs = ip, *dargs = ip + nd, *psizes = ip + 2 * nd;
    int order = ip[3 * nd];
    dim *dims = calloc((size_t)nd, sizeof *dims);
    int64_t *coords = calloc((size_t)nd, sizeof *coords);
    int rc = MPI_SUCCESS;
    if (!dims || !coords) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    /* the process grid is row-major whatever the array order */
    int64_t r = rank;
    for (int64_t d = nd - 1; d >= 0; d--) {
        if (psizes[d] < 1) {
            rc = MPI_ERR_TYPE;
            goto done;
        }
        coords[d] = r % psizes[d];
        r /= psizes[d];
    }
    for (int64_t d = 0; d < nd && rc == MPI_SUCCESS; d++) {
        int64_t gsize = c->large ? (int64_t)c->cnts[d] : (int64_t)c->ints[3 + d];
        rc = distribute(&dims[d], gsize, distribs[d], dargs[d], psizes[d], coords[d]);
    }
    if (rc != MPI_SUCCESS)
        goto done;
    if (order == MPI_ORDER_FORTRAN)
        reverse(dims, nd);
    else if (order != MPI_ORDER_C) {
        rc = MPI_ERR_TYPE;
        goto done;
    }
    rc = build_levels(dims, nd, old, out);
done:
    free(dims);
    free(coords);
    return rc;
}
