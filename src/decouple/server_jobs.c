/*
 * What a data process does for each request. Reads run a scan a chunk per
 * step; a read large enough is cut into one part per data process, the
 * others' parts go out as sub-requests, and the partial states come back
 * and combine here, so the client still gets one small result.
 */
#include "core/errors.h"
#include "core/manage.h"
#include "decouple/server.h"
#include "strategy/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ferry_flat *bytes1(void)
{
    static ferry_flat *f;
    if (!f)
        f = ferry_flat_bytes(1);
    return f;
}

static int no_file(void)
{
    return ferry_err(MPI_ERR_FILE, "no such decoupled file on its data process");
}

static void *new_state(const dc_op *op)
{
    void *s = malloc(op->state_size > 0 ? (size_t)op->state_size : 1);
    if (s)
        dc_op_init(op, s);
    return s;
}

int dc_job_ready(const dc_job *j)
{
    return j->rreq == MPI_REQUEST_NULL && !(j->started && !j->scanning && j->parts_out > 0);
}

void dc_job_free(dc_job *j)
{
    if (j->scanning)
        dc_scan_end(&j->scan);
    if (j->peer && j->sess && j->started)
        j->sess->inuse--;
    free(j->msg);
    free(j->state);
    free(j->mine);
    free(j->waiting_on);
    free(j);
}

/* ---- shared reads ---- */

static void unwait(dc_server *S, dc_job *j)
{
    for (dc_job **p = &S->waiting; *p; p = &(*p)->wnext)
        if (*p == j) {
            *p = j->wnext;
            return;
        }
}

/* Sends the other data processes their parts; returns 1 and my own range
 * when the read is shared. */
static int share_read(dc_server *S, dc_job *j, const dc_msg *m, int64_t *mypos, int64_t *mylen)
{
    const dc_config *c = dc_cfg();
    int n = dc_w.ndata;
    if (n < 2 || m->bytes < c->split || !dc_op_splittable(&j->op))
        return 0;
    for (int p = 0; p < n; p++)
        if (S->peer_dead[p])
            return 0;
    j->waiting_on = calloc((size_t)n, 1);
    if (!j->waiting_on)
        return 0;
    /* helpers read through their own descriptors: make my writes reach the
     * file system first (on one node this is the page cache) */
    if (j->sess->dirty && ferry_file_sync(j->sess->f) == MPI_SUCCESS)
        j->sess->dirty = 0;
    int64_t es = m->esize > 0 ? m->esize : 1, end = m->pos + m->bytes;
    int64_t per = (m->bytes + n - 1) / n;
    per += (es - per % es) % es;
    dc_session *s = j->sess;
    int64_t pathlen = (int64_t)strlen(s->path) + 1;
    double now = dc_now();
    for (int i = 1; i < n; i++) {
        int h = (S->me + i) % n;
        int64_t ppos = m->pos + i * per;
        if (ppos >= end)
            break;
        int64_t plen = end - ppos < per ? end - ppos : per;
        int64_t len = (int64_t)sizeof(dc_sub) + pathlen + s->viewlen;
        char *b = malloc((size_t)len);
        if (!b) {
            j->code = ferry_err(MPI_ERR_NO_MEM, "out of memory sharing a read");
            break;
        }
        dc_sub sb;
        memset(&sb, 0, sizeof sb);
        sb.job = j->id;
        sb.client = j->src;
        sb.amode = MPI_MODE_RDONLY;
        sb.sid = s->sid;
        sb.viewver = s->viewver;
        sb.pos = ppos;
        sb.bytes = plen;
        sb.elem = m->elem;
        sb.esize = m->esize;
        sb.op = m->op;
        sb.pathlen = pathlen;
        sb.viewlen = s->viewlen;
        memcpy(b, &sb, sizeof sb);
        memcpy(b + sizeof sb, s->path, (size_t)pathlen);
        if (s->viewlen > 0)
            memcpy(b + sizeof sb + pathlen, s->view, (size_t)s->viewlen);
        dc_srv_send(S, dc_w.peers, h, DC_TAG_SUB, b, len);
        j->waiting_on[h] = 1;
        j->parts_out++;
        if (S->peer_last[h] < now)
            S->peer_last[h] = now; /* its silence counts from now */
    }
    *mypos = m->pos;
    *mylen = per < m->bytes ? per : m->bytes;
    if (j->parts_out > 0) {
        j->wnext = S->waiting;
        S->waiting = j;
    }
    return 1;
}

