/* Dragonfly (Cray XC / Aries-like): groups of rows x cols routers, all-to-all
 * within a row (green) and within a column (black), global links between
 * groups, p nodes per router, minimal routing, LNET router nodes as
 * gateways. */
#include "topology/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int G, R, C, P, H;   /* groups, rows, cols, nodes/router, global ports/router */
  int A;               /* routers per group */
  int M;               /* global links between each pair of groups */
  int nrouters, ports; /* ports per router: (C-1) green + (R-1) black + H global */
  int lnet, fgr;
  /* link id layout */
  int inj0, ej0, rt0;
} dfly_t;

static void dfly_destroy(void *p) { free(p); }

static inline int rgroup(const dfly_t *d, int r) { return r / d->A; }
static inline int rrow(const dfly_t *d, int r) { return (r % d->A) / d->C; }
static inline int rcol(const dfly_t *d, int r) { return (r % d->A) % d->C; }
static inline int rid(const dfly_t *d, int g, int row, int col) { return g * d->A + row * d->C + col; }

/* Global slot s of a group (0 <= s < M*(G-1)) leads to group g+1+(s mod
 * (G-1)), as its (s div (G-1))-th parallel link; slots spread over routers
 * round-robin (router s mod A, port s div A). */
static inline int slot_of(const dfly_t *d, int g, int dg, int k) {
  int q = (dg - g - 1 + 2 * d->G) % d->G;
  return k * (d->G - 1) + q;
}

static int green_port(const dfly_t *d, int r, int col) {
  int c = rcol(d, r);
  return col < c ? col : col - 1;
}

static int black_port(const dfly_t *d, int r, int row) {
  int w = rrow(d, r);
  return (d->C - 1) + (row < w ? row : row - 1);
}

/* Within a group: green hop to the target column, then black hop to its row
 * (Aries' minimal intra-group route, at most 2 hops). */
static int local_route(const dfly_t *d, int x, int y, int *links, int n) {
  if (rcol(d, x) != rcol(d, y)) {
    links[n++] = d->rt0 + x * d->ports + green_port(d, x, rcol(d, y));
    x = rid(d, rgroup(d, x), rrow(d, x), rcol(d, y));
  }
  if (rrow(d, x) != rrow(d, y)) links[n++] = d->rt0 + x * d->ports + black_port(d, x, rrow(d, y));
  return n;
}

static int dfly_route(const ferry_topo_machine *m, int a, int b, int *links) {
  const dfly_t *d = m->impl;
  if (a == b) return 0;
  int ra = a / d->P, rb = b / d->P, n = 0;
  links[n++] = d->inj0 + a;
  int ga = rgroup(d, ra), gb = rgroup(d, rb);
  if (ga == gb) {
    n = local_route(d, ra, rb, links, n);
  } else {
    /* Which parallel global link: chosen by the destination node so the
     * route stays destination-based (every route into a node is a tree). */
    int k = b % d->M;
    int s = slot_of(d, ga, gb, k), s2 = slot_of(d, gb, ga, k);
    int rg = ga * d->A + s % d->A, rh = gb * d->A + s2 % d->A;
    n = local_route(d, ra, rg, links, n);
    links[n++] = d->rt0 + rg * d->ports + (d->C - 1) + (d->R - 1) + s / d->A;
    n = local_route(d, rh, rb, links, n);
  }
  links[n++] = d->ej0 + b;
  return n;
}

static int dfly_distance(const ferry_topo_machine *m, int a, int b) {
  const dfly_t *d = m->impl;
  if (a == b) return 0;
  int ra = a / d->P, rb = b / d->P;
  int ga = rgroup(d, ra), gb = rgroup(d, rb);
  int h = 2;
  if (ga == gb) return h + (rcol(d, ra) != rcol(d, rb)) + (rrow(d, ra) != rrow(d, rb));
  int k = b % d->M;
  int s = slot_of(d, ga, gb, k), s2 = slot_of(d, gb, ga, k);
  int rg = ga * d->A + s % d->A, rh = gb * d->A + s2 % d->A;
  return h + 1 + (rcol(d, ra) != rcol(d, rg)) + (rrow(d, ra) != rrow(d, rg)) + (rcol(d, rh) != rcol(d, rb)) +
         (rrow(d, rh) != rrow(d, rb));
}

static int dfly_coords(const ferry_topo_machine *m, int node, int *c) {
  const dfly_t *d = m->impl;
  int r = node / d->P;
  c[0] = rgroup(d, r);
  c[1] = rrow(d, r);
  c[2] = rcol(d, r);
  c[3] = node % d->P;
  return 4;
}

