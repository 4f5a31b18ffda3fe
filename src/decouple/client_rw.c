/*
 * Decoupled reads and writes on the compute side. A read ships (view
 * position, length, element type, operation) and gets back the result; a
 * write packs the data into messages, hands them over, and returns.
 */
#include "core/errors.h"
#include "core/io.h"
#include "decouple/decouple.h"
#include "strategy/strategy.h"

#include <stdlib.h>
#include <string.h>

typedef struct rw {
    dc_opwire w;
    dc_op op;
    dc_elem elem;
    int64_t esize;
    int64_t bytes, pos;
} rw;

/* This rank's checks of a read or write; fills what the request needs. */
static int check(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, ferry_op op, int is_write,
                 rw *x)
{
    if (!d || d->magic != DC_DFILE_MAGIC)
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    if (count < 0)
        return ferry_err(MPI_ERR_COUNT, "count is negative");
    if (dc_elem_of(type, &x->elem, &x->esize) != MPI_SUCCESS)
        return ferry_err(MPI_ERR_TYPE, "invalid datatype");
    if (is_write && !buf && count > 0 && x->esize > 0)
        return ferry_err(MPI_ERR_BUFFER, "buffer is NULL");
    if (is_write && (d->amode & MPI_MODE_RDONLY))
        return ferry_err(MPI_ERR_READ_ONLY, "the file was opened read-only");
    if (!is_write && (d->amode & MPI_MODE_WRONLY))
        return ferry_err(MPI_ERR_ACCESS, "the file was opened write-only");
    if (dc_op_wire(op, &x->w) != MPI_SUCCESS)
        return ferry_err(MPI_ERR_OP, "unknown operation handle");
    const char *why = "unknown operation";
    int rc = dc_op_resolve(&x->w, x->elem, x->esize, &x->op, &why);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, why);
    if (is_write && x->w.kind != DC_K_NULL && x->w.kind != DC_K_USER)
        return ferry_err(MPI_ERR_OP, "written data takes FERRY_OP_NULL or a user operation");
    if (x->esize > 0 && count > INT64_MAX / x->esize)
        return ferry_err(MPI_ERR_COUNT, "count times datatype size overflows");
    x->bytes = (int64_t)count * x->esize;
    if (x->bytes % d->esize != 0)
        return ferry_err(MPI_ERR_IO, "only a whole number of etypes can be accessed");
    if (x->bytes > 0 && d->ftsize == 0)
        return ferry_err(MPI_ERR_IO, "the view's filetype holds no data");
    if (d->fp > INT64_MAX / d->esize)
        return ferry_err(MPI_ERR_ARG, "offset is out of range");
    x->pos = d->fp * d->esize;
    return MPI_SUCCESS;
}

static int start_read(ferry_dfile d, const rw *x, dc_call *c)
{
    dc_msg m;
    memset(&m, 0, sizeof m);
    m.kind = DC_READ;
    m.sid = d->sid;
    m.pos = x->pos;
    m.bytes = x->bytes;
    m.elem = x->elem;
    m.esize = x->esize;
    m.op = x->w;
    return dc_call_start(c, &m, NULL, 0, dc_op_result_size(&x->op));
}

/* How many bytes a read with op on elements of datatype returns, at most. */
FERRY_PUBLIC int ferry_op_result_size(ferry_op op, MPI_Datatype datatype, MPI_Count *bytes)
{
    if (!bytes)
        return ferry_err(MPI_ERR_ARG, "result size pointer is NULL");
    dc_opwire w;
    if (dc_op_wire(op, &w) != MPI_SUCCESS)
        return ferry_err(MPI_ERR_OP, "unknown operation handle");
    dc_elem e;
    int64_t es;
    if (dc_elem_of(datatype, &e, &es) != MPI_SUCCESS)
        return ferry_err(MPI_ERR_TYPE, "invalid datatype");
    dc_op o;
    const char *why = NULL;
    int rc = dc_op_resolve(&w, e, es, &o, &why);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, why);
    *bytes = (MPI_Count)dc_op_result_size(&o);
    return MPI_SUCCESS;
}

/* check() for a read, whose operation may have a result to fill */
static int check_read(ferry_dfile d, void *result, MPI_Count count, MPI_Datatype type, ferry_op op, rw *x)
{
    int rc = check(d, result, count, type, op, 0, x);
    if (rc == MPI_SUCCESS && !result && dc_op_result_size(&x->op) > 0)
        rc = ferry_err(MPI_ERR_BUFFER, "result buffer is NULL");
    return rc;
}

