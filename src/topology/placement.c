/* Aggregator placement for two-phase I/O: ROMIO's default, ROMIO's BG/Q
 * bridge ring, and TAPIOCA's cost model. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *ferry_topo_agg_name(ferry_topo_agg_method method) {
  switch (method) {
  case FERRY_TOPO_AGG_FIRST_RANK: return "first-rank";
  case FERRY_TOPO_AGG_BRIDGE_RING: return "bridge-ring";
  case FERRY_TOPO_AGG_TOPOLOGY: return "topology";
  }
  return "?";
}

int ferry_topo_agg_parse(const char *name, ferry_topo_agg_method *method) {
  if (!name || !method) return -EINVAL;
  if (strcmp(name, "first-rank") == 0 || strcmp(name, "default") == 0 || strcmp(name, "romio") == 0)
    *method = FERRY_TOPO_AGG_FIRST_RANK;
  else if (strcmp(name, "bridge-ring") == 0 || strcmp(name, "bridgering") == 0)
    *method = FERRY_TOPO_AGG_BRIDGE_RING;
  else if (strcmp(name, "topology") == 0 || strcmp(name, "tapioca") == 0)
    *method = FERRY_TOPO_AGG_TOPOLOGY;
  else return -EINVAL;
  return 0;
}

static int gw_of(const ferry_topo_machine *m, const ferry_topo_agg_params *p, int node) {
  if (p && p->node_gw) return p->node_gw[node];
  return m->node_gw[node] >= 0 ? m->node_gw[node] : m->default_gw[node];
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* ROMIO without hints: one aggregator per node in rank order, spread evenly
 * when there are fewer domains than nodes; domain j goes to the j-th. */
static void first_rank(int n, const int *nodes, int nd, int *agg) {
  for (int j = 0; j < nd; j++) agg[j] = nodes[(long long)j * n / nd];
}

/* GPFSMPIO_BRIDGERINGAGG=k: in each pset (nodes sharing a gateway) take
 * aggregators one per node by increasing distance from the bridge, starting
 * k hops out, ties by node id; psets share the domains evenly (the first
 * psets take the remainder); domains go to aggregators in rank order. */
static int bridge_ring(const ferry_topo_machine *m, const ferry_topo_agg_params *p, int n, const int *nodes,
                       int nd, int *agg) {
  int G = m->ngw, k = (p && p->ring_hops > 0) ? p->ring_hops : 1, rc = -ENOMEM;
  size_t *off = calloc((size_t)G + 1, sizeof *off);
  long long *key = malloc(ferry_topo__sz(n) * sizeof *key);
  long long *pick = malloc(ferry_topo__sz(nd) * sizeof *pick);
  if (!off || !key || !pick) goto out;
  for (int i = 0; i < n; i++) {
    int g = gw_of(m, p, nodes[i]);
    if (g < 0 || g >= G) {
      rc = -EINVAL;
      goto out;
    }
    off[g + 1]++;
  }
  for (int g = 0; g < G; g++) off[g + 1] += off[g];
  /* key: pset, then (in ring? 0 : 1), distance, node */
  {
    size_t *fill = malloc((size_t)G * sizeof *fill);
    if (!fill) goto out;
    memcpy(fill, off, (size_t)G * sizeof *fill);
    for (int i = 0; i < n; i++) {
      int v = nodes[i], g = gw_of(m, p, v);
      int d = m->ops->distance(m, v, m->gw_node[g]);
      int out_of_ring = (d < k || v == m->gw_node[g]) ? 1 : 0;
      key[fill[g]++] = ((long long)out_of_ring << 62) | ((long long)d << 40) | v;
    }
    free(fill);
  }
  int nonempty = 0;
  for (int g = 0; g < G; g++) {
    qsort(key + off[g], off[g + 1] - off[g], sizeof *key, cmp_ll);
    nonempty += off[g + 1] > off[g];
  }
  int base = nd / nonempty, extra = nd % nonempty, j = 0, seen = 0;
  for (int g = 0; g < G; g++) {
    size_t len = off[g + 1] - off[g];
    if (!len) continue;
    int q = base + (seen++ < extra);
    /* wrap round the pset when it has fewer nodes than aggregators */
    for (int t = 0; t < q; t++) pick[j++] = key[off[g] + (size_t)t % len] & ((1LL << 40) - 1);
  }
  qsort(pick, (size_t)nd, sizeof *pick, cmp_ll);
  for (int t = 0; t < nd; t++) agg[t] = (int)pick[t];
  rc = 0;
out:
  free(off);
  free(key);
  free(pick);
  return rc;
}

