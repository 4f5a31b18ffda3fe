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
#include "util/strategy_desc.h"
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
/* The collective strategy `independent`: that path on every rank (coll_independent.c). */
extern const struct ferry_strategy_code ferry_coll_independent_code;

/* The collective path for one call on every rank of f->comm: `local_err`
 * is this rank's argument check; the call fails on every rank if it failed
 * on any. */
int ferry_strategy_collective(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done);
/* Makes f's collective state use a node communicator of its own (for a
 * file's worker, whose collectives run beside the caller's). */
int ferry_strategy_own_nodes(ferry_file *f);
/* Frees what the collective strategies kept on f (collective: at close). */
void ferry_strategy_release(ferry_file *f);

/* One collective call as a collective strategy runs it (strategy/coll_call.h). */
struct ferry_coll_call;

/* How a strategy runs: the code half of its descriptor (util/strategy_desc.h),
 * defined in the strategy's own file and named in strategy/catalog.c. Any
 * member may be NULL: the strategy does not need that step. */
struct ferry_strategy_code {
    /* Collective strategies, called alike on every rank (their inputs are
     * agreed). usable: whether this call can take the strategy here; when
     * not, *why says why (a literal, or formatted into buf) and the call
     * takes the descriptor's fallback. */
    int (*usable)(struct ferry_coll_call *c, char *buf, size_t cap, const char **why);
    int (*run)(struct ferry_coll_call *c, int64_t *done);
    /* The call is over on every rank: `ran` is 1 when this strategy ran it
     * and it succeeded everywhere. */
    void (*settle)(void *state, int is_write, int ran);
    /* Frees the strategy's state on a file (collective: at close). */
    void (*release)(void *state);
    /* Any strategy: open and close are collective over f->comm, flush is
     * local (everything this rank handed to another rank is in the file). */
    void (*open)(ferry_file *f);
    int (*flush)(ferry_file *f);
    int (*close)(ferry_file *f);
};

/* The hooks of every strategy in the list's order (hooks.c): the first
 * error of flush and close is returned. */
void ferry_strategy_open_all(ferry_file *f);
int ferry_strategy_flush_all(ferry_file *f);
int ferry_strategy_close_all(ferry_file *f);

#endif
