/* Argument checks and the common path of the data entry points. */
#include "binding/bind.h"
#include "core/compat_env.h"
#include "core/say.h"
#include "datatype/usable.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

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

/* A data call's outcome. Where the job script asks for it (Cray's
 * MPICH_MPIIO_ABORT_ON_RW_ERROR=enable), a transfer the file system failed
 * ends the job here, naming the call, the file and the cause; argument
 * errors still go to the file's error handler. */
static int rw_outcome(ferry_file *f, int code, const char *fname)
{
    int cls = code == MPI_SUCCESS ? MPI_SUCCESS : ferry_err_class(code);
    const char *var = cls == MPI_ERR_IO || cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA
                    ? ferry_env_abort_on_rw_error() : NULL;
    if (var) {
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(code, text, &len);
        for (char *c = text; *c; c++) /* one line, whatever the MPI library's text holds */
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        ferry_say(FERRY_INFO, "%s on \"%s\" failed: %s; aborting (%s)", fname, f->filename, text, var);
        /* the launcher forwards a rank's stderr on its own time: an abort at
         * once kills the line in transit (Open MPI lost it every time) */
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return ferry_raise(f, code, fname);
}

int ferry_bind_io(MPI_File fh, ferry_call *c, MPI_Status *status, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return rw_outcome(f, ferry_io(f, c, local, status), fname);
}

int ferry_bind_iio(MPI_File fh, ferry_call *c, MPI_Request *req, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    if (!req)
        return ferry_raise(f, ferry_err(MPI_ERR_REQUEST, "request pointer is NULL"), fname);
    *req = MPI_REQUEST_NULL;
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return rw_outcome(f, ferry_io_nonblocking(f, c, local, req), fname);
}

int ferry_bind_begin(MPI_File fh, ferry_call *c, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    int local = ferry_bind_check_data(f, c->buf, c->count, c->type, c->is_write, c->where, c->offset);
    return rw_outcome(f, ferry_io_split_begin(f, c, local), fname);
}

int ferry_bind_end(MPI_File fh, int is_write, MPI_Status *status, const char *fname)
{
    FERRY_FILE(fh, f, fname);
    return rw_outcome(f, ferry_io_split_end(f, is_write, status), fname);
}
