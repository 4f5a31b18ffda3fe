/*
 * The data path of every read and write call: blocking, nonblocking (on the
 * file's worker, async.c) and split. Where the access starts (explicit offset,
 * individual pointer, shared pointer, or rank order), how many bytes it is and
 * which strategy moves them is op.c's; what the status reports, status.c's.
 */
#ifndef FERRY_CORE_IO_H
#define FERRY_CORE_IO_H

#include "core/call.h"
#include "core/status.h"

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

#endif
