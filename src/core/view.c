/*
 * File views. A view is kept flattened, so positions in etype units become
 * byte offsets by tiling the filetype from the displacement. HDF5 sets a view
 * twice per collective transfer, so setting one costs a single allreduce
 * (two barriers more only if a shared pointer was used since the last reset).
 */
#include "core/datarep.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/watchdog.h"
#include "datatype/usable.h"
#include "util/fnv.h"

#include <string.h>

static void type_release(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL && !ferry_dt_is_named(*t))
        MPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

static int type_hold(MPI_Datatype t, MPI_Datatype *out)
{
    if (ferry_dt_is_named(t)) {
        *out = t;
        return MPI_SUCCESS;
    }
    return MPI_Type_dup(t, out);
}

void ferry_view_init(ferry_view *v)
{
    memset(v, 0, sizeof *v);
    v->etype = MPI_BYTE;
    v->filetype = MPI_BYTE;
    v->etype_size = 1;
    v->ft = ferry_flat_bytes(1);
    strcpy(v->datarep, "native");
    v->is_bytes = 1;
}

void ferry_view_free(ferry_view *v)
{
    type_release(&v->etype);
    type_release(&v->filetype);
    if (v->ft)
        ferry_flat_release(v->ft);
    v->ft = NULL;
}

/* The standard names no class for an etype or filetype that breaks the
 * layout rules of MPI-3.1 §13.3, so programs test what their own MPI gives:
 * MPICH's ROMIO says MPI_ERR_IO to all three (its tst_fileview checks that);
 * Open MPI's binding says MPI_ERR_TYPE to unordered and overlapping blocks
 * and OMPIO MPI_ERR_IO to negative ones. ferry answers as the MPI it is
 * built for. */
#if defined(OPEN_MPI)
#define BAD_NEGATIVE MPI_ERR_IO
#define BAD_ORDER MPI_ERR_TYPE
#define BAD_OVERLAP MPI_ERR_TYPE
#else
#define BAD_NEGATIVE MPI_ERR_IO
#define BAD_ORDER MPI_ERR_IO
#define BAD_OVERLAP MPI_ERR_IO
#endif

static int check_layout(const ferry_flat *t, int writable, const char *what_neg, const char *what_order,
                        const char *what_overlap)
{
    if (t->flags & FERRY_FLAT_NEGATIVE)
        return ferry_err(BAD_NEGATIVE, what_neg);
    if (t->flags & FERRY_FLAT_DECREASE)
        return ferry_err(BAD_ORDER, what_order);
    if ((t->flags & FERRY_FLAT_OVERLAP) && writable)
        return ferry_err(BAD_OVERLAP, what_overlap);
    return MPI_SUCCESS;
}

/* Local checks of set_view arguments; returns an error code and fills what it learned. */
static int check_view(ferry_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, ferry_flat **ft, int64_t *esize)
{
    *ft = NULL;
    if (etype == MPI_DATATYPE_NULL)
        return ferry_err(MPI_ERR_TYPE, "etype is MPI_DATATYPE_NULL");
    if (filetype == MPI_DATATYPE_NULL)
        return ferry_err(MPI_ERR_TYPE, "filetype is MPI_DATATYPE_NULL");
    ferry_rep rep;
    int rc = ferry_rep_lookup(datarep, &rep);
    if (rc != MPI_SUCCESS)
        return rc;
    if (strlen(datarep) >= sizeof f->view.datarep)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep name is longer than ferry keeps");
    if (disp < 0 && !(disp == MPI_DISPLACEMENT_CURRENT && (f->amode & MPI_MODE_SEQUENTIAL)))
        return ferry_err(MPI_ERR_ARG, "view displacement is negative");
    if (!ferry_dt_committed(etype, f->comm))
        return ferry_err(MPI_ERR_TYPE, "etype is not committed");
    if (!ferry_dt_committed(filetype, f->comm))
        return ferry_err(MPI_ERR_TYPE, "filetype is not committed");
    int writable = !(f->amode & MPI_MODE_RDONLY);
    ferry_flat *et = NULL;
    rc = ferry_flat_get(etype, &et);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, "etype cannot be flattened");
    *esize = et->size;
    rc = check_layout(et, writable, "etype has a negative displacement",
                      "etype displacements are not monotonically nondecreasing", "etype overlaps itself in a writable file");
    ferry_flat_release(et);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*esize <= 0)
        return ferry_err(MPI_ERR_TYPE, "etype has size zero");
    /* other representations: the view's sizes and layout are the file's */
    MPI_Datatype fft = filetype;
    int made = 0;
    if (rep.kind != FERRY_REP_NATIVE) {
        rc = ferry_rep_size(&rep, etype, 1, esize);
        if (rc == MPI_SUCCESS)
            rc = ferry_rep_file_type(&rep, filetype, &fft, &made);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = ferry_flat_get(fft, ft);
    if (made)
        MPI_Type_free(&fft);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, "filetype cannot be flattened");
    if ((*ft)->size % *esize != 0)
        return ferry_err(MPI_ERR_ARG, "filetype is not built from whole etypes");
    return check_layout(*ft, writable, "filetype has a negative displacement",
                        "filetype displacements are not monotonically nondecreasing",
                        "filetype overlaps itself in a writable file");
}

