/* One derived datatype -> its segment list, by combiner. Child types are
 * flattened first by the caller's `child` (flat.c: through its cache); this
 * file only composes their segments. */
#include "datatype/flat_internal.h"

#include <stdlib.h>

/* Argument accessors: the MPI-4 large-count layout keeps every count and
 * byte displacement in cnts[]; the classic layout splits them between
 * ints[] (counts, element displacements) and addrs[] (byte displacements). */
static inline int64_t cnt(const ferry_dt_contents *c, int64_t i) { return c->large ? (int64_t)c->cnts[i] : (int64_t)c->ints[i]; }

static int append_child(ferry_seglist *out, const ferry_flat *f, int64_t n, int64_t stride, int64_t disp)
{
    return ferry_sl_replicate(out, f->segs, f->nsegs, n, stride, disp);
}

/* `bl` consecutive copies of f (at its extent) placed at disp. */
static int append_block(ferry_seglist *out, const ferry_flat *f, int64_t bl, int64_t disp)
{
    return append_child(out, f, bl, f->extent, disp);
}

static int elem_disp(int64_t d, int64_t ext, int64_t *r)
{
    return ferry_mul64(d, ext, r) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

/* Block i's displacement in bytes: the count at j in units of f's extent
 * (elem: MPI_Type_indexed and its _block form), else a byte displacement,
 * at count j in the large-count layout and at addrs[i] in the classic one. */
static int block_disp(const ferry_dt_contents *c, const ferry_flat *f, int elem, int64_t j, int64_t i, int64_t *d)
{
    if (elem)
        return elem_disp(cnt(c, j), f->extent, d);
    *d = c->large ? (int64_t)c->cnts[j] : (int64_t)c->addrs[i];
    return MPI_SUCCESS;
}

/* The count blocks of the indexed combiners: block i of as many copies of
 * f as the count at bl_at + bl_step * i says (bl_step 0: one length for
 * all), at the displacement block_disp() finds at disp_at + i. */
static int do_indexed(ferry_seglist *out, const ferry_flat *f, const ferry_dt_contents *c, int elem, int64_t count,
                      int64_t bl_at, int64_t bl_step, int64_t disp_at)
{
    int rc = MPI_SUCCESS;
    for (int64_t i = 0; i < count && rc == MPI_SUCCESS; i++) {
        int64_t d;
        rc = block_disp(c, f, elem, disp_at + i, i, &d);
        if (rc == MPI_SUCCESS)
            rc = append_block(out, f, cnt(c, bl_at + bl_step * i), d);
    }
    return rc;
}

/* count blocks of bl copies of f, block i at stride*i bytes. */
static int do_vector(ferry_seglist *out, const ferry_flat *f, int64_t count, int64_t bl, int64_t stride)
{
    if (count <= 0 || bl <= 0)
        return MPI_SUCCESS;
    if (count == 1)
        return append_block(out, f, bl, 0);
    ferry_seglist blk = {0};
    int rc = append_block(&blk, f, bl, 0);
    if (rc == MPI_SUCCESS)
        rc = ferry_sl_replicate(out, blk.v, blk.n, count, stride, 0);
    ferry_sl_free(&blk);
    return rc;
}

static int build(const ferry_dt_contents *c, ferry_flat **kids, ferry_seglist *out)
{
    const ferry_flat *f = kids[0]; /* NULL only for a struct of count 0 */
    int64_t count, bl, stride, d;
    int rc = MPI_SUCCESS;

    switch (c->comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return append_child(out, f, 1, 0, 0);

    case MPI_COMBINER_CONTIGUOUS:
        return append_block(out, f, cnt(c, 0), 0);

    case MPI_COMBINER_VECTOR:
        if ((rc = elem_disp(cnt(c, 2), f->extent, &stride)) != MPI_SUCCESS)
            return rc;
        return do_vector(out, f, cnt(c, 0), cnt(c, 1), stride);

    case MPI_COMBINER_HVECTOR:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
        stride = c->large ? (int64_t)c->cnts[2] : (int64_t)c->addrs[0];
        return do_vector(out, f, cnt(c, 0), cnt(c, 1), stride);

    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
        count = cnt(c, 0);
        return do_indexed(out, f, c, c->comb == MPI_COMBINER_INDEXED, count, 1, 1, 1 + count);

    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (cnt(c, 1) <= 0)
            return MPI_SUCCESS;
        return do_indexed(out, f, c, c->comb == MPI_COMBINER_INDEXED_BLOCK, cnt(c, 0), 1, 0, 2);

    case MPI_COMBINER_STRUCT:
#ifdef FERRY_HAVE_MPI1_NAMES
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
        count = cnt(c, 0);
        for (int64_t i = 0; i < count && rc == MPI_SUCCESS; i++) {
            bl = cnt(c, 1 + i);
            d = c->large ? (int64_t)c->cnts[1 + count + i] : (int64_t)c->addrs[i];
            rc = append_block(out, kids[i], bl, d);
        }
        return rc;

    case MPI_COMBINER_SUBARRAY:
        return ferry_flatten_subarray(c, f, out);

    case MPI_COMBINER_DARRAY:
        return ferry_flatten_darray(c, f, out);

    default:
        return MPI_ERR_TYPE;
    }
}

int ferry_flatten_derived(MPI_Datatype t, ferry_flat_child_fn *child, ferry_seglist *out)
{
    ferry_dt_contents c;
    int rc = ferry_dt_contents_get(t, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    ferry_flat **kids = calloc((size_t)(c.nd > 0 ? c.nd : 1), sizeof *kids);
    if (!kids) {
        ferry_dt_contents_free(&c);
        return MPI_ERR_NO_MEM;
    }
    int is_struct = c.comb == MPI_COMBINER_STRUCT;
#ifdef FERRY_HAVE_MPI1_NAMES
    is_struct |= c.comb == MPI_COMBINER_STRUCT_INTEGER;
#endif
    if (c.nd < 1 && !is_struct) /* every other combiner has an oldtype */
        rc = MPI_ERR_TYPE;
    for (int64_t i = 0; i < c.nd && rc == MPI_SUCCESS; i++) {
        if (i > 0 && c.types[i] == c.types[i - 1]) { /* struct of one type */
            ferry_flat_retain(kids[i - 1]);
            kids[i] = kids[i - 1];
        } else {
            rc = child(c.types[i], &kids[i]);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = build(&c, kids, out);
    for (int64_t i = 0; i < c.nd; i++)
        if (kids[i])
            ferry_flat_release(kids[i]);
    free(kids);
    ferry_dt_contents_free(&c);
    return rc;
}
