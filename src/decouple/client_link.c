/*
 * The compute side's line to its data process: requests with their
 * replies, hand-offs in flight, and the liveness rule. Every wait here
 * polls and sleeps, never blocks inside MPI, so a data process that died
 * becomes an error after FERRY_DECOUPLE_TIMEOUT of silence instead of a
 * hang.
 */
#include "core/errors.h"
#include "decouple/decouple.h"

#include <stdlib.h>
#include <string.h>

static struct {
    int64_t seq;
    double last_heard;   /* last word from my data process */
    int dead;
    struct {
        MPI_Request r;
        char *buf;
        int64_t len;
    } *sends;             /* oldest at `first`: hand-offs complete in order */
    int first, nsends, cap;
    int64_t inflight;
    int64_t received, sent;
} L;

static char empty[1];

FERRY_PUBLIC void ferry_decouple_traffic(int64_t *received, int64_t *sent)
{
    if (received)
        *received = L.received;
    if (sent)
        *sent = L.sent;
}

int dc_link_dead(void)
{
    return L.dead;
}

static int dead_error(void)
{
    return ferry_err(MPI_ERR_OTHER, "the data process stopped answering (it died, or FERRY_DECOUPLE_TIMEOUT is too short)");
}

/* Heartbeats from my data process: each one proves it alive. */
static void hear(void)
{
    int flag = 1;
    MPI_Status st;
    while (flag) {
        MPI_Iprobe(dc_w.home, DC_TAG_HB, dc_w.proto, &flag, &st);
        if (flag) {
            MPI_Recv(empty, 0, MPI_BYTE, dc_w.home, DC_TAG_HB, dc_w.proto, MPI_STATUS_IGNORE);
            L.last_heard = dc_now();
        }
    }
}

static int silent_too_long(void)
{
    if (!L.dead && dc_now() - L.last_heard > dc_cfg()->timeout)
        L.dead = 1;
    return L.dead;
}

/* Frees the hand-offs that have left, oldest first (one destination, so
 * they leave in order: stopping at the first still out keeps this cheap). */
static void reap(void)
{
    while (L.nsends > 0) {
        int flag = 0;
        MPI_Test(&L.sends[L.first].r, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            return;
        L.inflight -= L.sends[L.first].len;
        free(L.sends[L.first].buf);
        L.first++;
        L.nsends--;
    }
    L.first = 0;
}

int dc_send_owned(char *buf, int64_t len)
{
    if (L.dead) {
        free(buf);
        return dead_error();
    }
    reap();
    /* the window holds the writers back when the data side falls behind */
    int idle = 0;
    if (L.nsends > 0 && L.inflight + len > dc_cfg()->window)
        L.last_heard = dc_now();
    while (L.nsends > 0 && L.inflight + len > dc_cfg()->window) {
        hear();
        if (silent_too_long()) {
            free(buf);
            return dead_error();
        }
        dc_backoff(&idle);
        int before = L.nsends;
        reap();
        if (L.nsends != before)
            idle = 0;
    }
    if (L.first + L.nsends == L.cap) {
        if (L.first > 0) {
            memmove(L.sends, L.sends + L.first, (size_t)L.nsends * sizeof *L.sends);
            L.first = 0;
        } else {
            int nc = L.cap ? 2 * L.cap : 32;
            void *p = realloc(L.sends, (size_t)nc * sizeof *L.sends);
            if (!p) {
                free(buf);
                return ferry_err(MPI_ERR_NO_MEM, "out of memory handing data over");
            }
            L.sends = p;
            L.cap = nc;
        }
    }
    int at = L.first + L.nsends;
    int rc = MPI_Isend(buf, (int)len, MPI_BYTE, dc_w.home, DC_TAG_MSG, dc_w.proto, &L.sends[at].r);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return ferry_err(MPI_ERR_OTHER, "could not send to the data process");
    }
    L.sends[at].buf = buf;
    L.sends[at].len = len;
    L.nsends++;
    L.inflight += len;
    L.sent += len;
    return MPI_SUCCESS;
}

int dc_flush_sends(void)
{
    reap();
    if (L.nsends == 0)
        return L.dead ? dead_error() : MPI_SUCCESS;
    L.last_heard = dc_now();
    int idle = 0;
    while (L.nsends > 0) {
        hear();
        if (silent_too_long())
            return dead_error();
        dc_backoff(&idle);
        reap();
    }
    return MPI_SUCCESS;
}

int dc_call_start(dc_call *c, dc_msg *m, const void *payload, int64_t paylen, int64_t rescap)
{
    memset(c, 0, sizeof *c);
    c->rreq = MPI_REQUEST_NULL;
    if (L.dead) {
        c->done = 1;
        c->code = dead_error();
        return c->code;
    }
    c->seq = ++L.seq;
    m->seq = c->seq;
    m->paylen = paylen;
    c->rcap = (int64_t)sizeof(dc_reply) + rescap + MPI_MAX_ERROR_STRING;
    c->rbuf = malloc((size_t)c->rcap);
    char *out = malloc(sizeof *m + (size_t)paylen);
    if (!c->rbuf || !out) {
        free(out);
        c->done = 1;
        c->code = ferry_err(MPI_ERR_NO_MEM, "out of memory sending a request");
        return c->code;
    }
    /* the reply's receive first, so it never waits among unexpected messages */
    MPI_Irecv(c->rbuf, (int)c->rcap, MPI_BYTE, dc_w.home, dc_reply_tag(c->seq), dc_w.proto, &c->rreq);
    memcpy(out, m, sizeof *m);
    if (paylen > 0)
        memcpy(out + sizeof *m, payload, (size_t)paylen);
    L.last_heard = dc_now();
    int rc = dc_send_owned(out, (int64_t)sizeof *m + paylen);
    if (rc != MPI_SUCCESS) {
        MPI_Cancel(&c->rreq);
        MPI_Wait(&c->rreq, MPI_STATUS_IGNORE);
        c->done = 1;
        c->code = rc;
    }
    return rc;
}

static void take_reply(dc_call *c, const MPI_Status *st)
{
    int n = 0;
    MPI_Get_count(st, MPI_BYTE, &n);
    L.received += n;
    L.last_heard = dc_now();
    c->done = 1;
    if (n < (int)sizeof(dc_reply)) {
        c->code = ferry_err(MPI_ERR_INTERN, "a reply from the data process arrived damaged");
        return;
    }
    memcpy(&c->rep, c->rbuf, sizeof c->rep);
    c->res = c->rbuf + sizeof c->rep;
    if (c->rep.cls != MPI_SUCCESS)
        c->code = dc_err_remote(c->rep.cls, c->res + c->rep.reslen, c->rep.textlen);
}

int dc_call_test(dc_call *c, int *flag)
{
    *flag = c->done;
    if (c->done)
        return c->code;
    MPI_Status st;
    int got = 0;
    MPI_Test(&c->rreq, &got, &st);
    if (got) {
        take_reply(c, &st);
        hear(); /* heartbeats that came with it */
        *flag = 1;
        return c->code;
    }
    hear();
    reap();
    if (silent_too_long()) {
        MPI_Cancel(&c->rreq);
        MPI_Wait(&c->rreq, MPI_STATUS_IGNORE);
        c->done = 1;
        c->code = dead_error();
        *flag = 1;
    }
    return c->code;
}

int dc_call_wait(dc_call *c)
{
    int flag = 0, idle = 0;
    for (;;) {
        dc_call_test(c, &flag);
        if (flag)
            return c->code;
        dc_backoff(&idle);
    }
}

void dc_call_free(dc_call *c)
{
    free(c->rbuf);
    c->rbuf = NULL;
}
