/*
 * Nonblocking decoupled reads as generalized requests. MPI gives a
 * generalized request no progress of its own, so:
 *  - MPICH: an extended generalized request, whose poll function MPI_Test
 *    and MPI_Wait call; it looks for the reply and completes the request.
 *    MPI_Test is truly nonblocking.
 *  - Open MPI 4 (no extension): the request is complete from the start, and
 *    the query function, which MPI_Wait and MPI_Test call before they
 *    return, collects the reply. The data process still works while the
 *    program computes; only a first MPI_Test waits for the result.
 * A request freed before its reply came stays on a list until the reply is
 * collected (at a later call, or at finalize).
 */
#include "core/errors.h"
#include "core/io.h"
#include "decouple/decouple.h"

#include <stdlib.h>
#include <string.h>

typedef struct dc_req {
    dc_call call;
    void *result;
    int64_t rescap;
    MPI_Request greq;
    int delivered, freed, completed;
    int idle;             /* polls in a row that found nothing */
    struct dc_req *next;
} dc_req;

static dc_req *live;

static void unlink_req(dc_req *r)
{
    for (dc_req **p = &live; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            return;
        }
}

static void destroy(dc_req *r)
{
    unlink_req(r);
    dc_call_free(&r->call);
    free(r);
}

static void deliver(dc_req *r)
{
    if (r->delivered || !r->call.done)
        return;
    r->delivered = 1;
    if (r->call.code == MPI_SUCCESS && r->call.rep.reslen > 0 && r->call.rep.reslen <= r->rescap)
        memcpy(r->result, r->call.res, (size_t)r->call.rep.reslen);
}

static int query_fn(void *state, MPI_Status *st)
{
    dc_req *r = state;
    if (!r->call.done)
        dc_call_wait(&r->call);
    deliver(r);
    ferry_status_set(st, r->call.code == MPI_SUCCESS ? r->call.rep.bytes : 0);
    return r->call.code;
}

static int free_fn(void *state)
{
    dc_req *r = state;
    r->freed = 1;
    if (r->call.done)
        destroy(r);
    return MPI_SUCCESS;
}

static int cancel_fn(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS; /* the data process's work cannot be called back */
}

#if defined(MPICH_NUMVERSION)
static int poll_fn(void *state, MPI_Status *st)
{
    (void)st;
    dc_req *r = state;
    if (!r->completed) {
        int flag = 0;
        dc_call_test(&r->call, &flag);
        if (flag) {
            r->completed = 1;
            MPI_Grequest_complete(r->greq);
        } else {
            /* MPI_Wait calls this in a tight loop: no core burnt on waiting */
            dc_backoff(&r->idle);
        }
    }
    return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    for (int i = 0; i < count; i++) {
        dc_req *r = states[i];
        while (!r->completed)
            poll_fn(r, st);
    }
    return MPI_SUCCESS;
}
#endif

int dc_request_start(dc_call *c, void *result, int64_t rescap, MPI_Request *req)
{
    dc_req *r = calloc(1, sizeof *r);
    if (!r) {
        dc_call_wait(c);
        dc_call_free(c);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory starting a request");
    }
    r->call = *c;
    r->result = result;
    r->rescap = rescap;
    r->next = live;
    live = r;
#if defined(MPICH_NUMVERSION)
    int rc = MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, r, req);
#else
    int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, r, req);
    if (rc == MPI_SUCCESS) {
        r->completed = 1;
        rc = MPI_Grequest_complete(*req);
    }
#endif
    if (rc != MPI_SUCCESS) {
        dc_call_wait(&r->call);
        destroy(r);
        return rc;
    }
    r->greq = *req;
    return MPI_SUCCESS;
}

void dc_requests_drain(int wait)
{
    for (dc_req *r = live, *next; r; r = next) {
        next = r->next;
        if (!r->call.done) {
            int flag = 0;
            if (wait)
                dc_call_wait(&r->call);
            else
                dc_call_test(&r->call, &flag);
        }
        if (!r->call.done)
            continue;
#if defined(MPICH_NUMVERSION)
        if (!r->completed) {
            r->completed = 1;
            MPI_Grequest_complete(r->greq); /* MPI may now free it, and calls free_fn */
            continue;
        }
#endif
        if (r->freed)
            destroy(r);
    }
}
