/*
 * Strategies: the ways ferry moves one call's bytes between user memory and
 * the file. The core describes a call as a ferry_xfer and reaches the
 * strategies through the table of core/strategies.h (filled in table.c); a
 * strategy moves the bytes through the file's driver and counts what it did.
 * Strategies never call the binding.
 */
#ifndef FERRY_STRATEGY_STRATEGY_H
#define FERRY_STRATEGY_STRATEGY_H

#include "core/strategies.h"
#include "datatype/memwalk.h"

/* One contiguous piece of a transfer: file bytes [foff, foff+len) <-> the
 * data bytes [dpos, dpos+len) of the call's stream. */
typedef struct ferry_piece {
    int64_t foff;
    int64_t len;
} ferry_piece;

/* Walks the file side of a transfer as contiguous runs (view tiled from its
 * displacement), merging runs that touch. */
typedef struct ferry_file_walk {
    const ferry_view *v;
    ferry_iter it;
    int64_t left;
    int64_t next_off; /* fast path for byte-contiguous views */
} ferry_file_walk;

void ferry_file_walk_init(ferry_file_walk *w, const ferry_view *v, int64_t pos, int64_t bytes);
int ferry_file_walk_next(ferry_file_walk *w, int64_t maxlen, int64_t *off, int64_t *len);

/* Independent strategies: MPI_SUCCESS or an error code; *done = bytes moved
 * (a read stops short only at end of file; a failed write reports only the
 * bytes known to be in the file). */
int ferry_strategy_direct(ferry_file *f, const ferry_xfer *x, int64_t *done);

/* The independent path for one call: chooses direct or sieving, honours
 * atomic mode, records the choice. */
int ferry_strategy_independent(ferry_file *f, const ferry_xfer *x, int collective, int64_t *done);

/* The collective path for one call on every rank of f->comm: `local_err`
 * is this rank's argument check; the call fails on every rank if it failed
 * on any. */
int ferry_strategy_collective(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done);
/* Makes f's collective state use a node communicator of its own (for a
 * file's worker, whose collectives run beside the caller's). */
int ferry_strategy_own_nodes(ferry_file *f);
/* Frees what the collective strategies kept on f (collective: at close). */
void ferry_strategy_release(ferry_file *f);

#endif
