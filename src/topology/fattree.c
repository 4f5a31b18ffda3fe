/* k-ary fat-tree, 2 or 3 levels, static destination-based D-mod-k routing
 * (InfiniBand LFT-style), gateway nodes on chosen leaves. */
#include "topology/model.h"

#define FATTREE_MAX_NODES 65536

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int k, h;            /* radix, k/2 */
  int levels;
  int pods, leaves, aggs, cores, nodes;
  /* link id bases */
  int up0, down0, la0, al0, ac0, ca0;
} ft_t;

static void ft_destroy(void *p) { free(p); }

/* 3 levels: pods = k, k/2 leaves and k/2 aggregation switches per pod,
 * (k/2)^2 cores; core (a, c) reaches aggregation switch a of every pod.
 * 2 levels: k leaves, k/2 spines, every spine reaches every leaf. Both:
 * k/2 nodes per leaf. D-mod-k: the up port at level l is
 * floor(dst / (k/2)^(l-1)) mod (k/2). */
static int ft_route(const ferry_topo_machine *m, int a, int b, int *links) {
  const ft_t *t = m->impl;
  if (a == b) return 0;
  int h = t->h, n = 0;
  int la = a / h, lb = b / h;
  links[n++] = t->up0 + a;
  if (la != lb) {
    if (t->levels == 2) {
      int sp = b % h;
      links[n++] = t->la0 + la * h + sp;
      links[n++] = t->al0 + sp * t->leaves + lb;
    } else {
      int pa = la / h, pb = lb / h, ag = b % h;
      links[n++] = t->la0 + la * h + ag;
      if (pa != pb) {
        int c = (b / h) % h;
        links[n++] = t->ac0 + (pa * h + ag) * h + c;
        links[n++] = t->ca0 + (ag * h + c) * t->pods + pb;
      }
      links[n++] = t->al0 + (pb * h + ag) * h + lb % h;
    }
  }
  links[n++] = t->down0 + b;
  return n;
}

static int ft_distance(const ferry_topo_machine *m, int a, int b) {
  const ft_t *t = m->impl;
  if (a == b) return 0;
  int h = t->h, la = a / h, lb = b / h;
  if (la == lb) return 2;
  if (t->levels == 2) return 4;
  return la / h == lb / h ? 4 : 6;
}

static int ft_coords(const ferry_topo_machine *m, int node, int *c) {
  const ft_t *t = m->impl;
  int leaf = node / t->h;
  if (t->levels == 2) {
    c[0] = leaf;
    c[1] = node % t->h;
    return 2;
  }
  c[0] = leaf / t->h;
  c[1] = leaf % t->h;
  c[2] = node % t->h;
  return 3;
}

static int ft_node_at(const ferry_topo_machine *m, const int *c) {
  const ft_t *t = m->impl;
  if (t->levels == 2) {
    if (c[0] < 0 || c[0] >= t->leaves || c[1] < 0 || c[1] >= t->h) return -1;
    return c[0] * t->h + c[1];
  }
  if (c[0] < 0 || c[0] >= t->pods || c[1] < 0 || c[1] >= t->h || c[2] < 0 || c[2] >= t->h) return -1;
  return (c[0] * t->h + c[1]) * t->h + c[2];
}

static int ft_dim_size(const ferry_topo_machine *m, int dim) {
  const ft_t *t = m->impl;
  if (t->levels == 2) return dim == 0 ? t->leaves : t->h;
  return dim == 0 ? t->pods : t->h;
}

static int ft_link_ends(const ferry_topo_machine *m, int link, int *from, int *to) {
  const ft_t *t = m->impl;
  *from = *to = -1;
  if (link < t->down0) *from = link - t->up0;
  else if (link < t->la0) *to = link - t->down0;
  return 1;
}

static void ft_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len) {
  const ft_t *t = m->impl;
  int h = t->h;
  if (link < t->down0) snprintf(buf, len, "n%d->leaf%d", link - t->up0, (link - t->up0) / h);
  else if (link < t->la0) snprintf(buf, len, "leaf%d->n%d", (link - t->down0) / h, link - t->down0);
  else if (link < t->al0) {
    int x = link - t->la0, leaf = x / h, p = x % h;
    if (t->levels == 2) snprintf(buf, len, "leaf%d->spine%d", leaf, p);
    else snprintf(buf, len, "leaf%d->agg%d", leaf, (leaf / h) * h + p);
  } else if (link < t->ac0 || t->levels == 2) {
    int x = link - t->al0;
    if (t->levels == 2) snprintf(buf, len, "spine%d->leaf%d", x / t->leaves, x % t->leaves);
    else snprintf(buf, len, "agg%d->leaf%d", x / h, (x / h / h) * h + x % h);
  } else if (link < t->ca0) {
    int x = link - t->ac0, ag = x / h;
    snprintf(buf, len, "agg%d->core%d", ag, (ag % h) * h + x % h);
  } else {
    int x = link - t->ca0, core = x / t->pods, pod = x % t->pods;
    snprintf(buf, len, "core%d->agg%d", core, pod * h + core / h);
  }
}

