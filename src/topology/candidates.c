/* Per-node lists of gateways within a hop limit, nearest first: what both
 * the route-aware greedy and the local search choose from. Building them is
 * the O(nodes x gateways) part of assignment. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ferry_topo__participants(const ferry_topo_machine *m, int n, const int *nodes, const int **out,
                             int *nout) {
  if (n <= 0) {
    *out = m->compute;
    *nout = m->ncompute;
    return 0;
  }
  if (!nodes) return -EINVAL;
  for (int i = 0; i < n; i++)
    if (nodes[i] < 0 || nodes[i] >= m->nnodes) return -EINVAL;
  *out = nodes;
  *nout = n;
  return 0;
}

int ferry_topo__limits(const ferry_topo_machine *m, int n, const int *nodes, const int *def,
                       int slack, int *limit) {
  for (int i = 0; i < n; i++)
    limit[i] = m->node_gw[nodes[i]] >= 0 ? -1 : m->ops->distance(m, nodes[i], m->gw_node[def[i]]) + slack;
  return 0;
}

void ferry_topo__cands_free(ferry_topo_cands *c) {
  free(c->off);
  free(c->gw);
  free(c->dist);
  memset(c, 0, sizeof *c);
}

int ferry_topo__cands_build(const ferry_topo_machine *m, int n, const int *nodes, const int *limit,
                            ferry_topo_cands *c) {
  memset(c, 0, sizeof *c);
  int G = m->ngw, maxlim = 0;
  for (int i = 0; i < n; i++)
    if (limit[i] > maxlim) maxlim = limit[i];
  uint16_t *d = malloc((size_t)G * sizeof *d);
  int *near = malloc((size_t)G * sizeof *near);
  size_t *cnt = calloc((size_t)maxlim + 2, sizeof *cnt);
  c->off = malloc(((size_t)n + 1) * sizeof *c->off);
  size_t cap = (size_t)n * 4 + 16, used = 0;
  c->gw = malloc(cap * sizeof *c->gw);
  c->dist = malloc(cap * sizeof *c->dist);
  if (!d || !near || !cnt || !c->off || !c->gw || !c->dist) goto nomem;
  c->n = n;
  for (int i = 0; i < n; i++) {
    c->off[i] = used;
    int lim = limit[i];
    if (lim < 0) continue;
    ferry_topo__gw_distances(m, nodes[i], d);
    size_t k = 0;
    for (int g = 0; g < G; g++) { /* branch-free: most gateways are far */
      near[k] = g;
      k += d[g] <= lim;
    }
    if (used + k > cap) {
      while (used + k > cap) cap *= 2;
      int *ng = realloc(c->gw, cap * sizeof *ng);
      if (!ng) goto nomem;
      c->gw = ng;
      uint16_t *nd = realloc(c->dist, cap * sizeof *nd);
      if (!nd) goto nomem;
      c->dist = nd;
    }
    /* counting sort by distance keeps gateway order within a distance */
    memset(cnt, 0, ((size_t)lim + 2) * sizeof *cnt);
    for (size_t j = 0; j < k; j++) cnt[d[near[j]] + 1]++;
    for (int x = 1; x <= lim + 1; x++) cnt[x] += cnt[x - 1];
    for (size_t j = 0; j < k; j++) {
      int g = near[j];
      size_t pos = used + cnt[d[g]]++;
      c->gw[pos] = g;
      c->dist[pos] = d[g];
    }
    used += k;
  }
  c->off[n] = used;
  free(d);
  free(near);
  free(cnt);
  return 0;
nomem:
  free(d);
  free(near);
  free(cnt);
  ferry_topo__cands_free(c);
  return -ENOMEM;
}
