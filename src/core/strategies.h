/*
 * What the core asks of the strategy layer, as one table of entry points
 * (ROMIO's ADIO function tables are the model). The strategy layer defines
 * the table (strategy/table.c); the core calls through it and never names a
 * strategy, so the file object does not know which strategies exist.
 */
#ifndef FERRY_CORE_STRATEGIES_H
#define FERRY_CORE_STRATEGIES_H

#include "core/file.h"

/* One call's transfer as the core describes it to a strategy. */
typedef struct ferry_xfer {
    char *buf;            /* user buffer (offsets of mem are relative to it) */
    ferry_flat *mem;      /* memory layout of one element */
    int64_t memcount;     /* elements */
    int64_t pos;          /* first data byte in the view's stream */
    int64_t bytes;        /* data bytes requested */
    int is_write;
} ferry_xfer;

typedef struct ferry_strategy_table {
    /* One independent call: MPI_SUCCESS or an error code; *done = bytes
     * moved. `collective`: part of a collective call that went independent. */
    int (*independent)(ferry_file *f, const ferry_xfer *x, int collective, int64_t *done);
    /* One collective call on every rank of f->comm; `local_err` is this
     * rank's argument check, and the call fails on every rank if it failed
     * on any. */
    int (*collective)(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done);
    /* Gives f's collective state a node communicator of its own (a file's
     * worker, whose collectives run beside the caller's). */
    int (*own_nodes)(ferry_file *f);
    /* Frees what the collective strategies kept on f. */
    void (*release)(ferry_file *f);
    /* Open and close hooks, collective over f->comm: every strategy's own,
     * e.g. forwarding sets up and tears down its serving ranks (close
     * returns this rank's forwarded-I/O error, if any). */
    void (*open)(ferry_file *f);
    int (*close)(ferry_file *f);
    /* Local: everything this rank handed to another rank is in the file (or
     * failed); returns the first unreported error. Before sync, size changes
     * and collective metadata calls. */
    int (*flush)(ferry_file *f);
} ferry_strategy_table;

extern const ferry_strategy_table ferry_strategies;

#endif
