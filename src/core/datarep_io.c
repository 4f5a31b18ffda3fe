/*
 * The data path of a view in a non-native representation: the transfer is
 * staged through a contiguous buffer of file-side bytes, which is what the
 * strategies then move through the (file-side) view. Writes convert before
 * the transfer, reads after it, and only the whole elements that were read.
 */
#include "core/datarep_io.h"
#include "core/errors.h"
#include "datatype/signature.h"
#include "datatype/memwalk.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef int ferry_conv_fn(void *, MPI_Datatype, int, void *, MPI_Offset, void *);
#if MPI_VERSION >= 4
typedef int ferry_conv_fn_c(void *, MPI_Datatype, MPI_Count, void *, MPI_Offset, void *);
#endif

/* Calls a user conversion function on `count` items, in pieces an int can
 * count when it is the classic kind. */
static int user_convert(const ferry_datarep *u, void *fn, void *userbuf, MPI_Datatype t, int64_t count,
                        void *filebuf)
{
    int rc = MPI_SUCCESS;
#if MPI_VERSION >= 4
    if (u->large)
        return ((ferry_conv_fn_c *)fn)(userbuf, t, count, filebuf, 0, u->state);
#endif
    for (int64_t at = 0; at < count && rc == MPI_SUCCESS;) {
        int n = count - at > INT_MAX ? INT_MAX : (int)(count - at);
        rc = ((ferry_conv_fn *)fn)(userbuf, t, n, filebuf, (MPI_Offset)at, u->state);
        at += n;
    }
    return rc;
}

/* external32 between a packed native stream and the file-side bytes, run by
 * run of the signature, stopping before a partial element of the file side. */
enum { ENCODE, DECODE, COUNT };

typedef struct conv_walk {
    int mode;
    const char *in;
    char *out;
    int64_t file_left; /* file-side bytes still available (decode) */
    int64_t native;    /* native bytes converted */
} conv_walk;

static int conv_run(MPI_Datatype prim, int64_t count, void *arg)
{
    conv_walk *w = arg;
    int64_t es = ferry_ext32_size(prim);
    MPI_Count ns = 0;
    MPI_Type_size_x(prim, &ns);
    int stop = 0;
    if (w->mode != ENCODE && es > 0 && count * es > w->file_left) {
        count = w->file_left / es;
        stop = 1;
    }
    if (w->mode == ENCODE) {
        ferry_ext32_encode(prim, count, w->in, w->out);
        w->in += count * ns;
        w->out += count * es;
    } else if (w->mode == DECODE) {
        ferry_ext32_decode(prim, count, w->in, w->out);
        w->in += count * es;
        w->out += count * ns;
    }
    w->file_left -= count * es;
    w->native += count * ns;
    return stop;
}

static int convert(ferry_stage *st, int mode, int64_t file_bytes, int64_t *native);

int ferry_datarep_stage(ferry_file *f, const ferry_call *c, ferry_xfer *x, ferry_stage *st)
{
    memset(st, 0, sizeof *st);
    int rc = ferry_rep_lookup(f->view.datarep, &st->rep);
    if (rc != MPI_SUCCESS || st->rep.kind == FERRY_REP_NATIVE || x->bytes == 0)
        return rc;
    int64_t fbytes = 0;
    rc = ferry_rep_size(&st->rep, c->type, c->count, &fbytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st->rep.kind == FERRY_REP_USER && !(x->is_write ? st->rep.user->write_fn : st->rep.user->read_fn) &&
        fbytes != x->bytes)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP,
                         "a datarep without a conversion function must keep the native sizes");
    st->file = malloc((size_t)(fbytes > 0 ? fbytes : 1));
    st->bytes_flat = ferry_flat_bytes(fbytes);
    if (!st->file || !st->bytes_flat) {
        free(st->file);
        if (st->bytes_flat)
            ferry_flat_release(st->bytes_flat);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for the datarep staging buffer");
    }
    st->active = 1;
    st->type = c->type;
    st->count = c->count;
    st->buf = x->buf;
    st->mem = x->mem;
    st->native_bytes = x->bytes;
    st->file_bytes = fbytes;
    if (x->is_write)
        rc = convert(st, ENCODE, fbytes, NULL);
    x->buf = st->file;
    x->mem = st->bytes_flat;
    ferry_flat_retain(st->bytes_flat);
    x->memcount = 1;
    x->bytes = fbytes;
    return rc;
}

/* ENCODE the caller's data into st->file, DECODE the first file_bytes of it
 * back, or COUNT the caller's bytes behind them. *native: caller-side bytes. */
static int convert(ferry_stage *st, int mode, int64_t file_bytes, int64_t *native)
{
    int encode = mode == ENCODE;
    int rc = MPI_SUCCESS;
    int64_t nat = 0;
    if (st->rep.kind == FERRY_REP_USER) {
        const ferry_datarep *u = st->rep.user;
        void *fn = encode ? u->write_fn : u->read_fn;
        int64_t item = st->count > 0 ? st->file_bytes / st->count : 0;
        int64_t items = item > 0 ? file_bytes / item : 0;
        if (mode == COUNT) {
            nat = items * (st->count > 0 ? st->native_bytes / st->count : 0);
        } else if (!fn) {
            /* no conversion: the file holds the native stream */
            ferry_mem_walk mw;
            ferry_mem_walk_init(&mw, st->buf, st->mem, st->count, 0);
            if (encode)
                ferry_mem_pack(&mw, st->file, file_bytes);
            else
                ferry_mem_unpack(&mw, st->file, file_bytes);
            nat = file_bytes;
        } else {
            rc = user_convert(u, fn, st->buf, st->type, items, st->file);
            if (rc != MPI_SUCCESS)
                rc = ferry_err(MPI_ERR_CONVERSION, "the datarep's conversion function failed");
            nat = items * (st->count > 0 ? st->native_bytes / st->count : 0);
        }
    } else {
        char *native = mode == COUNT ? NULL : malloc((size_t)(st->native_bytes > 0 ? st->native_bytes : 1));
        ferry_sig *sig = NULL;
        if (!native && mode != COUNT)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory for the datarep conversion");
        rc = ferry_sig_get(st->type, &sig);
        if (rc == MPI_SUCCESS) {
            ferry_mem_walk mw;
            ferry_mem_walk_init(&mw, st->buf, st->mem, st->count, 0);
            conv_walk w = {.mode = mode, .file_left = file_bytes};
            if (encode) {
                ferry_mem_pack(&mw, native, st->native_bytes);
                w.in = native;
                w.out = st->file;
            } else {
                w.in = st->file;
                w.out = native;
            }
            ferry_sig_walk(sig, st->count, conv_run, &w);
            if (mode == DECODE)
                ferry_mem_unpack(&mw, native, w.native);
            nat = w.native;
            ferry_sig_release(sig);
        } else {
            rc = ferry_err(rc, "the datatype's signature cannot be read");
        }
        free(native);
    }
    if (native)
        *native = nat;
    return rc;
}

int64_t ferry_datarep_unstage(ferry_stage *st, int is_write, int64_t done, int *code)
{
    if (!st->active)
        return done;
    int64_t nat = 0;
    if (done == st->file_bytes && is_write) {
        nat = st->native_bytes;
    } else if (done > 0) {
        /* a write: the whole elements known to be in the file */
        int rc = convert(st, is_write ? COUNT : DECODE, done, &nat);
        if (*code == MPI_SUCCESS)
            *code = rc;
    }
    free(st->file);
    ferry_flat_release(st->bytes_flat);
    ferry_flat_release(st->mem);
    st->active = 0;
    return nat;
}
