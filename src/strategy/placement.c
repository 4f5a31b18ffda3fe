/*
 * Topology-aware aggregator placement: the machine model decides which node
 * aggregates each file domain, from how many bytes every node sends to it.
 * All ranks compute the same answer from the same allreduced byte matrix.
 */
#include "core/machine.h"
#include "strategy/aggregators.h"

#include <stdlib.h>

int ferry_aggs_place_topology(const ferry_file *f, const ferry_nodes *nodes, const ferry_domains *d,
                              const double *my_bytes, ferry_aggs *aggs)
{
    const ferry_topo_machine *m = ferry_machine_agreed(&f->sw);
    if (!m)
        return MPI_SUCCESS;
    int nn = nodes->nnodes, nd = d->n, P = f->size;
    double *mat = calloc((size_t)nd * (size_t)nn, sizeof *mat);
    double *sum = malloc((size_t)nd * (size_t)nn * sizeof *sum);
    int *mnode = malloc((size_t)nn * sizeof *mnode);      /* comm node -> model node */
    int *leader = malloc((size_t)nn * sizeof *leader);    /* comm node -> its first rank */
    int *used = calloc((size_t)nn, sizeof *used);
    int *rank_node = malloc((size_t)P * sizeof *rank_node);
    ferry_topo_sender *snd = malloc((size_t)nd * (size_t)nn * sizeof *snd);
    size_t *dom_off = malloc(((size_t)nd + 1) * sizeof *dom_off);
    int *agg_node = malloc((size_t)nd * sizeof *agg_node);
    int ok = mat && sum && mnode && leader && used && rank_node && snd && dom_off && agg_node;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, f->comm);
    int rc = MPI_SUCCESS;
    if (!all_ok) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int j = 0; j < nd; j++)
        mat[(size_t)j * nn + nodes->my_node] = my_bytes ? my_bytes[j] : 0;
    MPI_Allreduce(mat, sum, nd * nn, MPI_DOUBLE, MPI_SUM, f->comm);
    if (ferry_machine_comm_nodes(f->comm, rank_node) != 0)
        goto out; /* a rank has no model node: keep the spread placement */
    for (int k = 0; k < nn; k++)
        leader[k] = -1;
    for (int r = P - 1; r >= 0; r--)
        leader[nodes->node_of[r]] = r;
    for (int k = 0; k < nn; k++)
        mnode[k] = rank_node[leader[k]];
    size_t ns = 0;
    for (int j = 0; j < nd; j++) {
        dom_off[j] = ns;
        for (int k = 0; k < nn; k++)
            if (sum[(size_t)j * nn + k] > 0 && mnode[k] >= 0)
                snd[ns++] = (ferry_topo_sender){mnode[k], sum[(size_t)j * nn + k]};
    }
    dom_off[nd] = ns;
    ferry_topo_agg_params p = {.nnodes = nn, .nodes = mnode};
    for (int k = 0; k < nn; k++)
        if (mnode[k] < 0)
            goto out; /* the model is too small for this run: keep the spread placement */
    if (ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_TOPOLOGY, nd, dom_off, snd, &p, agg_node) != 0)
        goto out;
    /* model node -> a rank on it; domains that land on one node take its
     * ranks in turn */
    for (int j = 0; j < nd; j++) {
        int k = 0;
        while (k < nn && mnode[k] != agg_node[j])
            k++;
        if (k == nn)
            continue;
        int r = leader[k], skip = used[k]++;
        for (int q = leader[k]; q < P && skip > 0; q++)
            if (nodes->node_of[q] == k && q != leader[k] && --skip == 0)
                r = q;
        aggs->ranks[j] = r;
    }
    aggs->me = -1;
    for (int j = 0; j < nd; j++)
        if (aggs->ranks[j] == f->rank)
            aggs->me = j;
out:
    free(mat);
    free(sum);
    free(mnode);
    free(leader);
    free(used);
    free(rank_node);
    free(snd);
    free(dom_off);
    free(agg_node);
    return rc;
}