static int dfly_node_at(const ferry_topo_machine *m, const int *c) {
  const dfly_t *d = m->impl;
  if (c[0] < 0 || c[0] >= d->G || c[1] < 0 || c[1] >= d->R || c[2] < 0 || c[2] >= d->C || c[3] < 0 ||
      c[3] >= d->P)
    return -1;
  return rid(d, c[0], c[1], c[2]) * d->P + c[3];
}

static int dfly_dim_size(const ferry_topo_machine *m, int dim) {
  const dfly_t *d = m->impl;
  int s[4] = {d->G, d->R, d->C, d->P};
  return s[dim];
}

/* Where a global port leads: router id, or -1 when the slot is unwired. */
static int global_peer(const dfly_t *d, int r, int port) {
  int g = rgroup(d, r), s = port * d->A + r % d->A;
  if (s >= d->M * (d->G - 1)) return -1;
  int q = s % (d->G - 1), k = s / (d->G - 1);
  int dg = (g + 1 + q) % d->G;
  int s2 = slot_of(d, dg, g, k);
  return dg * d->A + s2 % d->A;
}

static int dfly_link_ends(const ferry_topo_machine *m, int link, int *from, int *to) {
  const dfly_t *d = m->impl;
  *from = *to = -1;
  if (link < d->ej0) {
    *from = link - d->inj0;
    return 1;
  }
  if (link < d->rt0) {
    *to = link - d->ej0;
    return 1;
  }
  int r = (link - d->rt0) / d->ports, p = (link - d->rt0) % d->ports;
  if (p < d->C - 1 + d->R - 1) return 1;
  return global_peer(d, r, p - (d->C - 1) - (d->R - 1)) >= 0;
}

static void dfly_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len) {
  const dfly_t *d = m->impl;
  if (link < d->ej0) {
    snprintf(buf, len, "n%d->r%d", link - d->inj0, (link - d->inj0) / d->P);
    return;
  }
  if (link < d->rt0) {
    snprintf(buf, len, "r%d->n%d", (link - d->ej0) / d->P, link - d->ej0);
    return;
  }
  int r = (link - d->rt0) / d->ports, p = (link - d->rt0) % d->ports;
  if (p < d->C - 1) {
    int col = p < rcol(d, r) ? p : p + 1;
    snprintf(buf, len, "r%d-green->r%d", r, rid(d, rgroup(d, r), rrow(d, r), col));
  } else if (p < d->C - 1 + d->R - 1) {
    int q = p - (d->C - 1), row = q < rrow(d, r) ? q : q + 1;
    snprintf(buf, len, "r%d-black->r%d", r, rid(d, rgroup(d, r), row, rcol(d, r)));
  } else {
    snprintf(buf, len, "r%d-global->r%d", r, global_peer(d, r, p - (d->C - 1) - (d->R - 1)));
  }
}

static const struct ferry_topo_ops dfly_ops = FERRY_TOPO_OPS(dfly, NULL);

