/* Sends in flight with the buffers they own: a buffer is freed only once MPI
 * is done with it. */
#include "strategy/forward_internal.h"

#include <stdlib.h>
#include <string.h>

int ferry_fwd_queue_push(fwd_queue *q, MPI_Request req, char *buf, int64_t len)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 16;
        fwd_send *v = realloc(q->v, (size_t)cap * sizeof *v);
        if (!v) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            free(buf);
            return 0;
        }
        q->v = v, q->cap = cap;
    }
    q->v[q->n++] = (fwd_send){req, buf, len};
    q->bytes += len;
    return 1;
}

void ferry_fwd_queue_reap(fwd_queue *q)
{
    int k = 0;
    for (int i = 0; i < q->n; i++) {
        int done = 0;
        MPI_Test(&q->v[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            q->bytes -= q->v[i].len;
            free(q->v[i].buf);
        } else {
            q->v[k++] = q->v[i];
        }
    }
    q->n = k;
}

void ferry_fwd_queue_wait(fwd_queue *q)
{
    for (int i = 0; i < q->n; i++) {
        MPI_Wait(&q->v[i].req, MPI_STATUS_IGNORE);
        free(q->v[i].buf);
    }
    q->n = 0;
    q->bytes = 0;
}

void ferry_fwd_queue_trim(fwd_queue *q)
{
    if (q->n == 0)
        return;
    MPI_Wait(&q->v[0].req, MPI_STATUS_IGNORE);
    q->bytes -= q->v[0].len;
    free(q->v[0].buf);
    memmove(q->v, q->v + 1, (size_t)(q->n - 1) * sizeof *q->v);
    q->n--;
}