/* TAPIOCA (Tessier et al.; HDF5's H5FDmpio_topology.h): each candidate A
 * costs sum over other senders r of (d(r,A) L + w_r / B) plus d(A, its
 * gateway) L; the cheapest wins (MPI_MINLOC: ties to the lowest id) and is
 * then penalised so later domains spread out. At node granularity the
 * penalty is lexicographic: fewer aggregators already on the node first.
 * Candidates are the domain's senders, as when TAPIOCA elects inside the
 * partition that writes the buffer. Cost O(sum of senders^2). */
static int topology(const ferry_topo_machine *m, const ferry_topo_agg_params *p, int n, const int *nodes,
                    int nd, const size_t *dom_off, const ferry_topo_sender *snd, int *agg) {
  double L = (p && p->latency > 0) ? p->latency : m->hop_latency;
  double B = (p && p->bandwidth > 0) ? p->bandwidth : m->link_bw[0];
  int rc = -ENOMEM;
  int *used = calloc((size_t)m->nnodes, sizeof *used);
  int *slot = malloc((size_t)m->nnodes * sizeof *slot);
  size_t maxs = 0;
  for (int j = 0; j < nd; j++)
    if (dom_off[j + 1] - dom_off[j] > maxs) maxs = dom_off[j + 1] - dom_off[j];
  int *cn = malloc((maxs ? maxs : 1) * sizeof *cn);
  double *cw = malloc((maxs ? maxs : 1) * sizeof *cw);
  if (!used || !slot || !cn || !cw) goto out;
  for (int v = 0; v < m->nnodes; v++) slot[v] = -1;
  for (int j = 0; j < nd; j++) {
    int c = 0;
    for (size_t s = dom_off[j]; s < dom_off[j + 1]; s++) {
      int v = snd[s].node;
      if (v < 0 || v >= m->nnodes) {
        rc = -EINVAL;
        goto out;
      }
      if (slot[v] < 0) {
        slot[v] = c;
        cn[c] = v;
        cw[c++] = 0;
      }
      cw[slot[v]] += snd[s].bytes;
    }
    for (int a = 0; a < c; a++) slot[cn[a]] = -1;
    const int *cand = cn;
    int ncand = c;
    if (c == 0) cand = nodes, ncand = n;
    int best = -1;
    double bcost = 0;
    for (int a = 0; a < ncand; a++) {
      int A = cand[a];
      double cost = m->ops->distance(m, A, m->gw_node[gw_of(m, p, A)]) * L;
      for (int r = 0; r < c; r++)
        if (cn[r] != A && cw[r] > 0) cost += m->ops->distance(m, cn[r], A) * L + cw[r] / B;
      if (best < 0 || used[A] < used[best] || (used[A] == used[best] && (cost < bcost || (cost == bcost && A < best))))
        best = A, bcost = cost;
    }
    agg[j] = best;
    used[best]++;
  }
  rc = 0;
out:
  free(used);
  free(slot);
  free(cn);
  free(cw);
  return rc;
}

int ferry_topo_place_aggregators(const ferry_topo_machine *m, ferry_topo_agg_method method, int ndomains,
                                 const size_t *dom_off, const ferry_topo_sender *senders,
                                 const ferry_topo_agg_params *p, int *agg_node) {
  if (!m || ndomains < 0 || !agg_node) return -EINVAL;
  if (ndomains == 0) return 0;
  const int *nodes;
  int n, rc;
  if ((rc = ferry_topo__participants(m, p ? p->nnodes : 0, p ? p->nodes : NULL, &nodes, &n))) return rc;
  if (n == 0) return -EINVAL;
  switch (method) {
  case FERRY_TOPO_AGG_FIRST_RANK:
    first_rank(n, nodes, ndomains, agg_node);
    return 0;
  case FERRY_TOPO_AGG_BRIDGE_RING:
    return bridge_ring(m, p, n, nodes, ndomains, agg_node);
  case FERRY_TOPO_AGG_TOPOLOGY:
    if (!dom_off || (!senders && dom_off[ndomains] > 0)) return -EINVAL;
    return topology(m, p, n, nodes, ndomains, dom_off, senders, agg_node);
  }
  return -EINVAL;
}
