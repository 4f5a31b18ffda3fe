/*
 * Status and completed requests. Counts are stored in bytes through the
 * public MPI_Status_set_elements_x, so MPI_Get_count and MPI_Get_elements
 * work for any datatype on either ABI.
 */
#include "core/status.h"

#include <stdlib.h>

void ferry_status_set(MPI_Status *st, int64_t bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    MPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)bytes);
    MPI_Status_set_cancelled(st, 0);
}

/* The state of ferry's generalized requests; a pending one is completed by
 * whoever finishes the transfer. */
struct ferry_pending {
    int code;
    int64_t bytes;
    MPI_Request req;
};
typedef struct ferry_pending done_req;

static int query_fn(void *state, MPI_Status *st)
{
    done_req *d = state;
    /* MPI_ERROR stays the caller's: MPI sets it only for multiple completions */
    ferry_status_set(st, d->bytes);
    return d->code;
}

static int free_fn(void *state)
{
    free(state);
    return MPI_SUCCESS;
}

static int cancel_fn(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS; /* already complete: cancel has no effect */
}

int ferry_request_completed(int code, int64_t bytes, MPI_Request *req)
{
    done_req *d = malloc(sizeof *d);
    if (!d)
        return MPI_ERR_NO_MEM;
    d->code = code;
    d->bytes = bytes;
    int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, d, req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    return MPI_Grequest_complete(*req);
}

int ferry_request_pending(MPI_Request *req, ferry_pending **p)
{
    done_req *d = calloc(1, sizeof *d);
    if (!d)
        return MPI_ERR_NO_MEM;
    int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, d, req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    d->req = *req;
    *p = d;
    return MPI_SUCCESS;
}

void ferry_request_finish(ferry_pending *p, int code, int64_t bytes)
{
    p->code = code;
    p->bytes = bytes;
    /* after this call the request, and p with it, may be freed by a waiter */
    MPI_Grequest_complete(p->req);
}
