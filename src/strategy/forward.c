/*
 * The sender side of forwarding, and the forwarding state of each open file.
 * The state lives in a table keyed by the file object, looked up only for
 * files whose hints ask for forwarding; a mutex per file serialises the
 * caller's thread and any worker that runs nonblocking calls.
 */
#include "core/errors.h"
#include "core/finalize.h"
#include "core/trace.h"
#include "core/say.h"
#include "strategy/forward_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FWD_CHUNK (8 << 20)            /* data bytes per record: messages stay far below 2 GiB */
#define FWD_MAX_PIECES 65536           /* pieces per record */
#define FWD_MAX_INFLIGHT (64 << 20)    /* a sender's bytes in flight before it waits for the oldest */

typedef struct fwd_entry {
    ferry_file *f;
    ferry_fwd *w;
    pthread_mutex_t lock;
    struct fwd_entry *next;
} fwd_entry;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static fwd_entry *table;

static int wants_forward(const ferry_file *f)
{
    return f->hints.ind_write_strategy == FERRY_IND_FORWARD || f->hints.ind_read_strategy == FERRY_IND_FORWARD;
}

static fwd_entry *find(const ferry_file *f)
{
    if (!wants_forward(f))
        return NULL;
    pthread_mutex_lock(&table_lock);
    fwd_entry *e = table;
    while (e && e->f != f)
        e = e->next;
    pthread_mutex_unlock(&table_lock);
    return e;
}

/* ---- control messages from the forwarder -------------------------------- */

static void note_err(ferry_fwd *w, int64_t err)
{
    if (err && !w->err)
        w->err = ferry_err_errno((int)err, w->f->filename);
}

/* Receives one control message from the forwarder; blocking or not. Returns
 * its type (0: none); a reply's payload goes to *data (caller frees). */
static int64_t ctrl_recv(ferry_fwd *w, int block, int64_t h[FWD_CTRL], char **data)
{
    int src = w->fwd_of[w->me], flag = 1, n = 0, tag = FWD_TAG_CTRL0 + w->fid;
    MPI_Status st;
    if (block)
        MPI_Probe(src, tag, w->comm, &st);
    else
        MPI_Iprobe(src, tag, w->comm, &flag, &st);
    if (!flag)
        return 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    char *msg = malloc((size_t)n);
    if (!msg) {
        /* take it anyway so the stream stays in order; its payload is lost */
        int64_t small[FWD_CTRL];
        MPI_Recv(small, FWD_CTRL * (int)sizeof(int64_t), MPI_BYTE, src, tag, w->comm, &st);
        memcpy(h, small, sizeof small);
        h[1] = h[1] ? h[1] : 12 /* ENOMEM */, h[2] = 0;
        if (data)
            *data = NULL;
        return h[0];
    }
    MPI_Recv(msg, n, MPI_BYTE, src, tag, w->comm, MPI_STATUS_IGNORE);
    memcpy(h, msg, FWD_CTRL * sizeof(int64_t));
    if (h[0] == FWD_ERR)
        note_err(w, h[1]);
    if (data) {
        *data = msg;
    } else {
        free(msg);
    }
    return h[0];
}

/* Takes every control message already there (errors, before any wait). */
static void poll_ctrl(ferry_fwd *w)
{
    int64_t h[FWD_CTRL];
    while (ctrl_recv(w, 0, h, NULL))
        ;
}

/* Waits for the next message of `type`, noting errors on the way. */
static char *ctrl_wait(ferry_fwd *w, int64_t type, int64_t h[FWD_CTRL])
{
    for (;;) {
        char *msg = NULL;
        int64_t t = ctrl_recv(w, 1, h, &msg);
        if (t == type)
            return msg;
        free(msg);
    }
}

/* ---- records ------------------------------------------------------------ */

