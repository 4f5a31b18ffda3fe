/*
 * The data path of every read and write call: where the access starts (explicit
 * offset, individual pointer, shared pointer, or rank order), how many bytes it
 * is, which strategy moves them, and what the status reports.
 */
#ifndef FERRY_CORE_IO_H
#define FERRY_CORE_IO_H

#include "core/file.h"

typedef enum { FERRY_AT, FERRY_INDIVIDUAL, FERRY_SHARED, FERRY_ORDERED } ferry_where;

typedef struct ferry_call {
    ferry_where where;
    MPI_Offset offset;    /* FERRY_AT: in etypes */
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int is_write;
    int collective;       /* every rank of the file calls it */
} ferry_call;

/* local_err: the binding's argument check on this rank. A collective call
 * takes part in the collective even when local_err is set, then fails on all.
 * Collectives queued on the file's worker (async.c) complete first. */
int ferry_io(ferry_file *f, const ferry_call *c, int local_err, MPI_Status *status);
/* The same, completed through a generalized request. A collective call runs
 * on the file's worker when MPI runs at MPI_THREAD_MULTIPLE, else at once. */
int ferry_io_nonblocking(ferry_file *f, const ferry_call *c, int local_err, MPI_Request *req);
/* Split collectives: begin starts the collective (on the worker, or at once),
 * end waits for it and reports it. */
int ferry_io_split_begin(ferry_file *f, const ferry_call *c, int local_err);
int ferry_io_split_end(ferry_file *f, int is_write, MPI_Status *status);

/* One data call between its start on the caller's thread (arguments,
 * datatypes, position, file pointers) and its transfer, which may run on the
 * file's worker. Opaque outside io.c. */
typedef struct ferry_started ferry_started;
/* Moves the bytes of a started call, stores the call's outcome, frees op. */
void ferry_op_run(ferry_file *f, ferry_started *op, int *code, int64_t *done);
/* Frees a started call that will not run. */
void ferry_op_drop(ferry_started *op);

/* Status and requests (status.c). */
void ferry_status_set(MPI_Status *st, int64_t bytes);
int ferry_request_completed(int code, int64_t bytes, MPI_Request *req);
/* A request completed later by ferry_request_finish (from any thread). */
typedef struct ferry_pending ferry_pending;
int ferry_request_pending(MPI_Request *req, ferry_pending **p);
void ferry_request_finish(ferry_pending *p, int code, int64_t bytes);

#endif
