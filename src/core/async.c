#include "core/async.h"
#include "core/errors.h"
#include "core/stats_internal.h"
#include "core/strategies.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct queued {
    ferry_started *op;
    ferry_pending *req;
    int *code;
    int64_t *bytes;
    struct queued *next;
} queued;

struct ferry_async {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    queued *head, *tail; /* the head stays queued while it runs */
    int quit;
    int comm_err;        /* the worker's communicator could not be made */
    ferry_file shadow;   /* the worker's copy of the file object */
};

int ferry_async_available(const ferry_file *f)
{
    /* FERRY_ASYNC=1 at MPI_THREAD_MULTIPLE on every rank (core/switches.c) */
    return f->size >= 1 && f->sw.v[FERRY_SW_ASYNC] != 0;
}

/* What a call reads from the file object and only drained calls change. */
static void shadow_refresh(ferry_file *sh, const ferry_file *f)
{
    sh->magic = f->magic;
    sh->rank = f->rank;
    sh->size = f->size;
    sh->filename = f->filename;
    sh->path = f->path;
    sh->amode = f->amode;
    sh->fd = f->fd;
    sh->fd_readable = f->fd_readable;
    sh->fs = f->fs;
    sh->hints = f->hints;
    sh->view = f->view;
    sh->atomic = f->atomic;
    sh->errhandler = f->errhandler;
    sh->sw = f->sw;
    memcpy(sh->coll_shown, f->coll_shown, sizeof sh->coll_shown);
}

/* Moves the worker's counters into the file's (f's own are never touched
 * by the worker). */
static void add_stats(ferry_stats *to, ferry_stats *from)
{
    for (int i = 0; i < ferry_stats_ncounters; i++) {
        int64_t a, b;
        size_t off = ferry_stats_counters[i].offset;
        memcpy(&a, (char *)to + off, sizeof a);
        memcpy(&b, (char *)from + off, sizeof b);
        a += b;
        memcpy((char *)to + off, &a, sizeof a);
    }
    for (int k = 0; k < FERRY_KIND_COUNT; k++) {
        if (!from->strategy_calls[k])
            continue;
        memcpy(to->strategy[k], from->strategy[k], sizeof to->strategy[k]);
        memcpy(to->reason[k], from->reason[k], sizeof to->reason[k]);
        to->strategy_calls[k] += from->strategy_calls[k];
    }
    for (int p = 0; p < FERRY_PHASE_COUNT; p++)
        to->phase[p] += from->phase[p];
    ferry_stats_init(from);
}

static void *worker_main(void *arg)
{
    ferry_file *f = arg;
    struct ferry_async *a = f->async;
    if (MPI_Comm_dup(f->comm, &a->shadow.comm) != MPI_SUCCESS) {
        a->shadow.comm = MPI_COMM_NULL;
        a->comm_err = 1;
    }
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->head && !a->quit)
            pthread_cond_wait(&a->work, &a->mu);
        if (!a->head)
            break;
        queued *q = a->head;
        shadow_refresh(&a->shadow, f);
        pthread_mutex_unlock(&a->mu);

        int code = MPI_SUCCESS;
        int64_t done = 0;
        if (!a->comm_err) {
            ferry_op_run(&a->shadow, q->op, &code, &done);
        } else { /* every rank's dup failed alike: nothing can be exchanged */
            ferry_op_drop(q->op);
            code = ferry_err(MPI_ERR_INTERN, "the file's worker has no communicator");
        }

        pthread_mutex_lock(&a->mu);
        if (q->code)
            *q->code = code;
        if (q->bytes)
            *q->bytes = done;
        a->head = q->next;
        if (!a->head) {
            a->tail = NULL;
            pthread_cond_broadcast(&a->idle);
        }
        pthread_mutex_unlock(&a->mu);
        if (q->req)
            ferry_request_finish(q->req, code, done);
        free(q);
        pthread_mutex_lock(&a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

static int async_start(ferry_file *f)
{
    struct ferry_async *a = calloc(1, sizeof *a);
    if (!a)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for the file's worker");
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->idle, NULL);
    ferry_stats_init(&a->shadow.stats);
    a->shadow.comm = MPI_COMM_NULL;
    if (ferry_strategies.own_nodes(&a->shadow) != MPI_SUCCESS) {
        free(a);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for the file's worker");
    }
    f->async = a;
    if (pthread_create(&a->thread, NULL, worker_main, f) != 0) {
        ferry_strategies.release(&a->shadow);
        free(a);
        f->async = NULL;
        return ferry_err(MPI_ERR_OTHER, "cannot start the file's worker thread");
    }
    return MPI_SUCCESS;
}

int ferry_async_post(ferry_file *f, ferry_started *op, ferry_pending *req, int *code, int64_t *bytes)
{
    queued *q = calloc(1, sizeof *q);
    int rc = q ? MPI_SUCCESS : ferry_err(MPI_ERR_NO_MEM, "out of memory for a nonblocking collective");
    if (rc == MPI_SUCCESS && !f->async)
        rc = async_start(f);
    if (rc != MPI_SUCCESS) {
        /* the other ranks' worker waits for this rank: run it here instead */
        free(q);
        int c;
        int64_t done;
        ferry_op_run(f, op, &c, &done);
        if (code)
            *code = c;
        if (bytes)
            *bytes = done;
        if (req)
            ferry_request_finish(req, c, done);
        return rc;
    }
    *q = (queued){.op = op, .req = req, .code = code, .bytes = bytes};
    struct ferry_async *a = f->async;
    pthread_mutex_lock(&a->mu);
    if (a->tail)
        a->tail->next = q;
    else
        a->head = q;
    a->tail = q;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    return MPI_SUCCESS;
}

void ferry_async_drain(ferry_file *f)
{
    struct ferry_async *a = f->async;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    if (a->head) {
        double t0 = ferry_now();
        while (a->head)
            pthread_cond_wait(&a->idle, &a->mu);
        ferry_stats_phase(&f->stats, FERRY_PHASE_WAIT, t0);
    }
    add_stats(&f->stats, &a->shadow.stats);
    memcpy(f->coll_shown, a->shadow.coll_shown, sizeof f->coll_shown);
    pthread_mutex_unlock(&a->mu);
}

void ferry_async_stop(ferry_file *f)
{
    struct ferry_async *a = f->async;
    if (!a)
        return;
    ferry_async_drain(f);
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    ferry_strategies.release(&a->shadow);
    if (a->shadow.comm != MPI_COMM_NULL)
        MPI_Comm_free(&a->shadow.comm);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->idle);
    free(a);
    f->async = NULL;
}
