/* The status a data call reports, and requests: completed at once, or
 * later by ferry_request_finish from any thread. */
#ifndef FERRY_CORE_STATUS_H
#define FERRY_CORE_STATUS_H

#include <mpi.h>
#include <stdint.h>

void ferry_status_set(MPI_Status *st, int64_t bytes);
int ferry_request_completed(int code, int64_t bytes, MPI_Request *req);
/* A request completed later by ferry_request_finish (from any thread). */
typedef struct ferry_pending ferry_pending;
int ferry_request_pending(MPI_Request *req, ferry_pending **p);
void ferry_request_finish(ferry_pending *p, int code, int64_t bytes);

#endif
