/* Max-load local search (beyond the seed): moves nodes between gateways to
 * lower the most loaded resource, tie-broken by hop-bytes. Resources are the
 * links (the gateways' exit links included) and, for load-aware, each
 * gateway group's capacity and request server: a node on gateway g loads its
 * route and g's exit link with its bytes, g's group with its bytes and its
 * requests (fewer when it is not on its default and the path coalesces
 * moved nodes). `refined` is this search on links only.
 *
 * Phase 1 repeatedly takes the resource with the largest load/capacity
 * and moves one of the nodes that load it to another gateway, picking the
 * move whose new path peaks lowest (then the one adding the fewest
 * hop-bytes); a move must keep every resource of its new path strictly
 * below the current maximum, so the maximum (or the number of resources at
 * it) falls every step. It stops when the top link has no such move. Phase 2 is one
 * pass that moves nodes to nearer gateways when that keeps every link at or
 * below the maximum: it only lowers hop-bytes. Candidates are the gateways
 * within the node's default distance plus a slack, so a node never strays
 * far, and the memory cap on nodes moved onto a gateway still holds.
 * Loads are kept as load / capacity (seconds), so bytes and requests
 * compare. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int i, next;
} lent_t;

typedef struct {
  const ferry_topo_machine *m;
  int n;
  const int *nodes, *def;
  const double *w;
  const double *rq, *rqm; /* requests on the default / another gateway, or NULL */
  int gbytes, gmsgs;      /* first group-bytes / group-request resource, or -1 */
  int *gw, *moved_in, cap;
  double *moved_bytes, cap_bytes;
  double *load;
  double *bw;             /* capacity per resource */
  int tsize, *tree;
  int *head;
  lent_t *ent;
  size_t nent, capent;
  int *stamp;
  const ferry_topo_cands *c;
  size_t *end;   /* per node: end of its candidates within its limit */
} rs_t;

static inline double util(const rs_t *s, int l) { return s->load[l] / s->bw[l]; }

static inline int better(const rs_t *s, int a, int b) {
  if (b < 0) return a >= 0;
  if (a < 0) return 0;
  double ua = util(s, a), ub = util(s, b);
  return ua > ub || (ua == ub && a < b);
}

static void tree_update(rs_t *s, int l) {
  int p = (s->tsize + l) >> 1;
  while (p >= 1) {
    int a = s->tree[2 * p], b = s->tree[2 * p + 1];
    int w = better(s, a, b) ? a : b;
    if (s->tree[p] == w && w != l) break; /* nothing above changes */
    s->tree[p] = w;
    p >>= 1;
  }
}

static int add_entry(rs_t *s, int l, int i) {
  if (s->nent == s->capent) {
    size_t nc = s->capent ? s->capent * 2 : 1024;
    lent_t *ne = realloc(s->ent, nc * sizeof *ne);
    if (!ne) return -ENOMEM;
    s->ent = ne;
    s->capent = nc;
  }
  s->ent[s->nent] = (lent_t){i, s->head[l]};
  s->head[l] = (int)s->nent++;
  return 0;
}

#define PATH_MAX_RES (FERRY_TOPO_MAX_ROUTE + 3)

/* Resources node i loads on gateway g, with what: the route and the exit
 * link (bytes), the group (bytes, requests). *hops gets the route length. */
static int path(const rs_t *s, int i, int g, int *links, double *wt, int *hops) {
  int k = s->m->ops->route(s->m, s->nodes[i], s->m->gw_node[g], links);
  if (hops) *hops = k;
  links[k++] = s->m->nnet + g;
  for (int j = 0; j < k; j++) wt[j] = s->w[i];
  int q = s->m->gw_group[g];
  if (s->gbytes >= 0) links[k] = s->gbytes + q, wt[k++] = s->w[i];
  if (s->gmsgs >= 0) links[k] = s->gmsgs + q, wt[k++] = g == s->def[i] || !s->rqm ? s->rq[i] : s->rqm[i];
  return k;
}

/* weight of resource l in a path, 0 if the path does not load it */
static inline double weight_in(const int *links, const double *wt, int n, int l) {
  for (int k = 0; k < n; k++)
    if (links[k] == l) return wt[k];
  return 0;
}

static inline int contains(const int *links, int n, int l) {
  for (int k = 0; k < n; k++)
    if (links[k] == l) return 1;
  return 0;
}

