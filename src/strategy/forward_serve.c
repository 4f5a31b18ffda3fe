/*
 * The serving thread of forwarders and collectors. It polls the private
 * communicator (Iprobe with a short sleep when idle, so it neither holds a
 * core nor MPI's lock while the application computes), executes the records
 * this rank forwards, and relays the others: everything that arrived in one
 * burst leaves as one message per forwarder, which is the node-level
 * coalescing. All its sends are nonblocking, so two serving threads that
 * relay to each other never wait on each other.
 */
#include "core/trace.h"
#include "strategy/forward_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FWD_BURST (16 << 20) /* bytes received before relaying what arrived */

static void send_ctrl(ferry_fwd *w, fwd_queue *q, int owner, int64_t fid, int64_t type, int64_t err, char *msg,
                      int64_t bytes)
{
    if (!msg && !(msg = malloc(FWD_CTRL * sizeof(int64_t))))
        return; /* the owner's flush then waits: out of memory is not survivable here */
    int64_t *h = (int64_t *)msg;
    h[0] = type, h[1] = err, h[2] = bytes;
    int64_t len = FWD_CTRL * (int64_t)sizeof(int64_t) + bytes;
    MPI_Request req;
    MPI_Isend(msg, (int)len, MPI_BYTE, owner, FWD_TAG_CTRL0 + (int)fid, w->comm, &req);
    ferry_fwd_queue_push(q, req, msg, len);
    if (bytes > 0)
        ferry_trace_send(w->comm, owner, bytes);
}

/* w: the channel's route; file: the file the record is for (channel locked). */
static void do_write(ferry_fwd *w, ferry_fwd *file, fwd_queue *q, int owner, const int64_t *pc, int64_t np,
                     const char *data)
{
    ferry_fd *fd = &file->f->fd;
    for (int64_t i = 0; i < np; i++) {
        int64_t rc = fd->drv->pwrite(fd, data, pc[2 * i + 1], pc[2 * i]);
        if (rc < 0) {
            send_ctrl(w, q, owner, file->fid, FWD_ERR, -rc, NULL, 0);
            return;
        }
        file->sys_writes++;
        file->sys_write_bytes += rc;
        data += pc[2 * i + 1];
    }
}

static void do_read(ferry_fwd *w, ferry_fwd *file, fwd_queue *q, int owner, const int64_t *pc, int64_t np,
                    int64_t nb)
{
    char *msg = malloc(FWD_CTRL * sizeof(int64_t) + (size_t)nb);
    if (!msg) {
        send_ctrl(w, q, owner, file->fid, FWD_REPLY, ENOMEM, NULL, 0);
        return;
    }
    ferry_fd *fd = &file->f->fd;
    char *data = msg + FWD_CTRL * sizeof(int64_t);
    int64_t got = 0, err = 0;
    for (int64_t i = 0; i < np; i++) {
        int64_t rc = fd->drv->pread(fd, data + got, pc[2 * i + 1], pc[2 * i]);
        if (rc < 0) {
            err = -rc;
            break;
        }
        got += rc;
        file->sys_reads++;
        file->sys_read_bytes += rc;
        if (rc < pc[2 * i + 1])
            break; /* end of file: the data stream stops here, as in direct reads */
    }
    send_ctrl(w, q, owner, file->fid, FWD_REPLY, err, msg, got);
}

static int append(relay *r, const char *rec, int64_t len)
{
    if (r->len + len > r->cap) {
        int64_t cap = r->cap ? r->cap : 1 << 16;
        while (cap < r->len + len)
            cap *= 2;
        char *b = realloc(r->buf, (size_t)cap);
        if (!b)
            return 0;
        r->buf = b, r->cap = cap;
    }
    memcpy(r->buf + r->len, rec, (size_t)len);
    r->len += len;
    return 1;
}