void dc_job_part(dc_server *S, int from, const char *msg, int64_t len)
{
    dc_part p;
    if (len < (int64_t)sizeof p)
        return;
    memcpy(&p, msg, sizeof p);
    dc_job *j = S->waiting;
    while (j && j->id != p.job)
        j = j->wnext;
    if (!j || !j->waiting_on[from])
        return; /* its job already gave up on this part */
    const char *state = msg + sizeof p;
    if (p.cls != MPI_SUCCESS) {
        if (j->code == MPI_SUCCESS)
            j->code = dc_err_remote(p.cls, state + p.statelen, p.textlen);
    } else if (p.statelen == j->op.state_size) {
        dc_op_combine(&j->op, j->state, state);
        j->bytes += p.bytes;
    } else if (j->code == MPI_SUCCESS) {
        j->code = ferry_err(MPI_ERR_INTERN, "a part of a shared read came back damaged");
    }
    j->waiting_on[from] = 0;
    if (--j->parts_out == 0)
        unwait(S, j);
}

void dc_jobs_check_peers(dc_server *S, double now)
{
    double limit = dc_cfg()->timeout;
    for (dc_job *j = S->waiting, *next; j; j = next) {
        next = j->wnext;
        for (int h = 0; h < dc_w.ndata; h++) {
            if (!j->waiting_on[h] || now - S->peer_last[h] <= limit)
                continue;
            S->peer_dead[h] = 1;
            j->waiting_on[h] = 0;
            j->parts_out--;
            if (j->code == MPI_SUCCESS)
                j->code = ferry_err(MPI_ERR_OTHER, "a data process sharing the read stopped answering");
        }
        if (j->parts_out == 0)
            unwait(S, j);
    }
}

/* ---- a client's read ---- */

static int read_step(dc_server *S, dc_job *j, const dc_msg *m)
{
    if (!j->started) {
        j->started = 1;
        j->sess = dc_session_find(S, j->src, m->sid, 0);
        const char *why = "unknown operation";
        int rc = j->sess ? dc_op_resolve(&m->op, m->elem, m->esize, &j->op, &why) : no_file();
        if (rc != MPI_SUCCESS && j->sess)
            rc = ferry_err(rc, why);
        if (rc == MPI_SUCCESS && !(j->state = new_state(&j->op)))
            rc = ferry_err(MPI_ERR_NO_MEM, "out of memory for an operation's state");
        if (rc != MPI_SUCCESS) {
            dc_srv_reply(S, j->src, m->seq, rc, 0, 0, NULL, 0);
            return 1;
        }
        j->id = ++S->next_id;
        int64_t pos = m->pos, len = m->bytes;
        void *into = j->state;
        if (share_read(S, j, m, &pos, &len)) {
            if (!(j->mine = new_state(&j->op)) && j->code == MPI_SUCCESS)
                j->code = ferry_err(MPI_ERR_NO_MEM, "out of memory for an operation's state");
            into = j->mine;
        }
        if (into) {
            dc_scan_begin(&j->scan, j->sess->f, &j->op, into, pos, len);
            j->scanning = 1;
        }
        return 0;
    }
    if (j->scanning) {
        if (!dc_scan_step(&j->scan, &S->buf, &S->cap))
            return 0;
        j->scanning = 0;
        if (j->scan.code != MPI_SUCCESS && j->code == MPI_SUCCESS)
            j->code = j->scan.code;
        j->bytes += j->scan.done;
        dc_scan_end(&j->scan);
    }
    if (j->parts_out > 0)
        return 0;
    if (j->code != MPI_SUCCESS) {
        dc_srv_reply(S, j->src, m->seq, j->code, j->bytes, 0, NULL, 0);
        return 1;
    }
    if (j->mine)
        dc_op_combine(&j->op, j->state, j->mine);
    int64_t cap = dc_op_result_size(&j->op);
    char *out = malloc(cap > 0 ? (size_t)cap : 1);
    if (!out) {
        dc_srv_reply(S, j->src, m->seq, ferry_err(MPI_ERR_NO_MEM, "out of memory for a result"), j->bytes, 0,
                     NULL, 0);
        return 1;
    }
    int64_t n = dc_op_finish(&j->op, j->state, dc_locate, j->sess->f, out);
    dc_srv_reply(S, j->src, m->seq, MPI_SUCCESS, j->bytes, 0, out, n);
    free(out);
    return 1;
}

