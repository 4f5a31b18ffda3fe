/*
 * The forwarding plan, computed identically on every rank from allgathered
 * facts: the machine model places each node of the communicator on a model
 * node (FERRY_TOPOLOGY), the topology layer's route- and load-aware
 * assignment gives each model node a gateway, and each gateway's forwarder is
 * the first rank of the participating node nearest to it (the gateway node
 * itself when it holds ranks, as BG/Q bridges do in a full partition; ties to
 * the lowest node index). Without a model, the nodes form a flat machine
 * with its default assignment (one gateway per 64 nodes, the last node of
 * each block).
 */
#include "core/machine.h"
#include "core/nodes.h"
#include "strategy/forward_internal.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int index_of(const int *sorted, int n, int v)
{
    const int *p = bsearch(&v, sorted, (size_t)n, sizeof *sorted, cmp_int);
    return p ? (int)(p - sorted) : -1;
}

/* Per comm node k: its model node mn[k]; returns the model to use (own is
 * set when it is built here and must be freed). */
static const ferry_topo_machine *model_of(ferry_fwd *w, const ferry_nodes *nodes, const int *leader, int *mn,
                                          ferry_topo_machine **own, int *routed)
{
    int P = w->size, nn = nodes->nnodes;
    *own = NULL;
    *routed = 0;
    int *rank_node = malloc((size_t)P * sizeof *rank_node);
    const ferry_topo_machine *m = w->use_machine ? ferry_machine() : NULL;
    if (m && rank_node && ferry_machine_comm_nodes(w->comm, rank_node) == 0) {
        for (int k = 0; k < nn; k++)
            mn[k] = rank_node[leader[k]];
        *routed = 1;
    } else {
        if (m && !rank_node) /* the others are in ferry_machine_comm_nodes: join them */
            ferry_machine_comm_nodes(w->comm, NULL);
        char spec[32], err[160];
        snprintf(spec, sizeof spec, "flat:%d", nn);
        m = ferry_topo_create(spec, own, err, sizeof err) == 0 ? *own : NULL;
        for (int k = 0; k < nn; k++)
            mn[k] = k;
    }
    free(rank_node);
    return m;
}

int ferry_fwd_plan(ferry_fwd *w, int collectors, ferry_fwd_assign assign)
{
    ferry_nodes nodes = {0};
    int rc = ferry_nodes_build(w->comm, &nodes);
    int P = w->size, nn = rc == MPI_SUCCESS ? nodes.nnodes : 1;
    int *leader = malloc((size_t)nn * sizeof *leader), *mn = malloc((size_t)nn * sizeof *mn);
    int *pn = malloc((size_t)nn * sizeof *pn), *gw = malloc((size_t)nn * sizeof *gw);
    w->fwd_of = malloc((size_t)P * sizeof *w->fwd_of);
    int ok = rc == MPI_SUCCESS && leader && mn && pn && gw && w->fwd_of, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->comm);
    ferry_topo_machine *own = NULL;
    int *best = NULL;
    double *bestd = NULL;
    if (!all) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < nn; k++)
        leader[k] = -1;
    for (int r = P - 1; r >= 0; r--)
        leader[nodes.node_of[r]] = r;

    int routed = 0;
    const ferry_topo_machine *m = model_of(w, &nodes, leader, mn, &own, &routed);
    rc = MPI_ERR_OTHER; /* the same on every rank from here: all inputs are shared */
    if (!m)
        goto out;
    /* distinct participating model nodes (two virtual nodes may share one) */
    for (int k = 0; k < nn; k++)
        pn[k] = mn[k];
    qsort(pn, (size_t)nn, sizeof *pn, cmp_int);
    int np = 0;
    for (int k = 0; k < nn; k++)
        if (np == 0 || pn[np - 1] != pn[k])
            pn[np++] = pn[k];
    ferry_fwd_assign a = assign;
    ferry_topo_assign_algo algo = !routed || a == FERRY_FWD_DEFAULT ? FERRY_TOPO_ASSIGN_DEFAULT
                                : a == FERRY_FWD_REFINED            ? FERRY_TOPO_ASSIGN_REFINED
                                                                    : FERRY_TOPO_ASSIGN_ROUTE_AWARE;
    ferry_topo_assign_params p = {.nnodes = np, .nodes = pn, .slack = -1};
    if (ferry_topo_assign(m, algo, &p, gw, NULL) != 0)
        goto out;
    int G = ferry_topo_gateways(m);
    best = malloc((size_t)G * sizeof *best);
    bestd = malloc((size_t)G * sizeof *bestd);
    if (!best || !bestd)
        goto out;
    for (int g = 0; g < G; g++)
        best[g] = -1;
    for (int k = 0; k < nn; k++) {
        int g = gw[index_of(pn, np, mn[k])];
        double d = ferry_topo_distance(m, mn[k], ferry_topo_gateway_proxy(m, g));
        if (best[g] < 0 || d < bestd[g])
            best[g] = k, bestd[g] = d;
    }
    w->nforwarders = 0;
    for (int g = 0; g < G; g++)
        w->nforwarders += best[g] >= 0;
    for (int r = 0; r < P; r++)
        w->fwd_of[r] = leader[best[gw[index_of(pn, np, mn[nodes.node_of[r]])]]];

    /* collectors: node ranks 0..kc-1 of each node; the others send to node rank nr mod kc */
    int my = nodes.node_of[w->me], nr = 0, ns = 0;
    for (int r = 0; r < P; r++)
        if (nodes.node_of[r] == my)
            nr += r < w->me, ns++;
    int kc = collectors < ns ? collectors : ns;
    w->ncollect = kc;
    w->first_hop = w->fwd_of[w->me];
    if (kc > 0 && nr >= kc)
        for (int r = 0, i = 0; r < P; r++)
            if (nodes.node_of[r] == my && i++ == nr % kc)
                w->first_hop = r;
    w->serves = kc > 0 && nr < kc && ns > kc;
    for (int r = 0; r < P; r++)
        w->serves |= w->fwd_of[r] == w->me;
    snprintf(w->why, sizeof w->why, "%d forwarder(s) for %d node(s), %s gateways%s, %d collector(s) per node",
             w->nforwarders, nn, ferry_topo_assign_name(algo), routed ? " on FERRY_TOPOLOGY" : "", kc);
    rc = MPI_SUCCESS;
out:
    if (rc != MPI_SUCCESS) {
        free(w->fwd_of);
        w->fwd_of = NULL;
    }
    free(best);
    free(bestd);
    ferry_topo_free(own);
    free(leader);
    free(mn);
    free(pn);
    free(gw);
    ferry_nodes_free(&nodes);
    return rc;
}
