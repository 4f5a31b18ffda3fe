#include "core/io.h"
#include "core/datarep_io.h"
#include "core/errors.h"
#include "strategy/strategy.h"

/* Positions for write_ordered/read_ordered: rank order, one fetch-and-add of
 * the total on the shared pointer by the last rank. */
static int ordered_start(ferry_file *f, int64_t etypes, int64_t *start)
{
    double t0 = ferry_now();
    int64_t incl = etypes, base = 0;
    MPI_Scan(&etypes, &incl, 1, MPI_INT64_T, MPI_SUM, f->comm);
    int rc = MPI_SUCCESS;
    if (f->rank == f->size - 1)
        rc = ferry_shfp_fetch_add(f, incl, &base);
    MPI_Bcast(&base, 1, MPI_INT64_T, f->size - 1, f->comm);
    *start = base + incl - etypes;
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    return rc;
}

static void count_call(ferry_file *f, const ferry_call *c, int64_t done)
{
    if (c->is_write) {
        *(c->collective ? &f->stats.coll_writes : &f->stats.ind_writes) += 1;
        f->stats.bytes_written += done;
    } else {
        *(c->collective ? &f->stats.coll_reads : &f->stats.ind_reads) += 1;
        f->stats.bytes_read += done;
    }
}

int ferry_io(ferry_file *f, const ferry_call *c, int local_err, MPI_Status *status)
{
    if (local_err != MPI_SUCCESS && !c->collective)
        return local_err;
    ferry_xfer x = {.buf = c->buf, .mem = NULL, .memcount = c->count, .is_write = c->is_write};
    int code = local_err;
    int64_t es = f->view.etype_size;
    if (code == MPI_SUCCESS) {
        code = ferry_flat_get(c->type, &x.mem);
        if (code != MPI_SUCCESS)
            code = ferry_err(code, "the buffer datatype cannot be flattened");
    }
    if (code == MPI_SUCCESS) {
        if (c->count > 0 && x.mem->size > INT64_MAX / c->count)
            code = ferry_err(MPI_ERR_COUNT, "count times datatype size overflows");
        else
            x.bytes = x.mem->size * c->count;
    }
    ferry_stage stage = {0}; /* non-native views move file-side bytes from here on */
    if (code == MPI_SUCCESS)
        code = ferry_datarep_stage(f, c, &x, &stage);
    if (code == MPI_SUCCESS && x.bytes % es != 0)
        code = ferry_err(MPI_ERR_IO, "only a whole number of etypes can be accessed");
    if (code == MPI_SUCCESS && x.bytes > 0 && f->view.ft->size == 0)
        code = ferry_err(MPI_ERR_IO, "the view's filetype holds no data");
    if (code != MPI_SUCCESS)
        x.bytes = 0;

    int64_t start = 0;
    switch (c->where) {
    case FERRY_AT: start = c->offset; break;
    case FERRY_INDIVIDUAL: start = f->fp; break;
    case FERRY_SHARED:
        if (code == MPI_SUCCESS)
            code = ferry_shfp_fetch_add(f, x.bytes / es, &start);
        break;
    case FERRY_ORDERED: {
        int rc = ordered_start(f, x.bytes / es, &start);
        if (code == MPI_SUCCESS)
            code = rc;
        break;
    }
    }
    if (start > INT64_MAX / es)
        code = code ? code : ferry_err(MPI_ERR_ARG, "offset is out of range");
    x.pos = start <= INT64_MAX / es ? start * es : 0;

    int64_t done = 0;
    if (c->collective)
        code = ferry_strategy_collective(f, &x, code, &done);
    else if (code == MPI_SUCCESS)
        code = ferry_strategy_independent(f, &x, 0, &done);
    if (x.mem)
        ferry_flat_release(x.mem);
    if (c->where == FERRY_INDIVIDUAL)
        f->fp = start + done / es;
    done = ferry_datarep_unstage(&stage, c->is_write, done, &code);
    count_call(f, c, done);
    ferry_status_set(status, done);
    return code;
}

int ferry_io_nonblocking(ferry_file *f, const ferry_call *c, int local_err, MPI_Request *req)
{
    MPI_Status st;
    double t0 = ferry_now();
    int code = ferry_io(f, c, local_err, &st);
    ferry_stats_phase(&f->stats, FERRY_PHASE_WAIT, t0);
    if (code != MPI_SUCCESS) {
        *req = MPI_REQUEST_NULL;
        return code;
    }
    MPI_Count bytes = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    return ferry_request_completed(MPI_SUCCESS, bytes, req);
}

int ferry_io_split_begin(ferry_file *f, const ferry_call *c, int local_err)
{
    int busy = f->split.active;
    if (local_err == MPI_SUCCESS && busy)
        local_err = ferry_err(MPI_ERR_OTHER, "a split collective is already active on this file");
    MPI_Status st;
    int code = ferry_io(f, c, local_err, &st);
    if (busy)
        return code; /* the active split keeps its state for its own end */
    MPI_Count bytes = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    f->split.active = 1;
    f->split.is_write = c->is_write;
    f->split.err = code;
    f->split.bytes = bytes;
    return code;
}

int ferry_io_split_end(ferry_file *f, int is_write, MPI_Status *status)
{
    if (!f->split.active || f->split.is_write != is_write)
        return ferry_err(MPI_ERR_OTHER, "no matching split collective was begun on this file");
    f->split.active = 0;
    ferry_status_set(status, f->split.bytes);
    return f->split.err;
}
