/* The seed's route- and load-aware reassignment (Malakar & Vishwanath,
 * ParCo 2017), for any model.
 *
 * The seed builds, per gateway, the tree that the static routes into it
 * form, walks all trees one level at a time round-robin over gateways, and
 * gives each node it meets to the nearest gateway whose count of new nodes
 * is at or below the running average, no farther than the node's default.
 * Every model here routes by destination, so the tree of gateway g holds
 * each node at depth distance(node, g) with real route edges; the walk
 * order is then (depth, gateway, node) and needs no explicit tree. A node
 * is met again in each tree no deeper than its default distance until it
 * is placed; deeper meetings (which the seed's tree cap mostly cuts off)
 * are not replayed. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int level, gw, i;
} visit_t;

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* Participant indices in ascending node id order. */
static int node_order(int n, const int *nodes, int *order) {
  long long *key = malloc(ferry_topo__sz(n) * sizeof *key);
  if (!key) return -ENOMEM;
  for (int i = 0; i < n; i++) key[i] = ((long long)nodes[i] << 32) | (unsigned)i;
  qsort(key, (size_t)n, sizeof *key, cmp_ll);
  for (int i = 0; i < n; i++) order[i] = (int)(key[i] & 0xffffffffLL);
  free(key);
  return 0;
}

int ferry_topo__assign_route_aware(const ferry_topo_machine *m, int n, const int *nodes,
                                   const int *def, int mem_cap, const ferry_topo_cands *cands,
                                   int *gw_out, int *moved) {
  int G = m->ngw, rc = -ENOMEM;
  int *limit = malloc(ferry_topo__sz(n) * sizeof *limit);
  int *order = malloc(ferry_topo__sz(n) * sizeof *order);
  size_t *end = malloc(ferry_topo__sz(n) * sizeof *end);
  int *load = calloc((size_t)G, sizeof *load);
  unsigned char *done = calloc(ferry_topo__sz(n), 1);
  ferry_topo_cands own;
  memset(&own, 0, sizeof own);
  const ferry_topo_cands *c = cands;
  visit_t *ev = NULL, *ev2 = NULL;
  size_t *cnt = NULL;
  if (!limit || !order || !end || !load || !done) goto out;
  for (int i = 0; i < n; i++) gw_out[i] = def[i];
  /* gateway nodes are the trees' roots and never move */
  ferry_topo__limits(m, n, nodes, def, 0, limit);
  if (!c) {
    if ((rc = ferry_topo__cands_build(m, n, nodes, limit, &own))) goto out;
    c = &own;
  }

  /* One visit per (node, tree no deeper than its default), for nodes that
   * have somewhere else to go; generated in node order, then stably sorted
   * by gateway and by level to give the walk order (level, gateway, node). */
  if ((rc = node_order(n, nodes, order))) goto out;
  size_t ne = 0;
  int maxlev = 0;
  for (int i = 0; i < n; i++) {
    /* the trees a node is met in: gateways no farther than its default */
    size_t len = 0;
    for (size_t q = c->off[i]; q < c->off[i + 1] && c->dist[q] <= limit[i]; q++) len++;
    end[i] = c->off[i] + len;
    if (len > 1) ne += len;
    if (limit[i] > maxlev) maxlev = limit[i];
  }
  rc = -ENOMEM;
  ev = malloc((ne ? ne : 1) * sizeof *ev);
  ev2 = malloc((ne ? ne : 1) * sizeof *ev2);
  size_t ncnt = (size_t)(G > maxlev + 1 ? G : maxlev + 1) + 1;
  cnt = calloc(ncnt, sizeof *cnt);
  if (!ev || !ev2 || !cnt) goto out;
  size_t k = 0;
  for (int oi = 0; oi < n; oi++) {
    int i = order[oi];
    size_t a = c->off[i], b = end[i];
    if (b - a <= 1) continue;
    for (size_t j = a; j < b; j++) ev[k++] = (visit_t){c->dist[j], c->gw[j], i};
  }
  for (size_t j = 0; j < ne; j++) cnt[ev[j].gw + 1]++;
  for (int g = 0; g < G; g++) cnt[g + 1] += cnt[g];
  for (size_t j = 0; j < ne; j++) ev2[cnt[ev[j].gw]++] = ev[j];
  memset(cnt, 0, ncnt * sizeof *cnt);
  for (size_t j = 0; j < ne; j++) cnt[ev2[j].level + 1]++;
  for (int l = 0; l <= maxlev; l++) cnt[l + 1] += cnt[l];
  for (size_t j = 0; j < ne; j++) ev[cnt[ev2[j].level]++] = ev2[j];

  /* The walk. load counts nodes moved onto a gateway, as in the seed: the
   * balance rule evens out the new work, the default share is untouched. */
  long total = 0;
  double avg = 0.0;
  int nmoved = 0;
  for (size_t j = 0; j < ne; j++) {
    int i = ev[j].i;
    if (done[i]) continue;
    for (size_t q = c->off[i]; q < end[i]; q++) {
      int b = c->gw[q];
      if (b == def[i]) continue;
      if (load[b] > avg) continue;                  /* balance rule */
      if (mem_cap > 0 && load[b] >= mem_cap) continue; /* memory cap */
      /* the list is nearest first, ties by gateway index: first fit wins */
      gw_out[i] = b;
      load[b]++;
      total++;
      avg = (double)total / G;
      done[i] = 1;
      nmoved++;
      break;
    }
  }
  if (moved) *moved = nmoved;
  rc = 0;
out:
  ferry_topo__cands_free(&own);
  free(end);
  free(limit);
  free(order);
  free(load);
  free(done);
  free(ev);
  free(ev2);
  free(cnt);
  return rc;
}
