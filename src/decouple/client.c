/*
 * Decoupled file handles on the compute side: open, view, pointer, sync
 * and close. The file itself is open on the data process that serves this
 * compute process; the handle keeps what the requests need (session id,
 * etype size, individual pointer). Without data processes the handle wraps
 * an ordinary ferry file.
 */
#include "core/amode.h"
#include "core/errors.h"
#include "core/manage.h"
#include "decouple/decouple.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t next_sid;

/* Local files (-dp 0) still open, oldest first: MPI_Finalize closes them,
 * as a data process closes its sessions when its clients leave, so a
 * program that ends without closing loses no write either way. */
static ferry_dfile open_local;

static void local_forget(ferry_dfile d)
{
    for (ferry_dfile *p = &open_local; *p; p = &(*p)->next_open)
        if (*p == d) {
            *p = d->next_open;
            return;
        }
}

/* Runs first in MPI_Finalize on every compute process (the attribute is set
 * after the core's own, and MPI deletes them newest first); the files were
 * opened collectively in the same order everywhere, so the collective
 * closes match. */
static int close_local_at_finalize(MPI_Comm self, int key, void *val, void *extra)
{
    (void)self;
    (void)val;
    (void)extra;
    while (open_local) {
        ferry_dfile d = open_local;
        ferry_decouple_close(&d);
    }
    MPI_Comm_free_keyval(&key);
    return MPI_SUCCESS;
}

static void local_remember(ferry_dfile d)
{
    static int hooked;
    if (!hooked) {
        int key;
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, close_local_at_finalize, &key, NULL) == MPI_SUCCESS &&
            MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS)
            hooked = 1;
    }
    ferry_dfile *p = &open_local;
    while (*p)
        p = &(*p)->next_open;
    *p = d;
}

static int valid(ferry_dfile d)
{
    return d && d->magic == DC_DFILE_MAGIC;
}

/* Collective over comm: every rank leaves with an error of one class if
 * any rank brought one. */
static int agree(MPI_Comm comm, int code, const char *elsewhere)
{
    int cls = ferry_err_class(code), max = cls;
    MPI_Allreduce(&cls, &max, 1, MPI_INT, MPI_MAX, comm);
    if (max == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (cls == max)
        return code;
    return ferry_err(max, elsewhere);
}

/* A request that only needs its reply's status (and value). */
static int control(ferry_dfile d, int kind, const void *pay, int64_t paylen, int amode, int64_t *value)
{
    dc_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.sid = d->sid;
    m.amode = amode;
    dc_call c;
    dc_call_start(&c, &m, pay, paylen, 0);
    int rc = dc_call_wait(&c);
    if (rc == MPI_SUCCESS && value)
        *value = c.rep.value;
    dc_call_free(&c);
    return rc;
}

static void dfile_free(ferry_dfile d)
{
    if (d->comm != MPI_COMM_NULL)
        MPI_Comm_free(&d->comm);
    d->magic = 0;
    free(d);
}

static int usable(void)
{
    if (!dc_w.ready)
        return ferry_err(MPI_ERR_OTHER, "call ferry_decouple_init after MPI_Init first");
    if (dc_w.is_data)
        return ferry_err(MPI_ERR_OTHER, "data processes serve decoupled files; they do not open them");
    if (dc_w.finished)
        return ferry_err(MPI_ERR_OTHER, "ferry_decouple_finalize was called");
    return MPI_SUCCESS;
}

/* The open's payload: the name, then the info's hints as key, value pairs
 * (NUL-terminated strings), which the data process applies to its open. */
static char *open_payload(const char *filename, MPI_Info info, int64_t *len)
{
    int64_t cap = (int64_t)strlen(filename) + 1, n = cap;
    int nkeys = 0;
    if (info != MPI_INFO_NULL)
        MPI_Info_get_nkeys(info, &nkeys);
    cap += (int64_t)nkeys * (MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL + 2);
    char *p = malloc((size_t)cap);
    if (!p)
        return NULL;
    memcpy(p, filename, (size_t)n);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
        if (!flag)
            continue;
        size_t kl = strlen(key) + 1, vl = strlen(val) + 1;
        memcpy(p + n, key, kl);
        memcpy(p + n + kl, val, vl);
        n += (int64_t)(kl + vl);
    }
    *len = n;
    return p;
}

