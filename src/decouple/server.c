/*
 * The serving loop of a data process. It never blocks in MPI: messages are
 * matched with MPI_Improbe and received with MPI_Imrecv, because a compute
 * process deep in its own computation moves a large message only when it
 * next enters MPI, and one slow sender must not stall everybody else. When
 * there is nothing to do it sleeps a little, so an idle data process leaves
 * the core to the computation.
 *
 * Liveness: whoever waits on a data process hears from it at least every
 * heartbeat interval (a reply, a part or an empty heartbeat message), and
 * counts it dead after FERRY_DECOUPLE_TIMEOUT of silence.
 *
 * Termination: a data process is done when all its clients said goodbye and
 * its queues are empty; it tells the others, keeps serving their parts, and
 * leaves once every other data process is done or dead.
 */
#include "core/errors.h"
#include "core/say.h"
#include "decouple/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char empty[1];

static void enqueue(dc_queue *q, dc_job *j)
{
    if (q->tail)
        q->tail->next = j;
    else
        q->head = j;
    q->tail = j;
}

/* Matches one message and starts receiving it into a new job. */
static int take(dc_server *S, MPI_Comm comm, int tag, dc_queue *queues, int peer)
{
    int flag = 0;
    MPI_Message mh;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &mh, &st);
    if (!flag)
        return 0;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    dc_job *j = calloc(1, sizeof *j);
    char *msg = malloc(n > 0 ? (size_t)n : 1);
    if (!j || !msg) {
        /* cannot hold it: take it anyway, or it blocks everything behind it */
        char *sink = malloc(n > 0 ? (size_t)n : 1);
        MPI_Mrecv(sink, n, MPI_BYTE, &mh, MPI_STATUS_IGNORE);
        free(sink);
        free(j);
        free(msg);
        return 1;
    }
    j->src = st.MPI_SOURCE;
    j->peer = peer;
    j->msg = msg;
    j->len = n;
    MPI_Imrecv(msg, n, MPI_BYTE, &mh, &j->rreq);
    enqueue(&queues[j->src], j);
    if (peer)
        S->peer_last[j->src] = dc_now();
    else
        S->queued += n;
    if (dc_cfg()->on_request)
        dc_cfg()->on_request(dc_w.wrank);
    return 1;
}

static int accept_messages(dc_server *S)
{
    int any = 0;
    double now = dc_now();
    /* clients' messages only while the backlog has room: beyond it, their
     * hand-offs wait on their side, which is what holds the writers back */
    while ((S->queued < dc_cfg()->window || S->queued == 0) && take(S, dc_w.proto, DC_TAG_MSG, S->clients, 0))
        any = 1;
    if (dc_w.ndata < 2)
        return any;
    while (take(S, dc_w.peers, DC_TAG_SUB, S->helps, 1))
        any = 1;
    int flag = 1;
    MPI_Status st;
    while (flag) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dc_w.peers, &flag, &st);
        if (!flag || st.MPI_TAG == DC_TAG_SUB)
            break;
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        char *b = malloc(n > 0 ? (size_t)n : 1);
        MPI_Recv(b ? b : empty, b ? n : 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, dc_w.peers, MPI_STATUS_IGNORE);
        S->peer_last[st.MPI_SOURCE] = now;
        if (st.MPI_TAG == DC_TAG_PART && b)
            dc_job_part(S, st.MPI_SOURCE, b, n);
        else if (st.MPI_TAG == DC_TAG_DONE)
            S->peer_done[st.MPI_SOURCE] = 1;
        free(b);
        any = 1;
    }
    return any;
}

static dc_queue *queue_at(dc_server *S, int i)
{
    return i < dc_w.ncompute ? &S->clients[i] : &S->helps[i - dc_w.ncompute];
}

static void pop(dc_server *S, dc_queue *q)
{
    dc_job *j = q->head;
    q->head = j->next;
    if (!q->head)
        q->tail = NULL;
    if (!j->peer)
        S->queued -= j->len;
    dc_job_free(j);
}

/* One step of the next queue whose head can move. */
static int run_step(dc_server *S)
{
    for (int k = 0; k < S->nq; k++) {
        int i = (S->cursor + k) % S->nq;
        dc_queue *q = queue_at(S, i);
        dc_job *j = q->head;
        if (!j)
            continue;
        if (j->rreq != MPI_REQUEST_NULL) {
            int flag = 0;
            MPI_Test(&j->rreq, &flag, MPI_STATUS_IGNORE);
            if (!flag)
                continue;
        }
        if (!dc_job_ready(j))
            continue;
        S->cursor = (i + 1) % S->nq;
        if (dc_job_step(S, j))
            pop(S, q);
        return 1;
    }
    return 0;
}

