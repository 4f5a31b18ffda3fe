/*
 * A helper thread that writes one aggregation round while the next round's
 * data is being exchanged. It only ever calls the storage driver, never MPI.
 */
#ifndef FERRY_STRATEGY_WRITER_H
#define FERRY_STRATEGY_WRITER_H

#include "core/file.h"

typedef struct ferry_wrun {
    const char *buf;
    int64_t len;
    int64_t off;
} ferry_wrun;

typedef struct ferry_writer ferry_writer;

/* Starts the thread (or returns NULL: the caller then writes synchronously). */
ferry_writer *ferry_writer_start(ferry_file *f);
/* Hands over runs to write (the array is copied); waits for the previous job first. */
int ferry_writer_submit(ferry_writer *w, const ferry_wrun *runs, int64_t n);
/* Waits for the outstanding job: 0 or -errno of the first failure. */
int ferry_writer_wait(ferry_writer *w);
/* Waits, joins, and adds the thread's system calls and time to f's statistics. */
int ferry_writer_stop(ferry_writer *w);

/* The same work, on the calling thread. */
int ferry_write_runs(ferry_file *f, const ferry_wrun *runs, int64_t n, int64_t *calls, int64_t *bytes);

#endif
