/*
 * No data processes (-dp 0): the compute process runs the same operations
 * itself, through the same scan and the same kernels, so a program gives
 * the same results either way; only where the work happens changes.
 */
#include "core/errors.h"
#include "decouple/decouple.h"
#include "strategy/strategy.h"

#include <stdlib.h>

int dc_local_read(ferry_dfile d, void *result, int64_t pos, int64_t bytes, const dc_op *op, int64_t *done)
{
    static char *buf;
    static int64_t cap;
    *done = 0;
    void *state = malloc(op->state_size > 0 ? (size_t)op->state_size : 1);
    if (!state)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for an operation's state");
    dc_op_init(op, state);
    dc_scan s;
    dc_scan_begin(&s, d->local, op, state, pos, bytes);
    while (!dc_scan_step(&s, &buf, &cap))
        ;
    dc_scan_end(&s);
    *done = s.done;
    if (s.code == MPI_SUCCESS)
        dc_op_finish(op, state, dc_locate, d->local, result);
    free(state);
    return s.code;
}

int dc_local_write(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, const dc_op *op,
                   int64_t pos, int64_t *done)
{
    *done = 0;
    int64_t es = op->esize, bytes = (int64_t)count * es;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (op->w.kind == DC_K_NULL) {
        /* straight from the program's memory, its datatype and all */
        ferry_xfer x = {.buf = (char *)buf, .mem = NULL, .memcount = count, .pos = pos, .bytes = bytes, .is_write = 1};
        int rc = ferry_flat_get(type, &x.mem);
        if (rc != MPI_SUCCESS)
            return ferry_err(rc, "the buffer datatype cannot be flattened");
        rc = ferry_strategy_independent(d->local, &x, 0, done);
        ferry_flat_release(x.mem);
        return rc;
    }
    /* a transform rewrites the data: work on packed copies, a message's worth at a time */
    int64_t per = dc_cfg()->message;
    per -= per % es;
    if (per < es)
        per = es;
    char *tmp = malloc((size_t)(per < bytes ? per : bytes));
    ferry_flat *b1 = ferry_flat_bytes(1);
    int rc = tmp && b1 ? MPI_SUCCESS : ferry_err(MPI_ERR_NO_MEM, "out of memory writing");
    for (int64_t at = 0; rc == MPI_SUCCESS && at < bytes; at += per) {
        int64_t n = bytes - at < per ? bytes - at : per;
        if ((rc = ferry_mem_pack_type(buf, (int64_t)count, type, at, n, tmp)) != MPI_SUCCESS)
            rc = ferry_err(rc, "the buffer datatype cannot be flattened");
        if (rc == MPI_SUCCESS && (rc = dc_op_transform(op, tmp, n / es)) != MPI_SUCCESS)
            rc = ferry_err(rc, "the operation on written data failed");
        if (rc == MPI_SUCCESS) {
            ferry_xfer x = {.buf = tmp, .mem = b1, .memcount = n, .pos = pos + at, .bytes = n, .is_write = 1};
            int64_t got = 0;
            rc = ferry_strategy_independent(d->local, &x, 0, &got);
            *done += got;
        }
    }
    if (b1)
        ferry_flat_release(b1);
    free(tmp);
    return rc;
}
