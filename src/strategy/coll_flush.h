/*
 * What a collective write flushes where client caches are not coherent
 * between processes (ferry_fs_info.coherent_cache is 0): the bytes a rank
 * wrote for others, after the call, and what a rank wrote before a trial,
 * off the trial's clock. Both are collective over f->comm.
 */
#ifndef FERRY_STRATEGY_COLL_FLUSH_H
#define FERRY_STRATEGY_COLL_FLUSH_H

#include "strategy/pattern.h"

/* After the outcome of a collective write: `wrote` is whether this rank
 * wrote (for others) in it, `mine` its own runs, `start` the call's clock;
 * *max_ns becomes the call's time on its slowest rank, the flush included. */
int ferry_coll_flush_for_others(ferry_file *f, int wrote, const ferry_runs *mine, double start, int64_t *max_ns);
/* Before a trial of an aggregated write: `code` is the call's status so
 * far, returned with a flush failure on any rank; *start restarts. */
int ferry_coll_flush_before_trial(ferry_file *f, int code, double *start);

#endif