int ferry_topo__build_dragonfly(ferry_topo_machine *m, const char *args, char *err, size_t errlen) {
  ferry_topo_optlist ol;
  int rc = ferry_topo__start(m, FERRY_TOPO_DRAGONFLY, &dfly_ops, sizeof(dfly_t), args, &ol, err, errlen);
  if (rc) return rc;
  dfly_t *d = m->impl;

  /* Presets. Theta: the CODES Theta configuration (9 groups of 6x16 routers,
   * 4 nodes each, 4 global channels; local 5.25, global 1.5, node 16 GiB/s).
   * Edison: 15 two-cabinet groups, link rates from the Aries lane counts
   * (electrical ~5.25 GB/s, optical ~4.7 GB/s; unverified). LNET counts and
   * the exit rate (FDR InfiniBand, ~6.8 GB/s) are assumptions. */
  int G = 9, R = 6, C = 16, P = 4, H = 4, lnet = 30;
  double lbw = 5.25 * 1073741824.0, gbw = 1.5 * 1073741824.0, nbw = 16.0 * 1073741824.0;
  const char *pre = "custom";
  if (strcmp(ol.pos, "theta") == 0 || ol.pos[0] == '\0') {
    pre = "theta";
  } else if (strcmp(ol.pos, "edison") == 0) {
    pre = "edison";
    G = 15;
    lnet = 56;
    lbw = 5.25e9;
    gbw = 4.7e9;
    nbw = 10e9;
  } else {
    ferry_topo__seterr(err, errlen, "dragonfly:%s: want theta, edison, or key=value options", ol.pos);
    return -EINVAL;
  }
  if ((rc = ferry_topo__opt_int(&ol, "g", G, 2, 4096, &G, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "rows", R, 1, 64, &R, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "cols", C, 1, 64, &C, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "p", P, 1, 64, &P, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "h", H, 1, 64, &H, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "lnet", lnet, 1, 1 << 20, &lnet, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "fgr", 7, 1, 1 << 20, &d->fgr, err, errlen))) return rc;
  double exitbw, lat;
  if ((rc = ferry_topo__opt_double(&ol, "local", lbw, NULL, &lbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "global", gbw, NULL, &gbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "nodebw", nbw, NULL, &nbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "iobw", 6.8e9, NULL, &exitbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "lat", 100e-9, NULL, &lat, err, errlen))) return rc;
  if ((rc = ferry_topo__opts_all_used(&ol, err, errlen))) return rc;

  d->G = G, d->R = R, d->C = C, d->P = P, d->H = H, d->A = R * C, d->lnet = lnet;
  d->M = d->A * H / (G - 1);
  if (d->M < 1) {
    ferry_topo__seterr(err, errlen, "%d routers x %d global ports cannot reach %d other groups", d->A, H, G - 1);
    return -EINVAL;
  }
  long nr = (long)G * d->A, nn = nr * P;
  d->ports = (C - 1) + (R - 1) + H;
  if (nn > (1L << 24) || nr * d->ports + 2 * nn > 0x7fffffffL) {
    ferry_topo__seterr(err, errlen, "dragonfly too large");
    return -EINVAL;
  }
  if (lnet > nn / 2) {
    ferry_topo__seterr(err, errlen, "lnet=%d: too many gateways", lnet);
    return -EINVAL;
  }
  d->nrouters = (int)nr;
  m->nnodes = (int)nn;
  m->ndims = 4;
  d->inj0 = 0;
  d->ej0 = (int)nn;
  d->rt0 = 2 * (int)nn;
  m->nnet = d->rt0 + d->nrouters * d->ports;
  m->exit_bw = exitbw;
  m->hop_latency = lat;

  /* LNET nodes: Theta puts them on node 2 of chassis slots 3-4 in a few
   * cabinets; the model spreads them over groups first, then chassis rows,
   * then the two slots. */
  if ((rc = ferry_topo__alloc_gateways(m, lnet))) return rc;
  int taken = 0;
  for (int i = 0; i < lnet; i++) {
    int g = i % G, k = i / G;
    int row = k % R, col = (3 + (k / R)) % C;
    int slot = 2 % P;
    int node = rid(d, g, row, col) * P + slot;
    /* past the slots that pattern offers, walk forward to a free node */
    for (int j = 0; j < i; j++)
      if (m->gw_node[j] == node) {
        node = -1;
        break;
      }
    if (node < 0) {
      node = taken;
      for (;;) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= m->gw_node[j] == node;
        if (!dup) break;
        node++;
      }
      taken = node + 1;
    }
    m->gw_node[i] = node;
  }
  /* ascending order */
  for (int i = 1; i < lnet; i++)
    for (int j = i; j > 0 && m->gw_node[j - 1] > m->gw_node[j]; j--) {
      int t = m->gw_node[j];
      m->gw_node[j] = m->gw_node[j - 1];
      m->gw_node[j - 1] = t;
    }
  for (int i = 0; i < lnet; i++) m->gw_group[i] = i / d->fgr;
  if ((rc = ferry_topo__alloc_nodes(m))) return rc;
  if ((rc = ferry_topo__alloc_links(m))) return rc;
  for (int l = 0; l < d->rt0; l++) m->link_bw[l] = nbw;
  for (int r = 0; r < d->nrouters; r++)
    for (int p = 0; p < d->ports; p++)
      m->link_bw[d->rt0 + r * d->ports + p] = p < (C - 1) + (R - 1) ? lbw : gbw;
  for (int i = 0; i < lnet; i++) m->service[m->gw_node[i]] = 1;

  /* Default: compute nodes take LNET routers round-robin, as LNET spreads
   * traffic over the routers of a network. */
  int k = 0;
  for (int v = 0; v < m->nnodes; v++)
    if (!m->service[v]) m->default_gw[v] = k++ % lnet;

  snprintf(m->desc, sizeof m->desc,
           "dragonfly %s: %d groups x %dx%d routers x %d nodes, %d global ports/router (%d links per group pair), "
           "%d LNET gateways in FGR groups of %d, minimal routing",
           pre, G, R, C, P, H, d->M, lnet, d->fgr);
  return 0;
}