static const struct ferry_topo_ops ft_ops = FERRY_TOPO_OPS(ft, NULL);

int ferry_topo__build_fattree(ferry_topo_machine *m, const char *args, char *err, size_t errlen) {
  ferry_topo_optlist ol;
  int rc = ferry_topo__start(m, FERRY_TOPO_FATTREE, &ft_ops, sizeof(ft_t), args, &ol, err, errlen);
  if (rc) return rc;
  if (ol.pos[0]) {
    ferry_topo__seterr(err, errlen, "fattree: give k=,levels= options (got '%s')", ol.pos);
    return -EINVAL;
  }
  ft_t *t = m->impl;
  int k, levels, gwleaves, gwper;
  if ((rc = ferry_topo__opt_int(&ol, "k", 16, 2, 256, &k, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "levels", 3, 2, 3, &levels, err, errlen))) return rc;
  if (k % 2) {
    ferry_topo__seterr(err, errlen, "fattree: k must be even");
    return -EINVAL;
  }
  t->k = k, t->h = k / 2, t->levels = levels;
  int h = t->h;
  if (levels == 2) {
    t->pods = 1, t->leaves = k, t->aggs = h, t->cores = 0;
  } else {
    t->pods = k, t->leaves = k * h, t->aggs = k * h, t->cores = h * h;
  }
  /* The assignment scans every (node, gateway) pair, which grows as k^4:
   * k=64 at 3 levels (65,536 nodes) compares in 0.4 CPU s, k=256 (4.2 M
   * nodes) ran past a minute. The cap keeps the range fast and above any
   * machine ferry models (Mira has 49,152 nodes). */
  long nn = (long)t->leaves * h;
  if (nn > FATTREE_MAX_NODES) {
    ferry_topo__seterr(err, errlen, "fattree k=%d,levels=%d has %ld nodes; at most %d (k <= 64 at 3 levels)", k, levels,
                       nn, FATTREE_MAX_NODES);
    return -EINVAL;
  }
  t->nodes = (int)nn;
  /* default: one gateway leaf per pod (3 levels) or two leaves (2 levels),
   * two gateway nodes each */
  if ((rc = ferry_topo__opt_int(&ol, "gwleaves", levels == 2 ? 2 : t->pods, 1, t->leaves, &gwleaves, err, errlen)))
    return rc;
  if ((rc = ferry_topo__opt_int(&ol, "gwperleaf", h >= 2 ? 2 : 1, 1, h, &gwper, err, errlen))) return rc;
  double bw, exitbw, lat;
  if ((rc = ferry_topo__opt_double(&ol, "bw", 12.5e9, NULL, &bw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "iobw", 12.5e9, NULL, &exitbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "lat", 60e-9, NULL, &lat, err, errlen))) return rc;
  if ((rc = ferry_topo__opts_all_used(&ol, err, errlen))) return rc;
  if ((long)gwleaves * gwper >= nn) {
    ferry_topo__seterr(err, errlen, "fattree: gateways would take every node");
    return -EINVAL;
  }

  m->nnodes = t->nodes;
  m->ndims = levels == 2 ? 2 : 3;
  t->up0 = 0;
  t->down0 = t->nodes;
  t->la0 = 2 * t->nodes;
  t->al0 = t->la0 + t->leaves * h;
  if (levels == 2) {
    t->ac0 = t->ca0 = t->al0 + h * t->leaves;
    m->nnet = t->ac0;
  } else {
    t->ac0 = t->al0 + t->aggs * h;
    t->ca0 = t->ac0 + t->aggs * h;
    m->nnet = t->ca0 + t->cores * t->pods;
  }
  m->exit_bw = exitbw;
  m->hop_latency = lat;

  /* gateway leaves evenly spaced, each the last of its stride; gateway
   * nodes are the last slots of those leaves */
  if ((rc = ferry_topo__alloc_gateways(m, gwleaves * gwper))) return rc;
  int stride = t->leaves / gwleaves, g = 0;
  for (int i = 0; i < gwleaves; i++) {
    int leaf = (i + 1) * stride - 1;
    for (int j = gwper; j >= 1; j--) {
      m->gw_group[g] = i;
      m->gw_node[g++] = leaf * h + (h - j);
    }
  }
  if ((rc = ferry_topo__alloc_nodes(m))) return rc;
  if ((rc = ferry_topo__alloc_links(m))) return rc;
  for (int l = 0; l < m->nnet; l++) m->link_bw[l] = bw;
  for (int i = 0; i < m->ngw; i++) m->service[m->gw_node[i]] = 1;
  ferry_topo__default_blocks(m);
  snprintf(m->desc, sizeof m->desc,
           "fattree k=%d, %d levels: %d nodes on %d leaves, D-mod-k routing, %d gateways (%d per leaf on %d leaves)",
           k, levels, t->nodes, t->leaves, m->ngw, gwper, gwleaves);
  return 0;
}