enum { VA_ERR, VA_ESIZE, VA_NESIZE, VA_REP, VA_NREP, VA_TOUCHED, VA_N };

int ferry_view_set(ferry_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                   const char *datarep, MPI_Info info)
{
    double t0 = ferry_now();
    ferry_flat *ft = NULL;
    int64_t esize = 0;
    int code = check_view(f, disp, etype, filetype, datarep, &ft, &esize);
    int64_t rep = datarep ? (int64_t)(ferry_fnv_str(datarep) >> 2) : 0; /* -rep representable */
    int64_t v[VA_N] = {ferry_err_class(code), esize, -esize, rep, -rep, f->shfp_touched};
    int64_t r[VA_N];
    MPI_Allreduce(v, r, VA_N, MPI_INT64_T, MPI_MAX, f->comm);
    if (code == MPI_SUCCESS && r[VA_ERR] != MPI_SUCCESS)
        code = ferry_err((int)r[VA_ERR], "set_view failed on another rank");
    else if (code == MPI_SUCCESS && r[VA_ESIZE] != -r[VA_NESIZE])
        code = ferry_err(MPI_ERR_ARG, "etype size differs between the ranks of set_view");
    else if (code == MPI_SUCCESS && r[VA_REP] != -r[VA_NREP])
        code = ferry_err(MPI_ERR_ARG, "datarep differs between the ranks of set_view");
    if (code != MPI_SUCCESS) {
        if (ft)
            ferry_flat_release(ft);
        ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
        return code;
    }
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        /* sequential files: the view starts where the shared pointer is */
        int64_t cur = 0;
        ferry_shfp_fetch_add(f, 0, &cur);
        disp = ferry_view_byte_offset(f, cur);
    }
    ferry_view nv;
    memset(&nv, 0, sizeof nv);
    nv.disp = disp;
    nv.etype_size = esize;
    nv.ft = ft;
    strncpy(nv.datarep, datarep, sizeof nv.datarep - 1);
    if (type_hold(etype, &nv.etype) != MPI_SUCCESS || type_hold(filetype, &nv.filetype) != MPI_SUCCESS) {
        ferry_view_free(&nv);
        return ferry_err(MPI_ERR_INTERN, "could not keep the view's datatypes");
    }
    nv.is_bytes = ft->contig && ft->lb == 0;
    ferry_view_free(&f->view);
    f->view = nv;
    f->fp = 0;
    if (r[VA_TOUCHED])
        ferry_shfp_reset(f, 0);
    if (info != MPI_INFO_NULL) {
        ferry_hint_warnings w = {0};
        ferry_hints_apply_info(&f->hints, info, &w);
        ferry_hints_apply_env(&f->hints, f->filename, &w);
        ferry_watchdog_watch(&f->fd, f->filename, f->hints.io_timeout);
    }
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    return MPI_SUCCESS;
}

int64_t ferry_view_byte_offset(const ferry_file *f, int64_t off)
{
    const ferry_view *v = &f->view;
    int64_t pos = off * v->etype_size;
    if (v->is_bytes || v->ft->size == 0)
        return v->disp + pos;
    int64_t inst = pos / v->ft->size, rem = pos % v->ft->size;
    return v->disp + inst * v->ft->extent + ferry_flat_offset_of(v->ft, 0, rem);
}
