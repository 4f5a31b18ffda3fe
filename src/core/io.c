#include "core/io.h"
#include "core/datarep_io.h"
#include "core/async.h"
#include "core/errors.h"
#include "core/strategies.h"

#include <stdlib.h>

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

/* A started call: what runs between the start and the transfer's end. */
struct ferry_started {
    ferry_call c;
    ferry_xfer x;
    ferry_stage stage;
    int code;
    int64_t start; /* etypes */
};

/* Everything up to the transfer: checks, datatypes, data representation,
 * and the position (shared and ordered pointers move here). */
static void op_start(ferry_file *f, const ferry_call *c, int local_err, ferry_started *op)
{
    *op = (ferry_started){.c = *c, .code = local_err};
    ferry_xfer *x = &op->x;
    *x = (ferry_xfer){.buf = c->buf, .mem = NULL, .memcount = c->count, .is_write = c->is_write};
    int code = local_err;
    int64_t es = f->view.etype_size;
    if (code == MPI_SUCCESS) {
        code = ferry_flat_get(c->type, &x->mem);
        if (code != MPI_SUCCESS)
            code = ferry_err(code, "the buffer datatype cannot be flattened");
    }
    if (code == MPI_SUCCESS) {
        if (c->count > 0 && x->mem->size > INT64_MAX / c->count)
            code = ferry_err(MPI_ERR_COUNT, "count times datatype size overflows");
        else
            x->bytes = x->mem->size * c->count;
    }
    /* non-native views move file-side bytes from here on */
    if (code == MPI_SUCCESS)
        code = ferry_datarep_stage(f, c, x, &op->stage);
    if (code == MPI_SUCCESS && x->bytes % es != 0)
        code = ferry_err(MPI_ERR_IO, "only a whole number of etypes can be accessed");
    if (code == MPI_SUCCESS && x->bytes > 0 && f->view.ft->size == 0)
        code = ferry_err(MPI_ERR_IO, "the view's filetype holds no data");
    if (code != MPI_SUCCESS)
        x->bytes = 0;

    int64_t start = 0;
    switch (c->where) {
    case FERRY_AT: start = c->offset; break;
    case FERRY_INDIVIDUAL: start = f->fp; break;
    case FERRY_SHARED:
        if (code == MPI_SUCCESS)
            code = ferry_shfp_fetch_add(f, x->bytes / es, &start);
        break;
    case FERRY_ORDERED: {
        int rc = ordered_start(f, x->bytes / es, &start);
        if (code == MPI_SUCCESS)
            code = rc;
        break;
    }
    }
    if (start > INT64_MAX / es)
        code = code ? code : ferry_err(MPI_ERR_ARG, "offset is out of range");
    x->pos = start <= INT64_MAX / es ? start * es : 0;
    op->start = start;
    op->code = code;
}

/* The transfer and its accounting; the individual pointer moves only when
 * the call still uses it (a queued call had it moved at its start). */
static void op_finish(ferry_file *f, ferry_started *op, int *code_out, int64_t *done_out)
{
    const ferry_call *c = &op->c;
    int code = op->code;
    int64_t done = 0;
    if (c->collective)
        code = ferry_strategies.collective(f, &op->x, code, &done);
    else if (code == MPI_SUCCESS)
        code = ferry_strategies.independent(f, &op->x, 0, &done);
    if (op->x.mem)
        ferry_flat_release(op->x.mem);
    if (c->where == FERRY_INDIVIDUAL)
        f->fp = op->start + done / f->view.etype_size;
    done = ferry_datarep_unstage(&op->stage, c->is_write, done, &code);
    count_call(f, c, done);
    *code_out = code;
    *done_out = done;
}

void ferry_op_run(ferry_file *f, ferry_started *op, int *code, int64_t *done)
{
    op_finish(f, op, code, done);
    free(op);
}

void ferry_op_drop(ferry_started *op)
{
    int code = MPI_SUCCESS;
    if (op->x.mem)
        ferry_flat_release(op->x.mem);
    ferry_datarep_unstage(&op->stage, op->c.is_write, 0, &code);
    free(op);
}

static int io_now(ferry_file *f, const ferry_call *c, int local_err, MPI_Status *status)
{
    if (local_err != MPI_SUCCESS && !c->collective)
        return local_err;
    ferry_async_drain(f);
    ferry_started op;
    op_start(f, c, local_err, &op);
    int code;
    int64_t done;
    op_finish(f, &op, &code, &done);
    ferry_status_set(status, done);
    return code;
}

int ferry_io(ferry_file *f, const ferry_call *c, int local_err, MPI_Status *status)
{
    return io_now(f, c, local_err, status);
}

/* A collective that can go to the worker: one whose position is known at its
 * start without the other ranks (ordered calls agree on theirs collectively). */
static int queueable(const ferry_file *f, const ferry_call *c)
{
    return c->collective && c->where != FERRY_ORDERED && ferry_async_available(f);
}

/* Starts c on this thread and hands the transfer to the worker. The
 * individual pointer moves now by the requested amount, as MPI specifies
 * for nonblocking calls. A rank whose own arguments are bad still queues
 * the call (the others' collective needs it) and reports at once. */
static int io_queue(ferry_file *f, const ferry_call *c, int local_err, ferry_pending *req,
                    int *split_code, int64_t *split_bytes)
{
    ferry_started *op = malloc(sizeof *op);
    if (!op)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for a nonblocking collective");
    op_start(f, c, local_err, op);
    int code = op->code;
    if (c->where == FERRY_INDIVIDUAL) {
        f->fp = op->start + op->x.bytes / f->view.etype_size;
        op->c.where = FERRY_AT;
    }
    int rc = ferry_async_post(f, op, req, split_code, split_bytes);
    return code != MPI_SUCCESS ? code : rc;
}

int ferry_io_nonblocking(ferry_file *f, const ferry_call *c, int local_err, MPI_Request *req)
{
    if (queueable(f, c)) {
        ferry_pending *p = NULL;
        int rc = local_err == MPI_SUCCESS ? ferry_request_pending(req, &p) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) /* no request: still take part, then fail */
            local_err = ferry_err(rc, "cannot create a request");
        int code = io_queue(f, c, local_err, p, NULL, NULL);
        if (code != MPI_SUCCESS && !p)
            *req = MPI_REQUEST_NULL;
        return code;
    }
    MPI_Status st;
    double t0 = ferry_now();
    int code = io_now(f, c, local_err, &st);
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
    if (!busy && queueable(f, c)) {
        f->split = (ferry_split){.active = 1, .is_write = c->is_write};
        return io_queue(f, c, local_err, NULL, &f->split.err, &f->split.bytes);
    }
    MPI_Status st;
    int code = io_now(f, c, local_err, &st);
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
    ferry_async_drain(f); /* the worker stores the outcome in f->split */
    f->split.active = 0;
    ferry_status_set(status, f->split.bytes);
    return f->split.err;
}
