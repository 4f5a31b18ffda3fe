/*
 * Forwarding for independent I/O (ferry_ind_write_strategy=forward,
 * ferry_ind_read_strategy=forward): a rank hands each call's file pieces and
 * data to a forwarder rank on its assigned gateway node, optionally through
 * collector ranks of its own node that coalesce what their node mates send.
 * The forwarder writes every block at its owner's offset, so the layout is
 * the one direct I/O gives. A write returns once the forwarder has written it
 * and acknowledged (ferry_forward_errors=call, the default: a failure is the
 * call's), or, with ferry_forward_errors=deferred, once the data is copied
 * out of the caller's buffer (a failure then reaches the owner at its next
 * forwarded call, sync or close). Reads wait for the data; sync, close,
 * collective calls and size changes first flush what this rank has in flight.
 *
 * Forwarders and collectors serve from a progress thread on a private
 * communicator, which needs MPI_THREAD_MULTIPLE; without it the file uses the
 * direct path and the statistics say why.
 */
#ifndef FERRY_STRATEGY_FORWARD_H
#define FERRY_STRATEGY_FORWARD_H

#include "strategy/strategy.h"

/* Its descriptor's code (catalog.c): the open, flush and close below. */
extern const struct ferry_strategy_code ferry_forward_code;

/* MPI_THREAD_MULTIPLE when FERRY_HINTS or FERRY_HINTS_FILE asks for
 * forwarding, else `required`: the level MPI_Init should request. */
int ferry_forward_thread_level(int required);
/* Collective over f->comm: sets f->fwd when a forward hint is in effect and
 * the forwarding plan could be built on every rank. */
void ferry_forward_open(ferry_file *f);
/* Collective: flushes, stops the serving threads, frees f->fwd. Returns this
 * rank's forwarded-I/O error, if any. */
int ferry_forward_close(ferry_file *f);
/* Waits until everything this rank forwarded is in the file (or failed);
 * returns the first unreported error. Local: needs no other rank's call. */
int ferry_forward_flush(ferry_file *f);
/* The reason the independent path records when forwarding was asked for
 * but is unavailable (e.g. no MPI_THREAD_MULTIPLE), else NULL. */
const char *ferry_forward_fallback(const ferry_file *f, int is_write);
/* 1 if the call was handled here (then *code and *done are set): forwarded,
 * or failed on an earlier forwarded call's error. Calls that take another
 * path first flush what this rank forwarded (then 0 is returned). */
int ferry_forward_io(ferry_file *f, const ferry_xfer *x, int *code, int64_t *done);

#endif