/* Executes or relays every record of one received message. */
static void handle(ferry_fwd *w, const char *msg, int64_t n, relay *rel, fwd_queue *q)
{
    for (int64_t at = 0; at + FWD_HDR * (int64_t)sizeof(int64_t) <= n;) {
        const int64_t *h = (const int64_t *)(msg + at);
        int64_t type = h[0], np = h[2], nb = h[3], fid = h[4];
        int owner = (int)h[1];
        const int64_t *pc = h + FWD_HDR;
        int64_t len = (FWD_HDR + 2 * np) * (int64_t)sizeof(int64_t) + (type == FWD_WRITE ? fwd_pad8(nb) : 0);
        int to = w->fwd_of[owner];
        if (to != w->me) {
            if (!append(&rel[to], msg + at, len))
                send_ctrl(w, q, owner, fid, FWD_ERR, ENOMEM, NULL, 0);
            at += len;
            continue;
        }
        /* the file stays registered until all its ranks passed close, after
         * their last record: the lock only keeps opens and closes of other
         * files out while this one is used */
        pthread_mutex_lock(&w->chan->lock);
        ferry_fwd *file = fwd_chan_file(w->chan, fid);
        if (!file)
            ; /* cannot happen: ids are registered everywhere before use (chan_add) */
        else if (type == FWD_WRITE)
            do_write(w, file, q, owner, pc, np, (const char *)(pc + 2 * np));
        else if (type == FWD_READ)
            do_read(w, file, q, owner, pc, np, nb);
        else
            send_ctrl(w, q, owner, fid, FWD_ACK, 0, NULL, 0);
        pthread_mutex_unlock(&w->chan->lock);
        at += len;
    }
}

static void send_relays(ferry_fwd *w, relay *rel, fwd_queue *q)
{
    for (int r = 0; r < w->size; r++) {
        if (!rel[r].len)
            continue;
        MPI_Request req;
        MPI_Isend(rel[r].buf, (int)rel[r].len, MPI_BYTE, r, FWD_TAG_REQ, w->comm, &req);
        ferry_trace_send(w->comm, r, rel[r].len);
        ferry_fwd_queue_push(q, req, rel[r].buf, rel[r].len);
        rel[r] = (relay){0};
    }
}

int ferry_fwd_server_init(fwd_server *s, ferry_fwd *w)
{
    *s = (fwd_server){.w = w, .rel = calloc((size_t)w->size, sizeof *s->rel)};
    return s->rel != NULL;
}

int64_t ferry_fwd_serve_once(fwd_server *s)
{
    ferry_fwd *w = s->w;
    int64_t got = 0;
    while (got < FWD_BURST) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, FWD_TAG_REQ, w->comm, &flag, &st);
        if (!flag)
            break;
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        char *msg = malloc(n > 0 ? (size_t)n : 1);
        if (!msg)
            break; /* try again after a pause */
        MPI_Recv(msg, n, MPI_BYTE, st.MPI_SOURCE, FWD_TAG_REQ, w->comm, MPI_STATUS_IGNORE);
        handle(w, msg, n, s->rel, &s->q);
        free(msg);
        got += n > 0 ? n : 1;
    }
    send_relays(w, s->rel, &s->q);
    ferry_fwd_queue_reap(&s->q);
    return got;
}

void ferry_fwd_server_done(fwd_server *s)
{
    ferry_fwd_queue_wait(&s->q);
    free(s->q.v);
    free(s->rel);
    s->rel = NULL;
}

void ferry_fwd_pause(int *idle)
{
    /* back off from 20 us to 1 ms while nothing arrives */
    struct timespec ts = {0, (*idle < 6 ? 20000L << *idle : 1000000L)};
    ++*idle;
    nanosleep(&ts, NULL);
}

void *ferry_fwd_serve(void *arg)
{
    ferry_fwd *w = arg;
    fwd_server s;
    int idle = 0;
    if (!ferry_fwd_server_init(&s, w))
        return NULL;
    for (;;) {
        if (ferry_fwd_serve_once(&s)) {
            idle = 0;
            continue;
        }
        if (atomic_load(&w->stop) && s.q.n == 0)
            break;
        ferry_fwd_pause(&idle);
    }
    ferry_fwd_server_done(&s);
    return NULL;
}
