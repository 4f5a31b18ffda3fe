/*
 * Local aggregation: every node is its own aggregator. The ranks of a node
 * put their data in node-shared memory (one segment each, in an
 * MPI_Win_allocate_shared window), and ferry_local_aggregators ranks of the
 * node write the node's pieces, sorted and merged, straight from that memory.
 * No data crosses between nodes; contiguous runs from neighbouring ranks
 * become single large writes. Reads run the same way backwards.
 */
#ifndef FERRY_STRATEGY_LOCAL_H
#define FERRY_STRATEGY_LOCAL_H

#include "core/nodes.h"
#include "strategy/pattern.h"

typedef struct ferry_local_win {
    MPI_Win win;
    char **base;      /* every node rank's segment */
    int64_t seg;      /* bytes per segment */
    int agreed;       /* every rank of the file has its node's window of this seg */
} ferry_local_win;

void ferry_local_win_free(ferry_local_win *w);

/* Collective over f->comm, once per segment size: every node makes its
 * shared window; 1 if all could. Where one could not (an MPI library told
 * to use no shared-memory one-sided component, or no room for w: NULL), no
 * rank uses local aggregation and the caller takes another strategy. */
int ferry_local_usable(ferry_file *f, const ferry_nodes *nodes, ferry_local_win *w);

/* Collective over f->comm (node-level traffic only, then no global step). */
int ferry_local(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_nodes *nodes,
                ferry_local_win *w, int64_t *done);

/* Its descriptor's code (catalog.c): when a call can take it, running it,
 * and the window it keeps on a file. */
extern const struct ferry_strategy_code ferry_local_code;

#endif