/* Opens on every rank's data process; rank 0 first when the open creates,
 * so EXCL means what it says and nobody races the create. */
static int open_remote(ferry_dfile d, const char *filename, int amode, MPI_Info info)
{
    int64_t plen = 0;
    char *pay = open_payload(filename, info, &plen);
    if (!pay)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory opening a decoupled file");
    const char *payload = pay;
    int64_t value = 0;
    int rc = MPI_SUCCESS;
    int creates = amode & (MPI_MODE_CREATE | MPI_MODE_EXCL);
    if (creates) {
        int cls = MPI_SUCCESS;
        if (d->rank == 0) {
            rc = control(d, DC_OPEN, payload, plen, amode, &value);
            cls = ferry_err_class(rc);
        }
        MPI_Bcast(&cls, 1, MPI_INT, 0, d->comm);
        if (cls != MPI_SUCCESS) {
            free(pay);
            return d->rank == 0 ? rc : ferry_err(cls, "open failed on another rank");
        }
        if (d->rank != 0)
            rc = control(d, DC_OPEN, payload, plen, amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL), &value);
    } else {
        rc = control(d, DC_OPEN, payload, plen, amode, &value);
    }
    free(pay);
    int agreed = agree(d->comm, rc, "open failed on another rank");
    if (agreed != MPI_SUCCESS) {
        if (rc == MPI_SUCCESS)
            control(d, DC_CLOSE, NULL, 0, 0, NULL);
        return agreed;
    }
    d->fp = value;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, ferry_dfile *dfh)
{
    if (!dfh)
        return ferry_err(MPI_ERR_ARG, "file handle pointer is NULL");
    *dfh = FERRY_DFILE_NULL;
    int rc = usable();
    if (rc != MPI_SUCCESS)
        return rc;
    int inter = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return ferry_err(MPI_ERR_COMM, "decoupled files open on an intra-communicator of compute processes");
    dc_requests_drain(0);
    ferry_dfile d = calloc(1, sizeof *d);
    if (!d)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory opening a decoupled file");
    d->magic = DC_DFILE_MAGIC;
    d->comm = MPI_COMM_NULL;
    d->amode = amode;
    d->esize = 1;
    d->ftsize = 1;
    if (MPI_Comm_dup(comm, &d->comm) != MPI_SUCCESS) {
        dfile_free(d);
        return ferry_err(MPI_ERR_COMM, "could not duplicate the communicator");
    }
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    if (dc_w.ndata == 0) {
        rc = ferry_file_open(d->comm, filename, amode, info, MPI_SUCCESS, 0, &d->local);
        if (rc != MPI_SUCCESS) {
            dfile_free(d);
            return rc;
        }
        d->fp = d->local->fp;
        local_remember(d);
        *dfh = d;
        return MPI_SUCCESS;
    }
    const char *why = "invalid amode";
    int local = !filename ? ferry_err(MPI_ERR_BAD_FILE, "file name is NULL") : ferry_amode_check(amode, &why);
    if (local != MPI_SUCCESS && filename)
        local = ferry_err(local, why);
    int v[3] = {ferry_err_class(local), amode, -amode}, r[3];
    MPI_Allreduce(v, r, 3, MPI_INT, MPI_MAX, d->comm);
    if (r[0] != MPI_SUCCESS || r[1] != -r[2]) {
        rc = local != MPI_SUCCESS ? local
           : r[0] != MPI_SUCCESS ? ferry_err(r[0], "the arguments of the open are invalid on another rank")
           : ferry_err(MPI_ERR_AMODE, "amode differs between the ranks of the open");
        dfile_free(d);
        return rc;
    }
    d->sid = ++next_sid;
    rc = open_remote(d, filename, amode, info);
    if (rc != MPI_SUCCESS) {
        dfile_free(d);
        return rc;
    }
    *dfh = d;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_close(ferry_dfile *dfh)
{
    if (!dfh || !valid(*dfh))
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    ferry_dfile d = *dfh;
    int rc;
    if (d->local) {
        local_forget(d);
        rc = ferry_file_close(d->local);
        rc = agree(d->comm, d->werr != MPI_SUCCESS ? d->werr : rc, "close failed on another rank");
    } else {
        dc_requests_drain(0);
        rc = agree(d->comm, control(d, DC_CLOSE, NULL, 0, 0, NULL), "close failed on another rank");
    }
    dfile_free(d);
    *dfh = FERRY_DFILE_NULL;
    return rc;
}

FERRY_PUBLIC int ferry_decouple_set_view(ferry_dfile d, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                         const char *datarep, MPI_Info info)
{
    if (!valid(d))
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    if (d->local) {
        int rc = ferry_view_set(d->local, disp, etype, filetype, datarep, info);
        if (rc == MPI_SUCCESS) {
            d->esize = d->local->view.etype_size;
            d->ftsize = d->local->view.ft->size;
            d->fp = 0;
        }
        return rc;
    }
    dc_requests_drain(0);
    char *blob = NULL;
    int64_t len = 0, es = 0, fts = 0;
    int rc = dc_view_pack(disp, etype, filetype, datarep, &blob, &len, &es, &fts);
    if (rc == MPI_SUCCESS)
        rc = control(d, DC_VIEW, blob, len, 0, NULL);
    free(blob);
    int64_t v[3] = {ferry_err_class(rc), es, -es}, r[3];
    MPI_Allreduce(v, r, 3, MPI_INT64_T, MPI_MAX, d->comm);
    if (rc == MPI_SUCCESS && r[0] != MPI_SUCCESS)
        return ferry_err((int)r[0], "set_view failed on another rank");
    if (rc == MPI_SUCCESS && r[1] != -r[2])
        return ferry_err(MPI_ERR_ARG, "etype size differs between the ranks of set_view");
    if (rc != MPI_SUCCESS)
        return rc;
    d->esize = es;
    d->ftsize = fts;
    d->fp = 0;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_seek(ferry_dfile d, MPI_Offset offset, int whence)
{
    if (!valid(d))
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    int64_t base;
    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = d->fp;
        break;
    case MPI_SEEK_END: {
        int rc = d->local ? ferry_view_eof_offset(d->local, &base) : control(d, DC_EOF, NULL, 0, 0, &base);
        if (rc != MPI_SUCCESS)
            return rc;
        break;
    }
    default:
        return ferry_err(MPI_ERR_ARG, "whence is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END");
    }
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0)
        return ferry_err(MPI_ERR_ARG, "seek to a negative or unrepresentable offset");
    d->fp = base + offset;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_get_position(ferry_dfile d, MPI_Offset *offset)
{
    if (!valid(d))
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    if (!offset)
        return ferry_err(MPI_ERR_ARG, "offset pointer is NULL");
    *offset = d->fp;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_sync(ferry_dfile d)
{
    if (!valid(d))
        return ferry_err(MPI_ERR_FILE, "invalid decoupled file handle");
    if (d->local) {
        int rc = ferry_file_sync(d->local), werr = d->werr;
        d->werr = MPI_SUCCESS;
        return agree(d->comm, werr != MPI_SUCCESS ? werr : rc, "sync failed on another rank");
    }
    dc_requests_drain(0);
    return agree(d->comm, control(d, DC_SYNC, NULL, 0, 0, NULL), "sync failed on another rank");
}
