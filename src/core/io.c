#include "core/io.h"
#include "core/async.h"
#include "core/op.h"
#include "core/errors.h"

#include <stdlib.h>

static int io_now(ferry_file *f, const ferry_call *c, int local_err, MPI_Status *status)
{
    if (local_err != MPI_SUCCESS && !c->collective)
        return local_err;
    ferry_async_drain(f);
    ferry_started op;
    ferry_op_start(f, c, local_err, &op);
    int code;
    int64_t done;
    ferry_op_finish(f, &op, &code, &done);
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
    ferry_op_start(f, c, local_err, op);
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
