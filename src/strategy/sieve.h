/*
 * Independent noncontiguous I/O: the pieces independent.c chooses between.
 * gather.c moves one file run per system call, with the user's memory pieces
 * handed to the kernel in place when they are big and packed when small;
 * sieve.c covers many small file runs with one large window per system call.
 */
#ifndef FERRY_STRATEGY_SIEVE_H
#define FERRY_STRATEGY_SIEVE_H

#include "strategy/strategy.h"

/* Memory pieces below this many bytes are packed into a staging buffer
 * rather than given their own iovec entry: the kernel's per-entry cost and
 * the driver's entries-per-call batch outweigh copying them. */
#define FERRY_PACK_MIN 2048

/* A write window never spans a hole this large. A direct write that lands
 * inside another rank's window without touching that rank's data lies
 * within one of the window's holes, so a contiguous direct write of at least
 * this size can never be caught in one and needs no lock; smaller ones take
 * a shared lock. */
#define FERRY_SIEVE_MAX_HOLE 4096

/* The file side of a transfer as contiguous runs that can be consumed in
 * part; a plain value, so a window can be scanned on a copy and then filled. */
typedef struct ferry_runs {
    ferry_file_walk fw;
    int64_t off, len; /* the current run's unconsumed part */
    int have;
} ferry_runs;

void ferry_runs_init(ferry_runs *r, const ferry_view *v, int64_t pos, int64_t bytes);
int ferry_runs_peek(ferry_runs *r);
void ferry_runs_consume(ferry_runs *r, int64_t n);

/* Moves the file run [off, off+len) from/to the next len bytes of the memory
 * walk (pieces of FERRY_PACK_MIN or more in place, smaller ones staged).
 * *got = bytes moved (short only at end of file, for reads). Counts the
 * system calls; returns MPI_SUCCESS or an error code. */
int ferry_gather_run(ferry_file *f, ferry_mem_walk *mw, int is_write, int64_t off, int64_t len,
                     int64_t *got);

/* Gathering direct I/O for the whole transfer: one run per call sequence. */
int ferry_strategy_gather(ferry_file *f, const ferry_xfer *x, int64_t *done);

/* Data sieving over the transfer, whose file bytes lie in [lo, hi). Writes
 * take an exclusive byte-range lock per window unless `held` says the caller
 * already holds one over [lo, hi) (atomic mode: unlocking a window would
 * punch a hole in the caller's lock, since fcntl locks of one process merge). */
int ferry_sieve_read(ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi, int64_t *done);
int ferry_sieve_write(ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi, int held,
                      int64_t *done);

#endif