/* ---- a part of another data process's read ---- */

static void send_part(dc_server *S, dc_job *j, const dc_sub *sb, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int textlen = code != MPI_SUCCESS ? dc_err_text(code, text, sizeof text) : 0;
    int64_t statelen = code == MPI_SUCCESS ? j->op.state_size : 0;
    int64_t len = (int64_t)sizeof(dc_part) + statelen + textlen;
    char *b = malloc((size_t)len);
    if (!b)
        return; /* the home will count this part as lost */
    dc_part p = {.job = sb->job, .cls = ferry_err_class(code), .textlen = textlen, .bytes = j->bytes,
                 .statelen = statelen};
    memcpy(b, &p, sizeof p);
    if (statelen > 0)
        memcpy(b + sizeof p, j->state, (size_t)statelen);
    memcpy(b + sizeof p + statelen, text, (size_t)textlen);
    dc_srv_send(S, dc_w.peers, j->src, DC_TAG_PART, b, len);
}

static int part_step(dc_server *S, dc_job *j)
{
    dc_sub sb;
    memcpy(&sb, j->msg, sizeof sb);
    if (!j->started) {
        const char *path = j->msg + sizeof sb, *view = path + sb.pathlen;
        if ((int64_t)sizeof sb + sb.pathlen + sb.viewlen != j->len || sb.pathlen < 1 || path[sb.pathlen - 1]) {
            send_part(S, j, &sb, ferry_err(MPI_ERR_INTERN, "a shared read arrived damaged"));
            return 1;
        }
        dc_session *s = dc_session_find(S, sb.client, sb.sid, 1);
        int rc = MPI_SUCCESS;
        if (!s)
            rc = dc_session_open(S, sb.client, sb.sid, path, MPI_MODE_RDONLY, MPI_INFO_NULL, 1, &s);
        if (rc == MPI_SUCCESS && s->viewver != sb.viewver) {
            if (sb.viewlen > 0)
                rc = dc_view_apply(s->f, view, sb.viewlen);
            if (rc == MPI_SUCCESS)
                s->viewver = sb.viewver;
        }
        const char *why = "unknown operation";
        if (rc == MPI_SUCCESS && (rc = dc_op_resolve(&sb.op, sb.elem, sb.esize, &j->op, &why)) != MPI_SUCCESS)
            rc = ferry_err(rc, why);
        if (rc == MPI_SUCCESS && !(j->state = new_state(&j->op)))
            rc = ferry_err(MPI_ERR_NO_MEM, "out of memory for an operation's state");
        if (rc != MPI_SUCCESS) {
            send_part(S, j, &sb, rc);
            return 1;
        }
        j->started = 1;
        j->sess = s;
        s->inuse++;
        s->used = dc_now();
        dc_scan_begin(&j->scan, s->f, &j->op, j->state, sb.pos, sb.bytes);
        j->scanning = 1;
        return 0;
    }
    if (!dc_scan_step(&j->scan, &S->buf, &S->cap))
        return 0;
    j->scanning = 0;
    j->bytes = j->scan.done;
    dc_scan_end(&j->scan);
    send_part(S, j, &sb, j->scan.code);
    return 1;
}

/* ---- the rest of a client's requests ---- */