FERRY_PUBLIC int ferry_decouple_read(ferry_dfile d, void *result, MPI_Count count, MPI_Datatype type, ferry_op op,
                                     MPI_Status *status)
{
    rw x;
    int rc = check_read(d, result, count, type, op, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t done = 0;
    if (d->local) {
        rc = dc_local_read(d, result, x.pos, x.bytes, &x.op, &done);
        if (rc != MPI_SUCCESS)
            done = 0; /* as with data processes: a failed read leaves the pointer */
    } else {
        dc_requests_drain(0);
        dc_call c;
        start_read(d, &x, &c);
        rc = dc_call_wait(&c);
        if (rc == MPI_SUCCESS) {
            done = c.rep.bytes;
            if (c.rep.reslen > 0 && c.rep.reslen <= dc_op_result_size(&x.op))
                memcpy(result, c.res, (size_t)c.rep.reslen);
        }
        dc_call_free(&c);
    }
    d->fp += done / d->esize;
    ferry_status_set(status, done);
    return rc;
}

FERRY_PUBLIC int ferry_decouple_iread(ferry_dfile d, void *result, MPI_Count count, MPI_Datatype type, ferry_op op,
                                      MPI_Request *request)
{
    if (!request)
        return ferry_err(MPI_ERR_REQUEST, "request pointer is NULL");
    *request = MPI_REQUEST_NULL;
    rw x;
    int rc = check_read(d, result, count, type, op, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the pointer moves by what was asked for, as for MPI_File_iread */
    d->fp += x.bytes / d->esize;
    if (d->local) {
        int64_t done = 0;
        rc = dc_local_read(d, result, x.pos, x.bytes, &x.op, &done);
        return ferry_request_completed(rc, done, request);
    }
    dc_requests_drain(0);
    dc_call c;
    start_read(d, &x, &c);
    return dc_request_start(&c, result, dc_op_result_size(&x.op), request);
}

static int write_remote(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, const rw *x)
{
    int64_t es = x->esize > 0 ? x->esize : 1;
    int64_t per = dc_cfg()->message;
    per -= per % es;
    if (per < es)
        per = es;
    for (int64_t at = 0; at < x->bytes; at += per) {
        int64_t n = x->bytes - at < per ? x->bytes - at : per;
        char *b = malloc(sizeof(dc_msg) + (size_t)n);
        if (!b)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory handing data over");
        dc_msg m;
        memset(&m, 0, sizeof m);
        m.kind = DC_WRITE;
        m.sid = d->sid;
        m.pos = x->pos + at;
        m.bytes = n;
        m.elem = x->elem;
        m.esize = x->esize;
        m.op = x->w;
        m.paylen = n;
        memcpy(b, &m, sizeof m);
        int rc = ferry_mem_pack_type(buf, (int64_t)count, type, at, n, b + sizeof m);
        if (rc != MPI_SUCCESS)
            rc = ferry_err(rc, "the buffer datatype cannot be flattened");
        if (rc == MPI_SUCCESS)
            rc = dc_send_owned(b, (int64_t)sizeof m + n);
        else
            free(b);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int do_write(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, ferry_op op, int64_t *done)
{
    rw x;
    *done = 0;
    int rc = check(d, buf, count, type, op, 1, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (d->local) {
        /* like a hand-off, a write's failure is reported by sync or close */
        rc = dc_local_write(d, buf, count, type, &x.op, x.pos, done);
        if (rc != MPI_SUCCESS && d->werr == MPI_SUCCESS)
            d->werr = rc;
        rc = MPI_SUCCESS;
        *done = x.bytes;
    } else {
        dc_requests_drain(0);
        rc = write_remote(d, buf, count, type, &x);
        if (rc == MPI_SUCCESS)
            *done = x.bytes;
    }
    d->fp += *done / d->esize;
    return rc;
}

FERRY_PUBLIC int ferry_decouple_write(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, ferry_op op,
                                      MPI_Status *status)
{
    int64_t done = 0;
    int rc = do_write(d, buf, count, type, op, &done);
    ferry_status_set(status, done);
    return rc;
}

FERRY_PUBLIC int ferry_decouple_iwrite(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type,
                                       ferry_op op, MPI_Request *request)
{
    if (!request)
        return ferry_err(MPI_ERR_REQUEST, "request pointer is NULL");
    *request = MPI_REQUEST_NULL;
    int64_t done = 0;
    int rc = do_write(d, buf, count, type, op, &done);
    if (rc != MPI_SUCCESS)
        return rc;
    /* handed over: the request is complete; errors come back from sync or close */
    return ferry_request_completed(MPI_SUCCESS, done, request);
}
