/*
 * Which world ranks serve, and whom each serves. Pure functions of the node
 * map, so every process computes the same answer without talking, and a
 * unit test can check them without MPI.
 *
 * Whole nodes: when the last nodes' ranks add up to exactly M (and a node
 * is left for the program), those nodes become data nodes, the
 * decoupled-execution layout (compute nodes and data nodes, traffic between
 * them on the network): every node of k ranks with k dividing M, or a
 * hostfile that lists the data nodes last, as seed 001's launcher takes
 * them (`cluster.sh hosts all`: compute nodes, then I/O nodes). Otherwise
 * the data processes are spread round-robin over the nodes, each node
 * giving up its highest ranks, so most compute processes have a data
 * process beside them and their requests never leave the node.
 */
#include "decouple/decouple.h"

#include <stdlib.h>

int dc_place(int wsize, const int *node_of, int ndata, int *is_data)
{
    int nnodes = 0;
    for (int r = 0; r < wsize; r++) {
        is_data[r] = 0;
        if (node_of[r] + 1 > nnodes)
            nnodes = node_of[r] + 1;
    }
    if (ndata <= 0)
        return 0;
    int *count = calloc((size_t)nnodes, sizeof *count);
    int *quota = calloc((size_t)nnodes, sizeof *quota);
    if (!count || !quota) {
        free(count);
        free(quota);
        for (int r = wsize - ndata; r < wsize; r++)
            is_data[r] = 1;
        return 0;
    }
    for (int r = 0; r < wsize; r++)
        count[node_of[r]]++;
    int tail = 0, first = nnodes;
    while (first > 1 && tail < ndata)
        tail += count[--first];
    int whole = tail == ndata;
    if (whole) {
        for (int n = first; n < nnodes; n++)
            quota[n] = count[n];
    } else {
        for (int given = 0, n = 0; given < ndata; n = (n + 1) % nnodes)
            if (quota[n] < count[n]) {
                quota[n]++;
                given++;
            }
    }
    /* each node gives its highest ranks */
    for (int r = wsize - 1; r >= 0; r--)
        if (quota[node_of[r]] > 0) {
            quota[node_of[r]]--;
            is_data[r] = 1;
        }
    free(count);
    free(quota);
    return whole;
}

void dc_homes(int wsize, const int *node_of, const int *is_data, int *home)
{
    int ndata = 0, ncomp = 0, nnodes = 0;
    for (int r = 0; r < wsize; r++) {
        ndata += is_data[r];
        ncomp += !is_data[r];
        if (node_of[r] + 1 > nnodes)
            nnodes = node_of[r] + 1;
    }
    int *dstart = calloc((size_t)nnodes + 1, sizeof *dstart); /* node -> its slice of dlist */
    int *dlist = malloc((size_t)(ndata ? ndata : 1) * sizeof *dlist); /* data indices, by node */
    int *ccount = calloc((size_t)nnodes, sizeof *ccount);
    int *seen = calloc((size_t)nnodes, sizeof *seen);
    int *fill = calloc((size_t)nnodes, sizeof *fill);
    if (!dstart || !dlist || !ccount || !seen || !fill || ndata == 0) {
        for (int r = 0, c = 0; r < wsize; r++)
            home[r] = is_data[r] || ndata == 0 ? -1 : (int)((int64_t)c++ * ndata / (ncomp ? ncomp : 1));
        goto out;
    }
    for (int r = 0; r < wsize; r++) {
        if (is_data[r])
            dstart[node_of[r] + 1]++;
        else
            ccount[node_of[r]]++;
    }
    for (int n = 0; n < nnodes; n++)
        dstart[n + 1] += dstart[n];
    for (int r = 0, d = 0; r < wsize; r++)
        if (is_data[r]) {
            int n = node_of[r];
            dlist[dstart[n] + fill[n]++] = d++;
        }
    for (int r = 0, c = 0; r < wsize; r++) {
        int n = node_of[r], nd = dstart[n + 1] - dstart[n];
        if (is_data[r]) {
            home[r] = -1;
            continue;
        }
        if (nd > 0) /* a block of this node's compute ranks per local data process */
            home[r] = dlist[dstart[n] + (int)((int64_t)seen[n]++ * nd / ccount[n])];
        else        /* no data process here: blocks of neighbours over all of them */
            home[r] = (int)((int64_t)c * ndata / ncomp);
        c++;
    }
out:
    free(dstart);
    free(dlist);
    free(ccount);
    free(seen);
    free(fill);
}
