/* The seed's walk as its paper and code describe it (Malakar & Vishwanath,
 * ParCo 2017; pmalakar/parco16 iotree.cxx), for any model:
 *  - groups: 512 participating nodes while the job has at most 1024, else
 *    half the job; each group balances its own bridges with its own average;
 *  - one tree per bridge: the union of the static routes into it, built in
 *    breadth-first order and capped at BAG nodes; a route that crosses
 *    another bridge (or leaves the group, or the cap) is not in the tree;
 *  - level-synchronous round robin: level 1 of every tree, then level 2...;
 *    a node met in a tree is offered every bridge whose tree holds it, and
 *    one that finds none is met again in the next tree that holds it, at
 *    the same or a deeper level (the retry);
 *  - rules: skip a bridge whose count of new nodes is above the group's
 *    running average (balance), or that is at the memory cap; take the
 *    least deep bridge no deeper than the node's default distance, ties to
 *    the lower index. Unmatched nodes keep their default.
 * Route-aware-flat (assign_route_aware.c) is ferry's earlier variant: one
 * global average, every candidate route, no retry deeper than the default. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SEED_BAG 256 /* tree cap on Mira and Cetus (BAG in iotree.cxx) */

typedef struct {
  int node, depth;
} tnode;

typedef struct {
  int gw, depth;
} membership;

/* Builds bridge g's tree inside the group: nodes in (distance, id) order,
 * each accepted when every node its route passes is already in the tree. */
static int build_tree(const ferry_topo_machine *m, int g, const int *gnodes, int gn, const uint16_t *gdist,
                      int col, int ncol, unsigned char *in, tnode *out, int *route) {
  int maxd = 0;
  for (int k = 0; k < gn; k++)
    if (gdist[(size_t)k * ncol + col] > maxd) maxd = gdist[(size_t)k * ncol + col];
  int b = m->gw_node[g], cnt = 0;
  in[b] = 1;
  for (int d = 1; d <= maxd && cnt < SEED_BAG; d++)
    for (int k = 0; k < gn && cnt < SEED_BAG; k++) {
      int v = gnodes[k];
      if (gdist[(size_t)k * ncol + col] != d || m->node_gw[v] >= 0) continue;
      int len = ferry_topo_route(m, v, b, route), ok = 1;
      for (int h = 0; h < len - 1 && ok; h++) {
        int from, to;
        ferry_topo_link_ends(m, route[h], &from, &to);
        if (to >= 0 && !in[to]) ok = 0; /* crosses another bridge, leaves the group or the cap */
      }
      if (!ok) continue;
      in[v] = 1;
      out[cnt++] = (tnode){v, d};
    }
  /* clear the marks for the next tree */
  in[b] = 0;
  for (int k = 0; k < cnt; k++) in[out[k].node] = 0;
  return cnt;
}

