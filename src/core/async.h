/*
 * The file's worker: a thread that runs the file's nonblocking and split
 * collectives in the order they were started, on a communicator of its own,
 * so the program computes while they move. Used only when MPI runs at
 * MPI_THREAD_MULTIPLE; below that those calls complete when they start.
 *
 * The worker runs each call on its own copy of the file object (own
 * communicator, own collective state and node communicator, own counters),
 * so the caller's thread may start more calls meanwhile. Anything else that
 * uses the file first waits for the queue to empty (ferry_async_drain); the
 * worker's counters join the file's there.
 */
#ifndef FERRY_CORE_ASYNC_H
#define FERRY_CORE_ASYNC_H

#include "core/op.h"
#include "core/status.h"

/* 1 when calls on f can go to a worker (MPI_THREAD_MULTIPLE). */
int ferry_async_available(const ferry_file *f);
/* Queues a started call; starts the worker on first use. On completion the
 * worker finishes `req` (may be NULL) and stores the outcome in *code and
 * *bytes when they are given (a split collective's state). */
int ferry_async_post(ferry_file *f, ferry_started *op, ferry_pending *req, int *code, int64_t *bytes);
/* Waits until every queued call on f has completed. Does nothing without a worker. */
void ferry_async_drain(ferry_file *f);
/* Drains, stops the worker and frees what it holds; collective (at close). */
void ferry_async_stop(ferry_file *f);

#endif