static void send_record(ferry_fwd *w, char *rec, int64_t len, int64_t data)
{
    MPI_Request req;
    MPI_Isend(rec, (int)len, MPI_BYTE, w->first_hop, FWD_TAG_REQ, w->comm, &req);
    ferry_fwd_queue_push(&w->out, req, rec, len);
    if (data > 0)
        ferry_trace_send(w->comm, w->first_hop, data);
    w->dirty = 1;
    while (w->out.bytes > FWD_MAX_INFLIGHT && w->out.n > 0)
        ferry_fwd_queue_trim(&w->out);
}

static char *new_record(ferry_fwd *w, int64_t type, int64_t np, int64_t nb, int with_data, int64_t *len)
{
    *len = (FWD_HDR + 2 * np) * (int64_t)sizeof(int64_t) + (with_data ? fwd_pad8(nb) : 0);
    int64_t *h = malloc((size_t)*len);
    if (h) {
        h[0] = type, h[1] = w->me, h[2] = np, h[3] = nb, h[4] = w->fid;
        if (with_data && nb % 8)
            memset((char *)h + *len - 8, 0, 8); /* the padding, so no undefined bytes go out */
    }
    return (char *)h;
}

/* The file side of the call as (offset, length) pairs, each at most FWD_CHUNK. */
static int64_t *file_pieces(const ferry_file *f, const ferry_xfer *x, int64_t *np)
{
    ferry_file_walk fw;
    ferry_file_walk_init(&fw, &f->view, x->pos, x->bytes);
    int64_t n = 0, cap = 64, off, len;
    int64_t *pc = malloc((size_t)cap * 2 * sizeof *pc);
    if (!pc)
        return NULL;
    while (ferry_file_walk_next(&fw, FWD_CHUNK, &off, &len)) {
        if (n == cap) {
            int64_t *p = realloc(pc, (size_t)cap * 4 * sizeof *pc);
            if (!p) {
                free(pc);
                return NULL;
            }
            pc = p, cap *= 2;
        }
        pc[2 * n] = off, pc[2 * n + 1] = len;
        n++;
    }
    *np = n;
    return pc;
}

/* How many pieces from i the next record takes, and their bytes. */
static int64_t record_span(const int64_t *pc, int64_t np, int64_t i, int64_t *nb)
{
    int64_t k = 0;
    *nb = 0;
    while (i + k < np && k < FWD_MAX_PIECES && (k == 0 || *nb + pc[2 * (i + k) + 1] <= FWD_CHUNK))
        *nb += pc[2 * (i + k) + 1], k++;
    return k;
}

static int fwd_write(ferry_fwd *w, const ferry_xfer *x, const int64_t *pc, int64_t np, int64_t *done)
{
    ferry_mem_walk mw;
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    for (int64_t i = 0; i < np;) {
        int64_t nb, len, k = record_span(pc, np, i, &nb);
        char *rec = new_record(w, FWD_WRITE, k, nb, 1, &len);
        if (!rec)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory forwarding a write");
        memcpy(rec + FWD_HDR * sizeof(int64_t), pc + 2 * i, (size_t)k * 2 * sizeof *pc);
        ferry_mem_pack(&mw, rec + (FWD_HDR + 2 * k) * sizeof(int64_t), nb);
        send_record(w, rec, len, nb);
        *done += nb;
        i += k;
    }
    return MPI_SUCCESS;
}

