#include "core/op.h"
#include "core/errors.h"

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
    /* with the last rank's outcome: the call fails on every rank or none */
    int64_t msg[2] = {base, ferry_err_class(rc)};
    MPI_Bcast(msg, 2, MPI_INT64_T, f->size - 1, f->comm);
    *start = msg[0] + incl - etypes;
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    if (rc != MPI_SUCCESS)
        return rc;
    return msg[1] == MPI_SUCCESS ? MPI_SUCCESS : ferry_err((int)msg[1], "the shared file pointer failed on another rank");
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


/* Everything up to the transfer: checks, datatypes, data representation,
 * and the position (shared and ordered pointers move here). */
void ferry_op_start(ferry_file *f, const ferry_call *c, int local_err, ferry_started *op)
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
void ferry_op_finish(ferry_file *f, ferry_started *op, int *code_out, int64_t *done_out)
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
    ferry_op_finish(f, op, code, done);
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
