/*
 * The forwarding plan, computed identically on every rank from allgathered
 * facts: the machine model places each node of the communicator on a model
 * node (FERRY_TOPOLOGY), the topology layer gives each model node a gateway
 * (by default its advice, ferry_topo_advise: a reassignment only where the
 * model predicts a gain over the static default), and each gateway's
 * forwarder is the first rank of the participating node nearest to it (the
 * gateway node itself when it holds ranks, as BG/Q bridges do in a full
 * partition; ties to the lowest node index). Without a model, the nodes
 * form a flat machine with its default assignment (one gateway per 64
 * nodes, the last node of each block).
 */
#include "core/machine.h"
#include "core/nodes.h"
#include "strategy/forward_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The gateway of each participating model node pn[0..np-1]. With the
 * advice (auto), every rank is taken to write alike (nothing else is known
 * at open): 1 MiB in one request each, a size at which link time, not hop
 * latency, decides; forwarding writes each piece as its own request
 * wherever the node's data goes. `why` says where the choice came from. */
static int choose_gateways(const ferry_topo_machine *m, int routed, ferry_fwd_assign a, int P,
                           const ferry_nodes *nodes, const int *mn, const int *pn, int np, int *gw,
                           ferry_topo_assign_algo *algo, char *why, size_t len)
{
    ferry_topo_assign_params p = {.nnodes = np, .nodes = pn, .slack = -1};
    if (!routed || a == FERRY_FWD_DEFAULT) {
        *algo = FERRY_TOPO_ASSIGN_DEFAULT;
        snprintf(why, len, "%s", routed ? "asked for" : "no model");
        return ferry_topo_assign(m, *algo, &p, gw, NULL);
    }
    if (a != FERRY_FWD_AUTO) {
        *algo = a == FERRY_FWD_REFINED      ? FERRY_TOPO_ASSIGN_REFINED
              : a == FERRY_FWD_LOAD_AWARE ? FERRY_TOPO_ASSIGN_LOAD_AWARE
                                          : FERRY_TOPO_ASSIGN_ROUTE_AWARE;
        snprintf(why, len, "asked for");
        return ferry_topo_assign(m, *algo, &p, gw, NULL);
    }
    double *w = calloc((size_t)np, sizeof *w), *rq = calloc((size_t)np, sizeof *rq);
    if (!w || !rq) {
        free(w);
        free(rq);
        return -1;
    }
    for (int r = 0; r < P; r++) {
        const int *at = bsearch(&mn[nodes->node_of[r]], pn, (size_t)np, sizeof *pn, cmp_int);
        w[at - pn] += 1048576.0;
        rq[at - pn] += 1;
    }
    p.node_bytes = w;
    p.node_msgs = rq;
    ferry_topo_advice adv;
    int rc = ferry_topo_advise(m, &p, 0, gw, &adv);
    free(w);
    free(rq);
    if (rc != 0)
        return rc;
    *algo = adv.cand[adv.best].algo;
    if (adv.best)
        snprintf(why, len, "advised: %.0f %% faster", 100 * adv.gain);
    else
        snprintf(why, len, "advised: no gain");
    return 0;
}

int ferry_fwd_plan(ferry_fwd *w, int collectors, ferry_fwd_assign assign)
{
    ferry_nodes nodes = {0};
    int rc = ferry_nodes_build(w->comm, NULL, &nodes);
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
    char why[64];
    ferry_topo_assign_algo algo;
    if (choose_gateways(m, routed, assign, P, &nodes, mn, pn, np, gw, &algo, why, sizeof why) != 0)
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
    int len = snprintf(w->why, sizeof w->why, "%s gateways (%s), %d forwarder%s for %d node%s, %d collector%s per node",
                       ferry_topo_assign_name(algo), why, w->nforwarders, w->nforwarders == 1 ? "" : "s", nn,
                       nn == 1 ? "" : "s", kc, kc == 1 ? "" : "s");
    if (len >= (int)sizeof w->why) /* cut, and seen to be */
        memcpy(w->why + sizeof w->why - 4, "...", 4);
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