static int fwd_read(ferry_fwd *w, const ferry_xfer *x, const int64_t *pc, int64_t np, int64_t *done)
{
    int64_t nrec = 0, code = MPI_SUCCESS;
    for (int64_t i = 0; i < np; nrec++) {
        int64_t nb, len, k = record_span(pc, np, i, &nb);
        char *rec = new_record(w, FWD_READ, k, nb, 0, &len);
        if (!rec) {
            code = ferry_err(MPI_ERR_NO_MEM, "out of memory forwarding a read");
            break;
        }
        memcpy(rec + FWD_HDR * sizeof(int64_t), pc + 2 * i, (size_t)k * 2 * sizeof *pc);
        send_record(w, rec, len, 0);
        i += k;
    }
    /* every reply is taken, in order; data after a short one is not the stream's */
    ferry_mem_walk mw;
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    int stopped = code != MPI_SUCCESS;
    for (int64_t r = 0, i = 0; r < nrec; r++) {
        int64_t h[FWD_CTRL], nb, k = record_span(pc, np, i, &nb);
        i += k;
        char *msg = ctrl_wait(w, FWD_REPLY, h);
        if (!stopped && h[1])
            code = ferry_err_errno((int)h[1], w->f->filename);
        if (!stopped && msg)
            *done += ferry_mem_unpack(&mw, msg + FWD_CTRL * sizeof(int64_t), h[2]);
        stopped |= h[1] || h[2] < nb || !msg;
        free(msg);
    }
    w->dirty = 0; /* the replies came after everything sent before them */
    return (int)code;
}

/* ---- the strategy ------------------------------------------------------- */