static int walk_group(const ferry_topo_machine *m, const int *gidx, int gn, const int *nodes, const int *def,
                      int mem_cap, int *gw_out, int *moved, unsigned char *in, int *route) {
  if (gn <= 0) return 0;
  int rc = -ENOMEM, G = m->ngw;
  int *col = malloc((size_t)G * sizeof *col), *bridges = malloc((size_t)G * sizeof *bridges);
  int *gnodes = malloc(ferry_topo__sz(gn) * sizeof *gnodes);
  uint16_t *row = malloc((size_t)G * sizeof *row), *gdist = NULL;
  tnode *trees = NULL;
  int *tcnt = NULL, *load = NULL;
  size_t *moff = NULL;
  membership *mem = NULL;
  unsigned char *done = NULL;
  if (!col || !bridges || !gnodes || !row) goto out;
  /* the group's bridges: its nodes' defaults, in index order */
  for (int g = 0; g < G; g++) col[g] = -1;
  for (int k = 0; k < gn; k++) col[def[gidx[k]]] = 0;
  int nb = 0;
  for (int g = 0; g < G; g++)
    if (col[g] == 0) col[g] = nb, bridges[nb++] = g;
  for (int k = 0; k < gn; k++) gnodes[k] = nodes[gidx[k]];
  gdist = malloc(ferry_topo__sz((long)gn * nb) * sizeof *gdist);
  trees = malloc(ferry_topo__sz((long)nb * SEED_BAG) * sizeof *trees);
  tcnt = calloc(ferry_topo__sz(nb), sizeof *tcnt);
  load = calloc(ferry_topo__sz(nb), sizeof *load);
  done = calloc(ferry_topo__sz(gn), 1);
  if (!gdist || !trees || !tcnt || !load || !done) goto out;
  for (int k = 0; k < gn; k++) {
    ferry_topo__gw_distances(m, gnodes[k], row);
    for (int j = 0; j < nb; j++) gdist[(size_t)k * nb + j] = row[bridges[j]];
  }
  int maxd = 0;
  size_t total_members = 0;
  for (int j = 0; j < nb; j++) {
    tcnt[j] = build_tree(m, bridges[j], gnodes, gn, gdist, j, nb, in, trees + (size_t)j * SEED_BAG, route);
    total_members += (size_t)tcnt[j];
    for (int q = 0; q < tcnt[j]; q++)
      if (trees[(size_t)j * SEED_BAG + q].depth > maxd) maxd = trees[(size_t)j * SEED_BAG + q].depth;
  }
  /* per node: the trees that hold it, in bridge index order (CSR over the
   * node's position in the group) */
  int *pos = malloc((size_t)m->nnodes * sizeof *pos);
  moff = calloc((size_t)gn + 1, sizeof *moff);
  mem = malloc(ferry_topo__sz((long)total_members) * sizeof *mem);
  if (!pos || !moff || !mem) {
    free(pos);
    goto out;
  }
  for (int k = 0; k < gn; k++) pos[gnodes[k]] = k;
  for (int j = 0; j < nb; j++)
    for (int q = 0; q < tcnt[j]; q++) moff[pos[trees[(size_t)j * SEED_BAG + q].node] + 1]++;
  for (int k = 0; k < gn; k++) moff[k + 1] += moff[k];
  size_t *fill = malloc((size_t)gn * sizeof *fill);
  if (!fill) {
    free(pos);
    goto out;
  }
  memcpy(fill, moff, (size_t)gn * sizeof *fill);
  for (int j = 0; j < nb; j++) /* j ascending: each node's list is in bridge index order */
    for (int q = 0; q < tcnt[j]; q++) {
      tnode t = trees[(size_t)j * SEED_BAG + q];
      mem[fill[pos[t.node]]++] = (membership){j, t.depth};
    }
  free(fill);

  long total = 0;
  double avg = 0;
  for (int d = 1; d <= maxd; d++)
    for (int j = 0; j < nb; j++)
      for (int q = 0; q < tcnt[j]; q++) {
        tnode t = trees[(size_t)j * SEED_BAG + q];
        if (t.depth != d) continue;
        int k = pos[t.node];
        if (done[k]) continue;
        int i = gidx[k], dj = col[def[i]];
        int best = -1, best_h = gdist[(size_t)k * nb + dj] + 1; /* depth rule: no deeper than default */
        for (size_t e = moff[k]; e < moff[k + 1]; e++) {
          int b = mem[e].gw;
          if (load[b] > avg) continue;                      /* balance rule */
          if (mem_cap > 0 && load[b] >= mem_cap) continue;  /* memory cap */
          if (b != dj && mem[e].depth < best_h) best = b, best_h = mem[e].depth;
        }
        if (best < 0) continue; /* met again in a later tree */
        gw_out[i] = bridges[best];
        load[best]++;
        total++;
        avg = (double)total / nb;
        done[k] = 1;
        (*moved)++;
      }
  free(pos);
  rc = 0;
out:
  free(col);
  free(bridges);
  free(gnodes);
  free(row);
  free(gdist);
  free(trees);
  free(tcnt);
  free(load);
  free(moff);
  free(mem);
  free(done);
  return rc;
}

static int cmp_node(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

int ferry_topo__assign_seed(const ferry_topo_machine *m, int n, const int *nodes, const int *def, int mem_cap,
                            int *gw_out, int *moved) {
  int rc = -ENOMEM;
  int *order = malloc(ferry_topo__sz(n) * sizeof *order);
  int *route = malloc(FERRY_TOPO_MAX_ROUTE * sizeof *route);
  unsigned char *in = calloc((size_t)m->nnodes, 1);
  *moved = 0;
  if (!order || !route || !in) goto out;
  for (int i = 0; i < n; i++) gw_out[i] = def[i];
  /* groups are contiguous in node order (rank order under ABCDET) */
  long long *key = malloc(ferry_topo__sz(n) * sizeof *key);
  if (!key) goto out;
  for (int i = 0; i < n; i++) key[i] = ((long long)nodes[i] << 32) | (unsigned)i;
  qsort(key, (size_t)n, sizeof *key, cmp_node);
  for (int i = 0; i < n; i++) order[i] = (int)(key[i] & 0xffffffffLL);
  free(key);
  int gsize = n <= 1024 ? 512 : (n + 1) / 2;
  rc = 0;
  for (int s = 0; s < n && rc == 0; s += gsize)
    rc = walk_group(m, order + s, n - s < gsize ? n - s : gsize, nodes, def, mem_cap, gw_out, moved, in, route);
out:
  free(order);
  free(route);
  free(in);
  return rc;
}