static void write_job(dc_server *S, dc_job *j, const dc_msg *m, char *data, int64_t len)
{
    dc_session *s = dc_session_find(S, j->src, m->sid, 0);
    if (!s)
        return; /* its close will say there is no such file */
    dc_op op;
    const char *why = "unknown operation";
    int rc = dc_op_resolve(&m->op, m->elem, m->esize, &op, &why);
    if (rc != MPI_SUCCESS)
        rc = ferry_err(rc, why);
    if (rc == MPI_SUCCESS && (rc = dc_op_transform(&op, data, m->esize > 0 ? len / m->esize : 0)) != MPI_SUCCESS)
        rc = ferry_err(rc, "the operation on written data failed");
    int64_t done = 0;
    if (rc == MPI_SUCCESS && len > 0) {
        ferry_xfer x = {.buf = data, .mem = bytes1(), .memcount = len, .pos = m->pos, .bytes = len, .is_write = 1};
        rc = ferry_strategy_independent(s->f, &x, 0, &done);
        s->f->stats.bytes_written += done;
        s->dirty = 1;
    }
    if (rc != MPI_SUCCESS && s->werr == MPI_SUCCESS)
        s->werr = rc;
}

/* The hints that came after the file name: key, value, key, value... */
static MPI_Info open_info(const char *pay, int64_t len)
{
    const char *p = pay + strlen(pay) + 1, *end = pay + len;
    if (p >= end)
        return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    while (p < end) {
        const char *key = p, *val = p + strlen(p) + 1;
        if (val >= end)
            break;
        MPI_Info_set(info, key, val);
        p = val + strlen(val) + 1;
    }
    return info;
}

int dc_job_step(dc_server *S, dc_job *j)
{
    if (j->peer)
        return part_step(S, j);
    dc_msg m;
    if (j->len < (int64_t)sizeof m) {
        return 1; /* nothing to answer: the header itself is missing */
    }
    memcpy(&m, j->msg, sizeof m);
    char *pay = j->msg + sizeof m;
    int64_t paylen = j->len - (int64_t)sizeof m;
    dc_session *s = m.kind == DC_OPEN || m.kind == DC_BYE ? NULL : dc_session_find(S, j->src, m.sid, 0);
    int rc = MPI_SUCCESS;
    int64_t value = 0;
    switch (m.kind) {
    case DC_READ:
        return read_step(S, j, &m);
    case DC_WRITE:
        write_job(S, j, &m, pay, paylen);
        return 1;
    case DC_OPEN:
        if (paylen < 1 || pay[paylen - 1]) {
            rc = ferry_err(MPI_ERR_INTERN, "an open arrived damaged");
        } else {
            MPI_Info info = open_info(pay, paylen);
            rc = dc_session_open(S, j->src, m.sid, pay, m.amode, info, 0, &s);
            if (info != MPI_INFO_NULL)
                MPI_Info_free(&info);
            if (rc == MPI_SUCCESS)
                value = s->f->fp;
        }
        break;
    case DC_VIEW:
        rc = s ? dc_view_apply(s->f, pay, paylen) : no_file();
        if (rc == MPI_SUCCESS) {
            char *v = malloc((size_t)paylen);
            if (v) {
                memcpy(v, pay, (size_t)paylen);
                free(s->view);
                s->view = v;
                s->viewlen = paylen;
                s->viewver++;
            } else {
                rc = ferry_err(MPI_ERR_NO_MEM, "out of memory keeping a view");
            }
        }
        break;
    case DC_EOF:
        rc = s ? ferry_view_eof_offset(s->f, &value) : no_file();
        break;
    case DC_SYNC:
        if (!s) {
            rc = no_file();
            break;
        }
        rc = s->werr != MPI_SUCCESS ? s->werr : ferry_file_sync(s->f);
        s->werr = MPI_SUCCESS;
        s->dirty = 0;
        break;
    case DC_CLOSE:
        rc = s ? dc_session_close(S, s) : no_file();
        break;
    case DC_BYE:
        dc_session_close_client(S, j->src);
        S->clients[j->src].gone = 1;
        S->clients_left--;
        return 1;
    default:
        rc = ferry_err(MPI_ERR_INTERN, "unknown request");
        break;
    }
    dc_srv_reply(S, j->src, m.seq, rc, 0, value, NULL, 0);
    return 1;
}