static void heartbeats(dc_server *S, double now)
{
    double every = dc_cfg()->heartbeat;
    /* while the backlog is full, clients' hand-offs wait on their side with
     * nothing queued here: they hear from me too */
    int throttled = S->queued >= dc_cfg()->window && dc_w.mine;
    for (int c = 0; c < dc_w.ncompute; c++) {
        dc_queue *q = &S->clients[c];
        if ((q->head || (throttled && dc_w.mine[c] && !q->gone)) && now - q->last_hb >= every) {
            dc_srv_signal(S, dc_w.proto, c, DC_TAG_HB);
            q->last_hb = now;
        }
    }
    for (int p = 0; p < dc_w.ndata; p++) {
        dc_queue *q = &S->helps[p];
        /* homes waiting for parts, and finished peers waiting for my "done" */
        int owed = q->head || (S->peer_done[p] && !S->done_sent);
        if (p != S->me && owed && now - q->last_hb >= every) {
            dc_srv_signal(S, dc_w.peers, p, DC_TAG_HB);
            q->last_hb = now;
        }
    }
}

static int all_empty(dc_server *S, int include_helps)
{
    for (int c = 0; c < dc_w.ncompute; c++)
        if (S->clients[c].head)
            return 0;
    if (include_helps)
        for (int p = 0; p < dc_w.ndata; p++)
            if (S->helps[p].head)
                return 0;
    return S->waiting == NULL;
}

/* 1 once this process may leave the loop. */
static int finished(dc_server *S, double now)
{
    if (!S->done_sent) {
        if (S->clients_left > 0 || !all_empty(S, 0))
            return 0;
        for (int p = 0; p < dc_w.ndata; p++)
            if (p != S->me) {
                dc_srv_signal(S, dc_w.peers, p, DC_TAG_DONE);
                if (S->peer_last[p] < now)
                    S->peer_last[p] = now; /* their silence counts from now */
            }
        S->done_sent = 1;
    }
    for (int p = 0; p < dc_w.ndata; p++) {
        if (p == S->me || S->peer_done[p] || S->peer_dead[p])
            continue;
        if (now - S->peer_last[p] > dc_cfg()->timeout) {
            ferry_say(FERRY_INFO, "data process %d: data process %d stopped answering", dc_w.wrank, p);
            S->peer_dead[p] = 1;
            continue;
        }
        return 0;
    }
    return all_empty(S, 1) && S->nouts == 0;
}

static int server_init(dc_server *S)
{
    memset(S, 0, sizeof *S);
    MPI_Comm_rank(dc_w.peers, &S->me);
    S->nq = dc_w.ncompute + dc_w.ndata;
    S->clients = calloc((size_t)dc_w.ncompute, sizeof *S->clients);
    S->helps = calloc((size_t)dc_w.ndata, sizeof *S->helps);
    S->peer_last = calloc((size_t)dc_w.ndata, sizeof *S->peer_last);
    S->peer_done = calloc((size_t)dc_w.ndata, 1);
    S->peer_dead = calloc((size_t)dc_w.ndata, 1);
    S->clients_left = dc_w.nclients;
    if (!S->clients || !S->helps || !S->peer_last || !S->peer_done || !S->peer_dead)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory starting a data process");
    return MPI_SUCCESS;
}

static void server_free(dc_server *S)
{
    dc_session_close_all(S);
    /* heartbeats that crossed our goodbyes */
    int flag = 1;
    MPI_Status st;
    while (flag) {
        MPI_Iprobe(MPI_ANY_SOURCE, DC_TAG_HB, dc_w.peers, &flag, &st);
        if (flag)
            MPI_Recv(empty, 0, MPI_BYTE, st.MPI_SOURCE, DC_TAG_HB, dc_w.peers, MPI_STATUS_IGNORE);
    }
    free(S->clients);
    free(S->helps);
    free(S->peer_last);
    free(S->peer_done);
    free(S->peer_dead);
    free(S->outs);
    free(S->buf);
}

int dc_serve(void)
{
    dc_server S;
    int rc = server_init(&S);
    if (rc != MPI_SUCCESS) {
        server_free(&S);
        return rc;
    }
    int idle = 0;
    for (;;) {
        int busy = accept_messages(&S);
        busy |= run_step(&S);
        busy |= dc_srv_reap(&S);
        double now = dc_now();
        heartbeats(&S, now);
        if (S.waiting)
            dc_jobs_check_peers(&S, now);
        if (finished(&S, now))
            break;
        if (busy)
            idle = 0;
        else
            dc_backoff(&idle);
    }
    int lost = 0;
    for (int p = 0; p < dc_w.ndata; p++)
        lost |= S.peer_dead[p];
    server_free(&S);
    if (lost) {
        /* every client has said goodbye; finalizing now could wait forever */
        ferry_say(FERRY_INFO, "data process %d: a data process died during the run; ending the job", dc_w.wrank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return MPI_SUCCESS;
}
