/*
 * One collective call as a collective strategy runs it: what the engine
 * (collective.c) agreed and chose, and what the strategy tells it back so
 * that learning compares what the call's pattern costs from now on.
 */
#ifndef FERRY_STRATEGY_COLL_CALL_H
#define FERRY_STRATEGY_COLL_CALL_H

#include "core/nodes.h"
#include "strategy/pattern.h"

typedef struct ferry_coll_call {
    ferry_file *f;
    const ferry_xfer *x;
    const ferry_runs *runs;     /* this rank's file runs */
    const ferry_pattern *pat;   /* agreed over the ranks */
    const ferry_nodes *nodes;   /* NULL only where the node map failed: usable sees it, run never */
    int code;                   /* the call's status so far (usable is asked even after a failure,
                                 * so every rank records the same choice) */
    int cb_nodes;               /* aggregators the learned option gives (0: the file's own) */
    void **state;               /* the strategy's own state on the file, freed by its release */
    /* told back */
    double once;                /* seconds on what is made once per open (a node window) */
    double listed;              /* seconds a repeating pattern's later calls skip (two-phase's lists) */
    double fresh;               /* seconds making the process's kept buffers (buffers.h) */
} ferry_coll_call;

#endif
