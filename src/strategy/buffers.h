/*
 * Large working buffers kept for the process: a sieve window, a two-phase
 * aggregator's round buffers. A fresh multi-MiB buffer per call is a fresh
 * mapping, and faulting its pages in costs as much as the copy through it:
 * glibc maps a large malloc, and the free that follows returns the pages
 * once they pass its trim threshold (twice the largest block freed so far),
 * so two-phase's pair of round buffers faulted on every call. Open MPI
 * BT-IO on /dev/shm, 8 ranks: two-phase writes 32-58 ms after a run of
 * independent experiments, 21-28 ms with glibc told to keep the pages
 * (bench/results/learn.md, "Two-phase's buffers: kept, page-aligned, sized to the
 * domain").
 *
 * They start on a page: malloc puts a large block 16 bytes into a page, and
 * the kernel's copy into such a buffer is the slow one. On this host (AMD
 * EPYC) a pread of 4.3 MB from tmpfs or ext4's page cache took 2.0-2.4 ms
 * into a malloc'd buffer and 0.4-0.7 ms into a page-aligned one; a pwrite
 * 10-20 % longer (bench/page_copy.c).
 */
#ifndef FERRY_STRATEGY_BUFFERS_H
#define FERRY_STRATEGY_BUFFERS_H

#include <stdint.h>

/* A buffer of at least cap bytes, NULL when memory is short. One of the
 * kept ones when a fitting one is free (threads that want one at once get
 * their own); larger than FERRY_BUFFER_KEEP_MAX is never kept. A kept
 * buffer made here has its pages touched here, and *fresh (may be NULL) gains the
 * seconds that took: work done once per process, which a call's time
 * should not carry (a trial of two-phase that was the process's first
 * two-phase call paid 2 x 16 MiB of page faults in a 1 ms BT-IO call, and
 * was kept "2.63x slower than independent" where it was faster). */
char *ferry_buffer_get(int64_t cap, double *fresh);
/* Gives back what ferry_buffer_get returned (NULL is ignored). */
void ferry_buffer_put(char *b);

#define FERRY_BUFFER_KEEP_MAX ((int64_t)64 << 20)

#endif
