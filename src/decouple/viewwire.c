/*
 * Views travel flattened: a datatype handle means nothing in another
 * process, but its flattened segments do. The data process rebuilds an
 * equivalent byte-based type and sets it through the core, which checks and
 * flattens it as for any MPI_File_set_view.
 */
#include "core/errors.h"
#include "decouple/decouple.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct vw_head {
    int64_t disp, esize, lb, extent, size, nsegs;
    char datarep[64];
} vw_head;

int dc_view_pack(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, char **blob,
                 int64_t *len, int64_t *esize, int64_t *ftsize)
{
    *blob = NULL;
    if (etype == MPI_DATATYPE_NULL || filetype == MPI_DATATYPE_NULL)
        return ferry_err(MPI_ERR_TYPE, "etype or filetype is MPI_DATATYPE_NULL");
    if (!datarep)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep is NULL");
    if (strlen(datarep) >= 64)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep is not one ferry supports (native, internal)");
    MPI_Count es = 0;
    MPI_Type_size_x(etype, &es);
    if (es <= 0 || es > INT_MAX)
        return ferry_err(MPI_ERR_TYPE, "etype has size zero");
    ferry_flat *ft = NULL;
    int rc = ferry_flat_get(filetype, &ft);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, "filetype cannot be flattened");
    int64_t n = ft->nsegs;
    *len = (int64_t)sizeof(vw_head) + n * (int64_t)sizeof(ferry_seg);
    char *b = malloc((size_t)*len);
    if (!b) {
        ferry_flat_release(ft);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory sending a view");
    }
    vw_head h;
    memset(&h, 0, sizeof h);
    h.disp = disp;
    h.esize = es;
    h.lb = ft->lb;
    h.extent = ft->extent;
    h.size = ft->size;
    h.nsegs = n;
    strcpy(h.datarep, datarep);
    memcpy(b, &h, sizeof h);
    if (n > 0)
        memcpy(b + sizeof h, ft->segs, (size_t)n * sizeof(ferry_seg));
    *esize = es;
    *ftsize = ft->size;
    ferry_flat_release(ft);
    *blob = b;
    return MPI_SUCCESS;
}

/* A type of len contiguous bytes, whatever the size. */
static int bytes_type(int64_t len, MPI_Datatype *t)
{
    if (len <= INT_MAX)
        return MPI_Type_contiguous((int)len, MPI_BYTE, t);
    const int64_t g = (int64_t)1 << 30;
    MPI_Datatype giga, parts[2];
    MPI_Type_contiguous((int)g, MPI_BYTE, &giga);
    MPI_Type_contiguous((int)(len / g), giga, &parts[0]);
    MPI_Type_contiguous((int)(len % g), MPI_BYTE, &parts[1]);
    int bl[2] = {1, 1};
    MPI_Aint at[2] = {0, (MPI_Aint)(len / g * g)};
    int rc = MPI_Type_create_struct(2, bl, at, parts, t);
    MPI_Type_free(&giga);
    MPI_Type_free(&parts[0]);
    MPI_Type_free(&parts[1]);
    return rc;
}

/* Segments -> struct of (h)vectors of bytes, resized to the original bounds. */
static int rebuild(const vw_head *h, const ferry_seg *segs, MPI_Datatype *out)
{
    int n = (int)h->nsegs;
    MPI_Datatype inner;
    int rc = MPI_SUCCESS;
    if (n == 0) {
        rc = MPI_Type_contiguous(0, MPI_BYTE, &inner);
    } else {
        MPI_Datatype *types = malloc((size_t)n * sizeof *types);
        MPI_Aint *at = malloc((size_t)n * sizeof *at);
        int *bl = malloc((size_t)n * sizeof *bl);
        if (!types || !at || !bl) {
            free(types);
            free(at);
            free(bl);
            return MPI_ERR_NO_MEM;
        }
        int made = 0;
        for (; made < n; made++) {
            const ferry_seg *s = &segs[made];
            MPI_Datatype block;
            rc = bytes_type(s->len, &block);
            if (rc != MPI_SUCCESS)
                break;
            if (s->count > 1) {
                rc = MPI_Type_create_hvector((int)s->count, 1, (MPI_Aint)s->stride, block, &types[made]);
                MPI_Type_free(&block);
                if (rc != MPI_SUCCESS)
                    break;
            } else {
                types[made] = block;
            }
            at[made] = (MPI_Aint)s->off;
            bl[made] = 1;
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_struct(n, bl, at, types, &inner);
        for (int i = 0; i < made; i++)
            MPI_Type_free(&types[i]);
        free(types);
        free(at);
        free(bl);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_create_resized(inner, (MPI_Aint)h->lb, (MPI_Aint)h->extent, out);
    MPI_Type_free(&inner);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    return rc;
}

int dc_view_apply(ferry_file *f, const char *blob, int64_t len)
{
    vw_head h;
    if (len < (int64_t)sizeof h)
        return ferry_err(MPI_ERR_INTERN, "a view arrived damaged");
    memcpy(&h, blob, sizeof h);
    if (h.nsegs < 0 || h.nsegs > INT_MAX || len != (int64_t)sizeof h + h.nsegs * (int64_t)sizeof(ferry_seg))
        return ferry_err(MPI_ERR_INTERN, "a view arrived damaged");
    ferry_seg *segs = NULL;
    if (h.nsegs > 0) {
        segs = malloc((size_t)h.nsegs * sizeof *segs);
        if (!segs)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory setting a view");
        memcpy(segs, blob + sizeof h, (size_t)h.nsegs * sizeof *segs);
    }
    MPI_Datatype et = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
    int rc = MPI_Type_contiguous((int)h.esize, MPI_BYTE, &et);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&et);
    if (rc == MPI_SUCCESS)
        rc = rebuild(&h, segs, &ft);
    free(segs);
    if (rc != MPI_SUCCESS) {
        if (et != MPI_DATATYPE_NULL)
            MPI_Type_free(&et);
        return ferry_err(MPI_ERR_TYPE, "could not rebuild the view's filetype");
    }
    h.datarep[63] = 0;
    rc = ferry_view_set(f, (MPI_Offset)h.disp, et, ft, h.datarep, MPI_INFO_NULL);
    MPI_Type_free(&et);
    MPI_Type_free(&ft);
    return rc;
}