static int apply_move(rs_t *s, int i, int g2, const int *p1, const double *w1, int n1, const int *p2,
                      const double *w2, int n2) {
  for (int k = 0; k < n1; k++) {
    s->load[p1[k]] -= w1[k];
    tree_update(s, p1[k]);
  }
  for (int k = 0; k < n2; k++) {
    s->load[p2[k]] += w2[k];
    tree_update(s, p2[k]);
    if (!contains(p1, n1, p2[k]) && add_entry(s, p2[k], i)) return -ENOMEM;
  }
  int g1 = s->gw[i];
  if (g1 != s->def[i]) s->moved_in[g1]--, s->moved_bytes[g1] -= s->w[i];
  if (g2 != s->def[i]) s->moved_in[g2]++, s->moved_bytes[g2] += s->w[i];
  s->gw[i] = g2;
  return 0;
}

static int allowed(const rs_t *s, int i, int g) {
  if (g == s->gw[i]) return 0;
  if (g != s->def[i] && s->cap > 0 && s->moved_in[g] >= s->cap) return 0;
  if (g != s->def[i] && s->cap_bytes > 0 && s->moved_bytes[g] + s->w[i] > s->cap_bytes) return 0;
  return 1;
}

int ferry_topo__peak(const ferry_topo_machine *m, int n, const int *nodes, const double *w, const int *gw,
                     double *peak, double *hop_bytes) {
  double *load = calloc((size_t)m->nlinks, sizeof *load);
  if (!load) return -ENOMEM;
  int links[FERRY_TOPO_MAX_ROUTE + 1];
  double hb = 0, pk = 0;
  for (int i = 0; i < n; i++) {
    int k = m->ops->route(m, nodes[i], m->gw_node[gw[i]], links);
    hb += w[i] * k;
    links[k++] = m->nnet + gw[i];
    for (int j = 0; j < k; j++) load[links[j]] += w[i];
  }
  for (int l = 0; l < m->nlinks; l++)
    if (load[l] / m->link_bw[l] > pk) pk = load[l] / m->link_bw[l];
  free(load);
  *peak = pk;
  *hop_bytes = hb;
  return 0;
}

