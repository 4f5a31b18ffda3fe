/* One switch: every route is node -> switch -> node. Two machines have that
 * shape: `flat`, the fall-back when a machine has no model, whose gateways
 * are ordinary (compute) nodes; and `cluster`, the emulated cluster of
 * scripts/cluster.sh with an I/O-node tier: compute nodes and I/O nodes
 * (service nodes, the gateways) on one compute network, each link at its
 * tier's rate, and each I/O node's link to the storage network as its exit
 * link. */
#include "topology/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
} flat_t;

static void flat_destroy(void *p) { free(p); }

static int flat_route(const ferry_topo_machine *m, int a, int b, int *links) {
  if (a == b) return 0;
  links[0] = a;
  links[1] = m->nnodes + b;
  return 2;
}

static int flat_distance(const ferry_topo_machine *m, int a, int b) {
  (void)m;
  return a == b ? 0 : 2;
}

static int flat_coords(const ferry_topo_machine *m, int node, int *c) {
  (void)m;
  c[0] = node;
  return 1;
}

static int flat_node_at(const ferry_topo_machine *m, const int *c) {
  return (c[0] >= 0 && c[0] < m->nnodes) ? c[0] : -1;
}

static int flat_dim_size(const ferry_topo_machine *m, int dim) {
  (void)dim;
  return m->nnodes;
}

static int flat_link_ends(const ferry_topo_machine *m, int link, int *from, int *to) {
  *from = *to = -1;
  if (link < m->nnodes) *from = link;
  else *to = link - m->nnodes;
  return 1;
}

static void flat_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len) {
  if (link < m->nnodes) snprintf(buf, len, "n%d->switch", link);
  else snprintf(buf, len, "switch->n%d", link - m->nnodes);
}

static const struct ferry_topo_ops flat_ops = FERRY_TOPO_OPS(flat, NULL);

int ferry_topo__build_flat(ferry_topo_machine *m, const char *args, char *err, size_t errlen) {
  ferry_topo_optlist ol;
  int rc = ferry_topo__start(m, FERRY_TOPO_FLAT, &flat_ops, sizeof(flat_t), args, &ol, err, errlen);
  if (rc) return rc;
  flat_t *f = m->impl;
  char *end;
  long n = strtol(ol.pos, &end, 10);
  if (ol.pos[0] == '\0' || *end || n < 1 || n > (1L << 24)) {
    ferry_topo__seterr(err, errlen, "flat:%s: want a node count", ol.pos);
    return -EINVAL;
  }
  int ngw;
  double bw, exitbw, lat;
  int defgw = n >= 64 ? (int)(n / 64) : 1;
  if ((rc = ferry_topo__opt_int(&ol, "gw", defgw, 1, (int)n, &ngw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "bw", 10e9, NULL, &bw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "iobw", 10e9, NULL, &exitbw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "lat", 1e-6, NULL, &lat, err, errlen))) return rc;
  if ((rc = ferry_topo__opts_all_used(&ol, err, errlen))) return rc;
  f->n = (int)n;
  m->nnodes = (int)n;
  m->ndims = 1;
  m->nnet = 2 * (int)n;
  m->exit_bw = exitbw;
  m->hop_latency = lat;
  if ((rc = ferry_topo__alloc_gateways(m, ngw))) return rc;
  /* the last node of each of ngw equal blocks */
  for (int g = 0; g < ngw; g++) {
    m->gw_node[g] = (int)(((long)(g + 1) * n) / ngw) - 1;
    m->gw_group[g] = g;
  }
  if ((rc = ferry_topo__alloc_nodes(m))) return rc;
  if ((rc = ferry_topo__alloc_links(m))) return rc;
  for (int l = 0; l < m->nnet; l++) m->link_bw[l] = bw;
  ferry_topo__default_blocks(m);
  snprintf(m->desc, sizeof m->desc, "flat: %d nodes on one switch, %d gateways", m->nnodes, ngw);
  return 0;
}

/* cluster:nodes=N,ions=M[,rate=B/s,iorate=B/s,iosrate=B/s,lat=S]: N compute
 * nodes, then M I/O nodes; compute nodes reach storage through the I/O node
 * of their block (node1..nodeN/M through ion1, as scripts/cluster.sh routes
 * them). Rates in bytes per second: a compute node's link (rate), an I/O
 * node's link to the compute network (iorate) and to storage (iosrate). */
int ferry_topo__build_cluster(ferry_topo_machine *m, const char *args, char *err, size_t errlen) {
  ferry_topo_optlist ol;
  int rc = ferry_topo__start(m, FERRY_TOPO_CLUSTER, &flat_ops, sizeof(flat_t), args, &ol, err, errlen);
  if (rc) return rc;
  flat_t *f = m->impl;
  if (ol.pos[0]) {
    ferry_topo__seterr(err, errlen, "cluster:%s: want key=value options (nodes=N,ions=M,...)", ol.pos);
    return -EINVAL;
  }
  int nodes, ions;
  double rate, iorate, iosrate, lat;
  if ((rc = ferry_topo__opt_int(&ol, "nodes", 4, 1, 1 << 20, &nodes, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(&ol, "ions", 2, 1, nodes, &ions, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "rate", 50e6 / 8, NULL, &rate, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "iorate", 100e6 / 8, NULL, &iorate, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "iosrate", 200e6 / 8, NULL, &iosrate, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(&ol, "lat", 1e-4, NULL, &lat, err, errlen))) return rc;
  if ((rc = ferry_topo__opts_all_used(&ol, err, errlen))) return rc;
  int n = nodes + ions;
  f->n = n;
  m->nnodes = n;
  m->ndims = 1;
  m->nnet = 2 * n;
  m->exit_bw = iosrate;
  m->hop_latency = lat;
  if ((rc = ferry_topo__alloc_gateways(m, ions))) return rc;
  if ((rc = ferry_topo__alloc_nodes(m))) return rc;
  for (int g = 0; g < ions; g++) {
    m->gw_node[g] = nodes + g;
    m->gw_group[g] = g;
    m->service[nodes + g] = 1;
  }
  if ((rc = ferry_topo__alloc_links(m))) return rc;
  /* link v: node v to the switch; link n + v: the switch to node v */
  for (int v = 0; v < n; v++) m->link_bw[v] = m->link_bw[n + v] = v < nodes ? rate : iorate;
  ferry_topo__default_blocks(m);
  m->gw_noun = "I/O node";
  m->group_noun = "I/O node";
  snprintf(m->desc, sizeof m->desc,
           "cluster: %d compute nodes at %.3g MB/s, %d I/O nodes at %.3g MB/s (compute side) and %.3g MB/s "
           "(storage side)",
           nodes, rate / 1e6, ions, iorate / 1e6, iosrate / 1e6);
  return 0;
}