static int flush_locked(ferry_fwd *w)
{
    if (w->comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    if (w->dirty) {
        int64_t len, h[FWD_CTRL];
        char *rec = new_record(w, FWD_FLUSH, 0, 0, 0, &len);
        if (!rec)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory flushing forwarded writes");
        send_record(w, rec, len, 0);
        free(ctrl_wait(w, FWD_ACK, h));
        w->dirty = 0;
    }
    ferry_fwd_queue_wait(&w->out);
    poll_ctrl(w);
    int e = w->err;
    w->err = MPI_SUCCESS;
    return e;
}

int ferry_forward_flush(ferry_file *f)
{
    fwd_entry *e = find(f);
    if (!e)
        return MPI_SUCCESS;
    pthread_mutex_lock(&e->lock);
    int code = flush_locked(e->w);
    pthread_mutex_unlock(&e->lock);
    return code;
}

const char *ferry_forward_fallback(const ferry_file *f, int is_write)
{
    if ((is_write ? f->hints.ind_write_strategy : f->hints.ind_read_strategy) != FERRY_IND_FORWARD)
        return NULL;
    fwd_entry *e = find(f);
    return e && e->w->comm == MPI_COMM_NULL ? e->w->why : NULL;
}

int ferry_forward_io(ferry_file *f, const ferry_xfer *x, int *code, int64_t *done)
{
    fwd_entry *e = find(f);
    if (!e || e->w->comm == MPI_COMM_NULL)
        return 0;
    ferry_fwd *w = e->w;
    int on = x->is_write ? w->write_on : w->read_on;
    pthread_mutex_lock(&e->lock);
    *done = 0;
    if (!on || f->atomic) {
        /* the other path must see this rank's forwarded data first */
        *code = w->dirty ? flush_locked(w) : MPI_SUCCESS;
        pthread_mutex_unlock(&e->lock);
        return *code != MPI_SUCCESS;
    }
    ferry_kind kind = x->is_write ? FERRY_KIND_IND_WRITE : FERRY_KIND_IND_READ;
    ferry_stats_strategy(&f->stats, kind, "forward", w->why);
    ferry_fwd_queue_reap(&w->out);
    poll_ctrl(w);
    if (w->err) {
        /* a failure of data handed over earlier: this call does nothing */
        *code = w->err;
        w->err = MPI_SUCCESS;
        pthread_mutex_unlock(&e->lock);
        return 1;
    }
    int64_t np = 0;
    int64_t *pc = file_pieces(f, x, &np);
    if (!pc)
        *code = ferry_err(MPI_ERR_NO_MEM, "out of memory forwarding a call");
    else
        *code = x->is_write ? fwd_write(w, x, pc, np, done) : fwd_read(w, x, pc, np, done);
    free(pc);
    if (x->is_write && *code == MPI_SUCCESS && f->hints.forward_errors == FERRY_FWD_ERR_CALL) {
        /* the write waits until the forwarder has written it: its error, if
         * any, is this call's, and none of it counts as written (only a
         * prefix could be, and the forwarder does not say which) */
        int rc = flush_locked(w);
        if (rc != MPI_SUCCESS) {
            *code = rc;
            *done = 0;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return 1;
}

/* ---- channels, open and close ------------------------------------------ */

static pthread_mutex_t chan_lock = PTHREAD_MUTEX_INITIALIZER;
static fwd_chan *chans; /* newest first: the same order on every rank of a group */

/* This rank's channel for f's group and plan hints, or NULL. */
static fwd_chan *chan_find(const ferry_file *f)
{
    MPI_Group g;
    MPI_Comm_group(f->comm, &g);
    pthread_mutex_lock(&chan_lock);
    fwd_chan *c = chans;
    for (; c; c = c->next) {
        int same = MPI_UNEQUAL;
        MPI_Group_compare(g, c->group, &same);
        if (same == MPI_IDENT && c->collectors == f->hints.forward_collectors &&
            c->assign == f->hints.forward_assign)
            break;
    }
    pthread_mutex_unlock(&chan_lock);
    MPI_Group_free(&g);
    return c;
}

/* Collective over f->comm: a new channel with its plan and serving thread,
 * or NULL on every rank (then *why says what failed). */
static fwd_chan *chan_create(ferry_file *f, const char **why)
{
    fwd_chan *c = calloc(1, sizeof *c);
    int ok = c != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        free(c);
        *why = "out of memory";
        return NULL;
    }
    ferry_fwd *w = &c->route;
    w->chan = c;
    w->me = f->rank, w->size = f->size;
    c->collectors = f->hints.forward_collectors;
    c->assign = f->hints.forward_assign;
    w->use_machine = f->sw.v[FERRY_SW_TOPOLOGY] != 0;
    pthread_mutex_init(&c->lock, NULL); /* before the thread can use it */
    MPI_Comm_dup(f->comm, &w->comm);
    int rc = ferry_fwd_plan(w, c->collectors, c->assign);
    int started = rc == MPI_SUCCESS && (!w->serves || pthread_create(&w->thread, NULL, ferry_fwd_serve, w) == 0);
    int every = 0;
    MPI_Allreduce(&started, &every, 1, MPI_INT, MPI_MIN, f->comm);
    if (!every) {
        if (started && w->serves) {
            atomic_store(&w->stop, 1);
            pthread_join(w->thread, NULL);
        }
        MPI_Comm_free(&w->comm);
        free(w->fwd_of);
        pthread_mutex_destroy(&c->lock);
        free(c);
        *why = rc == MPI_SUCCESS ? "no serving thread" : "no forwarding plan";
        return NULL;
    }
    MPI_Comm_group(f->comm, &c->group);
    pthread_mutex_lock(&chan_lock);
    c->next = chans;
    chans = c;
    pthread_mutex_unlock(&chan_lock);
    return c;
}

/* Collective: the channel every rank of f found, or a new one. */
static fwd_chan *chan_get(ferry_file *f, const char **why)
{
    fwd_chan *c = chan_find(f);
    int have = c != NULL, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, f->comm);
    return all ? c : chan_create(f, why);
}

/* Collective: the lowest id free on every rank, registered for w; -1 when
 * the channel is full. */
static int chan_add(fwd_chan *c, ferry_fwd *w, MPI_Comm comm)
{
    int id = 0;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (id < FWD_MAX_FILES && c->files[id])
            id++;
        pthread_mutex_unlock(&c->lock);
        int agreed = id, lo = id;
        MPI_Allreduce(&id, &agreed, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(&id, &lo, 1, MPI_INT, MPI_MIN, comm);
        if (agreed >= FWD_MAX_FILES)
            return -1;
        if (agreed == lo)
            break;
        id = agreed;
    }
    pthread_mutex_lock(&c->lock);
    c->files[id] = w;
    c->nopen++;
    pthread_mutex_unlock(&c->lock);
    /* no rank may send a record of the file before every forwarder knows
     * its id (the serving threads run already) */
    MPI_Barrier(comm);
    return id;
}

/* Unregisters w (every rank of the file is past its last record); the last
 * file of a channel stops its thread and frees it (collective then). */
static void chan_remove(ferry_fwd *w)
{
    fwd_chan *c = w->chan;
    pthread_mutex_lock(&c->lock);
    c->files[w->fid] = NULL;
    int last = --c->nopen == 0;
    w->f->stats.sys_writes += w->sys_writes;
    w->f->stats.sys_write_bytes += w->sys_write_bytes;
    w->f->stats.sys_reads += w->sys_reads;
    w->f->stats.sys_read_bytes += w->sys_read_bytes;
    pthread_mutex_unlock(&c->lock);
    if (!last)
        return;
    pthread_mutex_lock(&chan_lock);
    fwd_chan **p = &chans;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    pthread_mutex_unlock(&chan_lock);
    if (c->route.serves && !c->route.stop) {
        atomic_store(&c->route.stop, 1);
        pthread_join(c->route.thread, NULL);
    }
    if (c->route.comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->route.comm);
    MPI_Group_free(&c->group);
    pthread_mutex_destroy(&c->lock);
    free(c->route.fwd_of);
    free(c);
}

/* At MPI_Finalize, files left open (erroneous, but it happens) still get
 * their data written, and no serving thread calls MPI after it: each
 * channel's thread stops and this thread serves it until every rank has
 * flushed each open file (MPICH is not ready for a second thread inside
 * MPI_Finalize). Files were opened collectively, so every rank meets them
 * in the same order. */
static void shut_all(void)
{
    pthread_mutex_lock(&chan_lock);
    fwd_chan *list = chans;
    pthread_mutex_unlock(&chan_lock);
    for (fwd_chan *c = list; c; c = c->next) {
        ferry_fwd *r = &c->route;
        fwd_server s = {0};
        if (r->serves) {
            atomic_store(&r->stop, 1);
            pthread_join(r->thread, NULL);
            r->serves = 2; /* stopped, serving from here */
            while (!ferry_fwd_server_init(&s, r))
                ferry_fwd_pause(&(int){6});
        }
        pthread_mutex_lock(&table_lock);
        fwd_entry *files = table;
        pthread_mutex_unlock(&table_lock);
        for (fwd_entry *e = files; e; e = e->next) {
            ferry_fwd *w = e->w;
            if (w->chan != c || w->comm == MPI_COMM_NULL)
                continue;
            pthread_mutex_lock(&e->lock);
            int acked = !w->dirty, done = 0, idle = 0;
            if (w->dirty) {
                int64_t len;
                char *rec = new_record(w, FWD_FLUSH, 0, 0, 0, &len);
                while (!rec) {
                    ferry_fwd_pause(&(int){6});
                    rec = new_record(w, FWD_FLUSH, 0, 0, 0, &len);
                }
                send_record(w, rec, len, 0);
            }
            /* every rank's data is in the file once all have their acknowledgement */
            MPI_Request bar = MPI_REQUEST_NULL;
            while (!done) {
                int64_t got = r->serves ? ferry_fwd_serve_once(&s) : 0, h[FWD_CTRL];
                while (!acked && ctrl_recv(w, 0, h, NULL))
                    acked = h[0] == FWD_ACK;
                if (acked && bar == MPI_REQUEST_NULL)
                    MPI_Ibarrier(r->comm, &bar);
                if (bar != MPI_REQUEST_NULL)
                    MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
                if (got)
                    idle = 0;
                else if (!done)
                    ferry_fwd_pause(&idle);
            }
            w->dirty = 0;
            ferry_fwd_queue_wait(&w->out);
            poll_ctrl(w);
            int code = w->err;
            w->err = MPI_SUCCESS;
            w->write_on = w->read_on = 0;
            w->comm = MPI_COMM_NULL; /* the file is done with forwarding */
            pthread_mutex_unlock(&e->lock);
            if (code != MPI_SUCCESS) {
                /* the last point the program can hear of it: data it wrote
                 * is not in the file */
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(code, msg, &len);
                ferry_say(FERRY_ERROR,
                          "rank %d: forwarded writes to \"%s\" failed: %s (reported at MPI_Finalize: the file was not "
                          "closed)",
                          w->me, e->f->filename, msg);
            }
        }
        if (r->serves)
            ferry_fwd_server_done(&s);
        r->serves = 0;
        MPI_Comm_free(&r->comm);
    }
}

static void fallback(ferry_fwd *w, const char *why)
{
    snprintf(w->why, sizeof w->why, "forward unavailable (%.50s): independent path", why);
    w->write_on = w->read_on = 0;
}

static const char *level_name(int l)
{
    return l == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : l == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
         : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";
}

void ferry_forward_open(ferry_file *f)
{
    if (!wants_forward(f))
        return;
    fwd_entry *e = calloc(1, sizeof *e);
    ferry_fwd *w = calloc(1, sizeof *w);
    int ok = e && w, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        free(e);
        free(w);
        return;
    }
    w->f = f;
    w->comm = MPI_COMM_NULL;
    w->me = f->rank, w->size = f->size;
    int level = MPI_THREAD_SINGLE, low = 0;
    MPI_Query_thread(&level);
    MPI_Allreduce(&level, &low, 1, MPI_INT, MPI_MIN, f->comm);
    if (low < MPI_THREAD_MULTIPLE) {
        char why[80];
        snprintf(why, sizeof why, "needs MPI_THREAD_MULTIPLE, MPI provides %s", level_name(low));
        fallback(w, why);
    } else {
        const char *why = NULL;
        fwd_chan *c = chan_get(f, &why);
        int fid = c ? chan_add(c, w, f->comm) : -1;
        if (!c) {
            fallback(w, why);
        } else if (fid < 0) {
            char msg[64];
            snprintf(msg, sizeof msg, "more than %d forwarded files open", FWD_MAX_FILES);
            fallback(w, msg);
        } else {
            ferry_fwd *r = &c->route;
            w->chan = c, w->fid = fid;
            w->comm = r->comm;
            w->fwd_of = r->fwd_of;
            w->first_hop = r->first_hop;
            w->nforwarders = r->nforwarders, w->ncollect = r->ncollect;
            snprintf(w->why, sizeof w->why, "%s", r->why);
            w->write_on = f->hints.ind_write_strategy == FERRY_IND_FORWARD;
            w->read_on = f->hints.ind_read_strategy == FERRY_IND_FORWARD;
            /* before the close of files left open (core/open.c), which must
             * find no serving thread in MPI (MPICH) */
            ferry_at_finalize_first(shut_all);
        }
    }
    e->f = f;
    e->w = w;
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_lock(&table_lock);
    e->next = table;
    table = e;
    pthread_mutex_unlock(&table_lock);
}

int ferry_forward_close(ferry_file *f)
{
    fwd_entry *e = find(f);
    if (!e)
        return MPI_SUCCESS;
    ferry_fwd *w = e->w;
    int code = MPI_SUCCESS;
    if (w->comm != MPI_COMM_NULL) {
        pthread_mutex_lock(&e->lock);
        code = flush_locked(w);
        w->write_on = w->read_on = 0;
        pthread_mutex_unlock(&e->lock);
        /* every rank's records of this file are executed once all flushed;
         * the channel's threads serve meanwhile */
        MPI_Barrier(f->comm);
        chan_remove(w);
        w->comm = MPI_COMM_NULL;
    }
    pthread_mutex_lock(&table_lock);
    fwd_entry **p = &table;
    while (*p != e)
        p = &(*p)->next;
    *p = e->next;
    pthread_mutex_unlock(&table_lock);
    pthread_mutex_destroy(&e->lock);
    free(w->out.v);
    free(w);
    free(e);
    return code;
}

const struct ferry_strategy_code ferry_forward_code = {
    .open = ferry_forward_open,
    .flush = ferry_forward_flush,
    .close = ferry_forward_close,
};
