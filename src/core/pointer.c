/* Individual and shared file pointers, in etype units of the current view. */
#include "core/errors.h"
#include "core/manage.h"

int ferry_view_eof_offset(ferry_file *f, int64_t *off)
{
    int64_t size = 0;
    int err = f->fd.drv->size(&f->fd, &size);
    if (err)
        return ferry_err_errno(err, f->filename);
    const ferry_view *v = &f->view;
    if (size <= v->disp || v->ft->size == 0) {
        *off = 0;
        return MPI_SUCCESS;
    }
    if (v->is_bytes) {
        *off = (size - v->disp + v->etype_size - 1) / v->etype_size;
        return MPI_SUCCESS;
    }
    /* Byte offsets grow with etype offsets: find the first one at or past
     * the end by doubling, then bisection. */
    int64_t lo = 0, hi = 1;
    while (ferry_view_byte_offset(f, hi) < size)
        hi *= 2;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ferry_view_byte_offset(f, mid) < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    *off = lo;
    return MPI_SUCCESS;
}

static int resolve(ferry_file *f, MPI_Offset offset, int whence, int64_t cur, int64_t *out)
{
    int64_t base;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = cur; break;
    case MPI_SEEK_END: {
        int rc = ferry_view_eof_offset(f, &base);
        if (rc != MPI_SUCCESS)
            return rc;
        break;
    }
    default: return ferry_err(MPI_ERR_ARG, "whence is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END");
    }
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0)
        return ferry_err(MPI_ERR_ARG, "seek would move the file pointer before the start of the view");
    *out = base + offset;
    return MPI_SUCCESS;
}

int ferry_file_seek(ferry_file *f, MPI_Offset offset, int whence)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return ferry_err(MPI_ERR_UNSUPPORTED_OPERATION, "seek is not allowed on MPI_MODE_SEQUENTIAL files");
    int64_t to = 0;
    int rc = resolve(f, offset, whence, f->fp, &to);
    if (rc == MPI_SUCCESS)
        f->fp = to;
    return rc;
}

int ferry_file_seek_shared(ferry_file *f, MPI_Offset offset, int whence)
{
    int64_t cur = 0, to = 0;
    int rc = MPI_SUCCESS;
    if (f->amode & MPI_MODE_SEQUENTIAL)
        rc = ferry_err(MPI_ERR_UNSUPPORTED_OPERATION, "seek_shared is not allowed on MPI_MODE_SEQUENTIAL files");
    if (rc == MPI_SUCCESS && whence == MPI_SEEK_CUR)
        rc = ferry_shfp_fetch_add(f, 0, &cur);
    /* all ranks must pass the same arguments: compare them in one allreduce */
    int64_t v[5] = {ferry_err_class(rc), offset, -(int64_t)offset, whence, -(int64_t)whence}, r[5];
    MPI_Allreduce(v, r, 5, MPI_INT64_T, MPI_MAX, f->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r[0] != MPI_SUCCESS)
        return ferry_err((int)r[0], "seek_shared failed on another rank");
    if (r[1] != -r[2] || r[3] != -r[4])
        return ferry_err(MPI_ERR_ARG, "seek_shared was given different arguments on different ranks");
    /* SEEK_CUR: rank 0's view of the pointer is the one everyone uses */
    if (whence == MPI_SEEK_CUR && f->size > 1)
        MPI_Bcast(&cur, 1, MPI_INT64_T, 0, f->comm);
    rc = resolve(f, offset, whence, cur, &to);
    rc = ferry_agree(f, rc, "seek_shared failed on another rank");
    if (rc != MPI_SUCCESS)
        return rc;
    if (whence == MPI_SEEK_END && f->size > 1)
        MPI_Bcast(&to, 1, MPI_INT64_T, 0, f->comm);
    return ferry_shfp_reset(f, to);
}

int ferry_file_position_shared(ferry_file *f, MPI_Offset *offset)
{
    int64_t cur = 0;
    int rc = ferry_shfp_fetch_add(f, 0, &cur);
    *offset = cur;
    return rc;
}
