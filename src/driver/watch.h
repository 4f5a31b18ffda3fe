/*
 * How long this process's system calls on files have been waiting. The
 * driver marks its thread's slot around every call that moves data or asks
 * the file system for something (not around lock waits, which wait for
 * other ranks by design), so that a watchdog above (core/watchdog.c) can
 * tell a call the file system never answers from a slow one, and end the
 * job instead of letting every rank hang behind it.
 *
 * A descriptor is watched when its `watch_seconds` is above 0; the slots
 * belong to threads, so threads calling MPI-IO at once are each watched.
 */
#ifndef FERRY_DRIVER_WATCH_H
#define FERRY_DRIVER_WATCH_H

#include "driver/driver.h"

/* The calling thread starts a system call `what` ("write", "fsync", ...)
 * on f, and is done with it. Both leave errno as it is, so a call's errno
 * can be read after its end. */
void ferry_watch_begin(const ferry_fd *f, const char *what);
void ferry_watch_end(const ferry_fd *f);

typedef struct ferry_watch_overdue {
    char name[256];     /* the file, as the program named it */
    const char *what;   /* the system call */
    double waited;      /* seconds since it started */
    int seconds;        /* its descriptor's bound */
} ferry_watch_overdue;

/* 1 and the call that has waited past its descriptor's bound the longest,
 * or 0 when every watched call is within its bound. */
int ferry_watch_find_overdue(ferry_watch_overdue *out);

#endif
