/* Argument checks and the common path of the data entry points. */
#include "binding/bind.h"
#include "datatype/usable.h"

#include <stdint.h>

int ferry_bind_check_data(ferry_file *f, const void *buf, MPI_Count count, MPI_Datatype type,
                          int is_write, ferry_where where, MPI_Offset offset)
{
    if (count < 0)
        return ferry_err(MPI_ERR_COUNT, "count is negative");
    if (type == MPI_DATATYPE_NULL)
        return ferry_err(MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
    if (!ferry_dt_committed(type, f->comm))
        return ferry_err(MPI_ERR_TYPE, "datatype is not committed");
    if (is_write && (f->amode & MPI_MODE_RDONLY))
        return ferry_err(MPI_ERR_READ_ONLY, "write to a file opened MPI_MODE_RDONLY");
    if (!is_write && (f->amode & MPI_MODE_WRONLY))
        return ferry_err(MPI_ERR_ACCESS, "read from a file opened MPI_MODE_WRONLY");
    if ((where == FERRY_AT || where == FERRY_INDIVIDUAL) && (f->amode & MPI_MODE_SEQUENTIAL))
        return ferry_err(MPI_ERR_UNSUPPORTED_OPERATION,
                         "explicit offsets and individual file pointers are not allowed on MPI_MODE_SEQUENTIAL files");
    if (where == FERRY_AT && offset < 0)
        return ferry_err(MPI_ERR_ARG, "offset is negative");
    if (buf == NULL && count > 0) {
        /* MPI_BOTTOM is NULL: a NULL buffer is legal only with absolute
         * addresses, which never point into the first page. */
        MPI_Count size = 0, tlb = 0, text = 0;
        MPI_Type_size_x(type, &size);
        MPI_Type_get_true_extent_x(type, &tlb, &text);
        if (size > 0 && tlb < 4096)
            return ferry_err(MPI_ERR_BUFFER, "buffer is NULL with a nonzero count");
    }
    return MPI_SUCCESS;
}

int ferry_bind_io(MPI_File fh, ferry_call *c, MPI_Status *status, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return ferry_raise(f, ferry_io(f, c, local, status), fname);
}

int ferry_bind_iio(MPI_File fh, ferry_call *c, MPI_Request *req, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    if (!req)
        return ferry_raise(f, ferry_err(MPI_ERR_REQUEST, "request pointer is NULL"), fname);
    *req = MPI_REQUEST_NULL;
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return ferry_raise(f, ferry_io_nonblocking(f, c, local, req), fname);
}

int ferry_bind_begin(MPI_File fh, ferry_call *c, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return ferry_raise(f, ferry_io_split_begin(f, c, local), fname);
}

int ferry_bind_end(MPI_File fh, int is_write, MPI_Status *status, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    return ferry_raise(f, ferry_io_split_end(f, is_write, status), fname);
}