int ferry_topo__refine(const ferry_topo_machine *m, int n, const int *nodes, const int *def,
                       const ferry_topo__search *sp, const ferry_topo_cands *cands, int *gw,
                       ferry_topo_assign_stats *st) {
  rs_t s;
  memset(&s, 0, sizeof s);
  s.m = m, s.n = n, s.nodes = nodes, s.def = def, s.w = sp->w, s.gw = gw, s.cap = sp->mem_cap;
  s.rq = sp->rq, s.rqm = sp->rqm, s.cap_bytes = sp->mem_cap_bytes;
  int rc = -ENOMEM, L = m->nlinks, G = m->ngroups;
  s.gbytes = sp->group_bw > 0 ? L : -1;
  s.gmsgs = sp->group_msg_cost > 0 && sp->rq ? L + (s.gbytes >= 0 ? G : 0) : -1;
  int R = L + (s.gbytes >= 0 ? G : 0) + (s.gmsgs >= 0 ? G : 0);
  s.tsize = 1;
  while (s.tsize < R) s.tsize <<= 1;
  s.load = calloc((size_t)R, sizeof *s.load);
  s.bw = malloc((size_t)R * sizeof *s.bw);
  s.tree = malloc(2 * (size_t)s.tsize * sizeof *s.tree);
  s.head = malloc((size_t)R * sizeof *s.head);
  s.moved_in = calloc((size_t)m->ngw, sizeof *s.moved_in);
  s.moved_bytes = calloc((size_t)m->ngw, sizeof *s.moved_bytes);
  s.stamp = calloc(ferry_topo__sz(n), sizeof *s.stamp);
  int *limit = malloc(ferry_topo__sz(n) * sizeof *limit);
  s.end = malloc(ferry_topo__sz(n) * sizeof *s.end);
  ferry_topo_cands own;
  memset(&own, 0, sizeof own);
  if (!s.load || !s.bw || !s.tree || !s.head || !s.moved_in || !s.moved_bytes || !s.stamp || !limit || !s.end)
    goto out;
  for (int l = 0; l < R; l++) s.head[l] = -1;
  for (int l = 0; l < L; l++) s.bw[l] = m->link_bw[l];
  for (int q = 0; q < G; q++) {
    if (s.gbytes >= 0) s.bw[s.gbytes + q] = sp->group_bw;
    if (s.gmsgs >= 0) s.bw[s.gmsgs + q] = 1 / sp->group_msg_cost;
  }

  int p1[PATH_MAX_RES], p2[PATH_MAX_RES], h1, h2;
  double w1[PATH_MAX_RES], w2[PATH_MAX_RES];
  for (int i = 0; i < n; i++) {
    int n1 = path(&s, i, gw[i], p1, w1, NULL);
    for (int k = 0; k < n1; k++) {
      s.load[p1[k]] += w1[k];
      if (add_entry(&s, p1[k], i)) goto out;
    }
    if (gw[i] != def[i]) s.moved_in[gw[i]]++, s.moved_bytes[gw[i]] += sp->w[i];
  }
  ferry_topo__limits(m, n, nodes, def, sp->slack, limit);
  for (int k = 0; k < 2 * s.tsize; k++) s.tree[k] = -1;
  for (int l = 0; l < R; l++) s.tree[s.tsize + l] = l;
  for (int p = s.tsize - 1; p >= 1; p--) {
    int a = s.tree[2 * p], b = s.tree[2 * p + 1];
    s.tree[p] = better(&s, a, b) ? a : b;
  }
  s.c = cands;
  if (!s.c) {
    if ((rc = ferry_topo__cands_build(m, n, nodes, limit, &own))) goto out;
    s.c = &own;
  }
  for (int i = 0; i < n; i++) {
    size_t q = s.c->off[i];
    while (q < s.c->off[i + 1] && s.c->dist[q] <= limit[i]) q++;
    s.end[i] = q;
  }
  rc = -ENOMEM;
  if (st) st->max_link_time_before = s.tree[1] >= 0 ? util(&s, s.tree[1]) : 0.0;
  long max_moves = sp->max_moves > 0 ? sp->max_moves : n;

  /* phase 1: push the maximum down */
  long moves = 0;
  int iter = 0;
  while (moves < max_moves) {
    int top = s.tree[1];
    if (top < 0) break;
    double M = util(&s, top);
    if (M <= 0) break;
    double bar = M * (1.0 - 1e-12);
    iter++;
    int bi = -1, bg = -1;
    double bpeak = 0, bdhb = 0;
    for (int e = s.head[top]; e >= 0; e = s.ent[e].next) {
      int i = s.ent[e].i;
      if (s.stamp[i] == iter) continue;
      s.stamp[i] = iter;
      int n1 = path(&s, i, gw[i], p1, w1, &h1);
      if (!contains(p1, n1, top)) continue; /* stale entry */
      for (size_t q = s.c->off[i]; q < s.end[i]; q++) {
        int g = s.c->gw[q];
        if (!allowed(&s, i, g)) continue;
        int ex = m->nnet + g;
        if ((s.load[ex] - weight_in(p1, w1, n1, ex) + sp->w[i]) / s.bw[ex] >= bar) continue;
        int n2 = path(&s, i, g, p2, w2, &h2);
        double peak = 0;
        for (int k = 0; k < n2 && peak < bar; k++) {
          double u = (s.load[p2[k]] - weight_in(p1, w1, n1, p2[k]) + w2[k]) / s.bw[p2[k]];
          if (u > peak) peak = u;
        }
        if (peak >= bar) continue;
        double dhb = sp->w[i] * (double)(h2 - h1);
        int take = bi < 0 || peak < bpeak || (peak == bpeak && dhb < bdhb) ||
                   (peak == bpeak && dhb == bdhb && (nodes[i] < nodes[bi] || (i == bi && g < bg)));
        if (take) bi = i, bg = g, bpeak = peak, bdhb = dhb;
      }
    }
    if (bi < 0) break;
    int n1 = path(&s, bi, gw[bi], p1, w1, NULL), n2 = path(&s, bi, bg, p2, w2, NULL);
    if (apply_move(&s, bi, bg, p1, w1, n1, p2, w2, n2)) goto out;
    moves++;
  }

  /* phase 2: fewer hops wherever the maximum allows */
  if (s.tree[1] >= 0) {
    double M = util(&s, s.tree[1]);
    for (int i = 0; i < n && moves < max_moves; i++) {
      size_t a = s.c->off[i], b = s.end[i];
      if (a == b) continue;
      int n1 = path(&s, i, gw[i], p1, w1, &h1);
      for (size_t q = a; q < b && s.c->dist[q] < h1; q++) {
        int g = s.c->gw[q];
        if (!allowed(&s, i, g)) continue;
        int n2 = path(&s, i, g, p2, w2, NULL);
        int ok = 1;
        for (int k = 0; k < n2 && ok; k++)
          ok = (s.load[p2[k]] - weight_in(p1, w1, n1, p2[k]) + w2[k]) / s.bw[p2[k]] <= M;
        if (!ok) continue;
        if (apply_move(&s, i, g, p1, w1, n1, p2, w2, n2)) goto out;
        moves++;
        break;
      }
    }
  }
  if (st) {
    st->refine_moves = moves;
    st->max_link_time_after = s.tree[1] >= 0 ? util(&s, s.tree[1]) : 0.0;
  }
  rc = 0;
out:
  ferry_topo__cands_free(&own);
  free(s.end);
  free(s.load);
  free(s.bw);
  free(s.tree);
  free(s.head);
  free(s.ent);
  free(s.moved_in);
  free(s.moved_bytes);
  free(s.stamp);
  free(limit);
  return rc;
}
