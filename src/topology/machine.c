/* Machine lifecycle: spec dispatch, the checks every model passes, accessors
 * and the preset table. The parts models build with are in parts.c. */
#include "topology/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ferry_topo_preset presets[] = {
    {"bgq:32", "2x2x2x2x2 torus (verified shape)"},
    {"bgq:64", "2x2x4x2x2 torus (verified shape)"},
    {"bgq:128", "2x2x4x4x2 torus (verified shape)"},
    {"bgq:256", "4x2x4x4x2 torus (verified shape)"},
    {"bgq:512", "4x4x4x4x2 torus, one midplane (verified shape)"},
    {"bgq:1024", "4x4x4x8x2, D mesh as in ALCF's default queue (verified shape)"},
    {"bgq:2048", "4x4x8x8x2 torus (verified shape)"},
    {"bgq:4096", "4x8x8x8x2 torus (assumed shape)"},
    {"bgq:8192", "4x4x16x16x2 torus (assumed shape)"},
    {"bgq:16384", "4x8x16x16x2 torus (assumed shape)"},
    {"bgq:32768", "8x8x16x16x2, B mesh (assumed shape)"},
    {"bgq:mira", "8x12x16x16x2 torus, full Mira (verified shape)"},
    {"dragonfly:theta", "CODES Theta model: 9 groups of 6x16 routers, 4 nodes each (verified), 30 LNET (assumed places)"},
    {"dragonfly:edison", "15 groups of 6x16 routers (assumed), 56 LNET (assumed)"},
    {"fattree:k=16,levels=3", "k-ary 3-level, D-mod-k, 2 gateways on one leaf per pod"},
    {"fattree:k=16,levels=2", "k-ary 2-level, D-mod-k, 2 gateways on 2 leaves"},
    {"fattree:k=36,levels=3", "Summit-sized radix, 3 levels"},
    {"flat:64", "one switch, 1 gateway per 64 nodes"},
    {"cluster:nodes=4,ions=2", "scripts/cluster.sh up --io-nodes 2 at its default rates"},
};

int ferry_topo_presets(const ferry_topo_preset **list) {
  if (list) *list = presets;
  return (int)(sizeof presets / sizeof presets[0]);
}

int ferry_topo__finish(ferry_topo_machine *m, char *err, size_t errlen) {
  if (m->ngw < 1) {
    ferry_topo__seterr(err, errlen, "machine has no gateway");
    return -EINVAL;
  }
  for (int g = 1; g < m->ngw; g++)
    if (m->gw_node[g] <= m->gw_node[g - 1]) {
      ferry_topo__seterr(err, errlen, "gateways must be distinct and ascending");
      return -EINVAL;
    }
  m->ngroups = 0;
  for (int g = 0; g < m->ngw; g++) {
    if (m->gw_group[g] < 0 || (g && m->gw_group[g] < m->gw_group[g - 1])) {
      ferry_topo__seterr(err, errlen, "gateway groups must be ascending from 0");
      return -EINVAL;
    }
    if (m->gw_group[g] + 1 > m->ngroups) m->ngroups = m->gw_group[g] + 1;
  }
  if (!m->gw_noun) m->gw_noun = "gateway";
  if (!m->group_noun) m->group_noun = "gateway group";
  m->node_gw = malloc((size_t)m->nnodes * sizeof *m->node_gw);
  m->gw_proxy = malloc((size_t)m->ngw * sizeof *m->gw_proxy);
  m->compute = malloc((size_t)m->nnodes * sizeof *m->compute);
  if (!m->node_gw || !m->gw_proxy || !m->compute) return -ENOMEM;
  for (int v = 0; v < m->nnodes; v++) m->node_gw[v] = -1;
  for (int g = 0; g < m->ngw; g++) m->node_gw[m->gw_node[g]] = g;
  m->ncompute = 0;
  for (int v = 0; v < m->nnodes; v++)
    if (!m->service[v]) m->compute[m->ncompute++] = v;
  if (m->ncompute == 0) {
    ferry_topo__seterr(err, errlen, "machine has no compute node");
    return -EINVAL;
  }
  /* A gateway that is a compute node always writes through itself. */
  for (int g = 0; g < m->ngw; g++)
    if (!m->service[m->gw_node[g]]) m->default_gw[m->gw_node[g]] = g;
  for (int v = 0; v < m->nnodes; v++)
    if (!m->service[v] && (m->default_gw[v] < 0 || m->default_gw[v] >= m->ngw)) {
      ferry_topo__seterr(err, errlen, "node %d has no default gateway", v);
      return -EINVAL;
    }
  /* Proxies: nearest compute node, ties to the lowest id. Service gateways
   * are few (tens), so O(ngw x ncompute) is cheap. */
  for (int g = 0; g < m->ngw; g++) {
    int gn = m->gw_node[g];
    if (!m->service[gn]) {
      m->gw_proxy[g] = gn;
      continue;
    }
    int best = -1, bd = 1 << 30;
    for (int k = 0; k < m->ncompute; k++) {
      int d = m->ops->distance(m, m->compute[k], gn);
      if (d < bd) bd = d, best = m->compute[k];
    }
    m->gw_proxy[g] = best;
  }
  return 0;
}

int ferry_topo_create(const char *spec, ferry_topo_machine **out, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (err && errlen) err[0] = '\0';
  if (!spec || !out) return -EINVAL;
  if (strlen(spec) >= FERRY_TOPO_SPEC_MAX) {
    ferry_topo__seterr(err, errlen, "spec too long");
    return -EINVAL;
  }
  const char *colon = strchr(spec, ':');
  if (!colon) {
    ferry_topo__seterr(err, errlen, "spec '%s': want model:args (bgq, torus, dragonfly, fattree, flat, cluster)",
                       spec);
    return -EINVAL;
  }
  ferry_topo_machine *m = calloc(1, sizeof *m);
  if (!m) return -ENOMEM;
  snprintf(m->spec, sizeof m->spec, "%s", spec);
  size_t kl = (size_t)(colon - spec);
  const char *args = colon + 1;
  int rc;
  if (kl == 3 && strncmp(spec, "bgq", 3) == 0)
    rc = ferry_topo__build_torus(m, args, 1, err, errlen);
  else if (kl == 5 && strncmp(spec, "torus", 5) == 0)
    rc = ferry_topo__build_torus(m, args, 0, err, errlen);
  else if (kl == 9 && strncmp(spec, "dragonfly", 9) == 0)
    rc = ferry_topo__build_dragonfly(m, args, err, errlen);
  else if (kl == 7 && strncmp(spec, "fattree", 7) == 0)
    rc = ferry_topo__build_fattree(m, args, err, errlen);
  else if (kl == 4 && strncmp(spec, "flat", 4) == 0)
    rc = ferry_topo__build_flat(m, args, err, errlen);
  else if (kl == 7 && strncmp(spec, "cluster", 7) == 0)
    rc = ferry_topo__build_cluster(m, args, err, errlen);
  else {
    ferry_topo__seterr(err, errlen, "unknown model '%.*s'", (int)kl, spec);
    rc = -EINVAL;
  }
  if (rc == 0) rc = ferry_topo__finish(m, err, errlen);
  if (rc != 0) {
    if (rc == -ENOMEM && err && errlen && !err[0]) ferry_topo__seterr(err, errlen, "out of memory");
    ferry_topo_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

void ferry_topo_free(ferry_topo_machine *m) {
  if (!m) return;
  if (m->ops && m->ops->destroy) m->ops->destroy(m->impl);
  free(m->link_bw);
  free(m->gw_node);
  free(m->gw_group);
  free(m->gw_proxy);
  free(m->node_gw);
  free(m->default_gw);
  free(m->service);
  free(m->compute);
  free(m);
}

const char *ferry_topo_spec(const ferry_topo_machine *m) { return m->spec; }
const char *ferry_topo_describe(const ferry_topo_machine *m) { return m->desc; }
ferry_topo_kind ferry_topo_kind_of(const ferry_topo_machine *m) { return m->kind; }
int ferry_topo_nodes(const ferry_topo_machine *m) { return m->nnodes; }
int ferry_topo_compute_nodes(const ferry_topo_machine *m) { return m->ncompute; }

int ferry_topo_compute_node(const ferry_topo_machine *m, int k) {
  return (k >= 0 && k < m->ncompute) ? m->compute[k] : -1;
}

int ferry_topo_is_service(const ferry_topo_machine *m, int node) {
  return (node >= 0 && node < m->nnodes) ? m->service[node] : 0;
}

int ferry_topo_rank_node(const ferry_topo_machine *m, long rank, int ranks_per_node) {
  if (rank < 0 || ranks_per_node < 1) return -1;
  long k = rank / ranks_per_node;
  return k < m->ncompute ? m->compute[k] : -1;
}

int ferry_topo_ndims(const ferry_topo_machine *m) { return m->ndims; }

int ferry_topo_dim_size(const ferry_topo_machine *m, int dim) {
  if (dim < 0 || dim >= m->ndims) return -EINVAL;
  return m->ops->dim_size(m, dim);
}

int ferry_topo_coords(const ferry_topo_machine *m, int node, int *coords) {
  if (node < 0 || node >= m->nnodes) return -EINVAL;
  return m->ops->coords(m, node, coords);
}

int ferry_topo_node_at(const ferry_topo_machine *m, const int *coords) {
  return m->ops->node_at(m, coords);
}

int ferry_topo_links(const ferry_topo_machine *m) { return m->nlinks; }

double ferry_topo_link_bandwidth(const ferry_topo_machine *m, int link) {
  return (link >= 0 && link < m->nlinks) ? m->link_bw[link] : 0.0;
}

int ferry_topo_link_ends(const ferry_topo_machine *m, int link, int *from, int *to) {
  int f = -1, t = -1;
  if (link < 0 || link >= m->nlinks) return -EINVAL;
  int exists;
  if (link >= m->nnet) {
    f = m->gw_node[link - m->nnet];
    exists = 1;
  } else {
    exists = m->ops->link_ends(m, link, &f, &t);
  }
  if (from) *from = f;
  if (to) *to = t;
  return exists;
}

void ferry_topo_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len) {
  if (!buf || len == 0) return;
  if (link < 0 || link >= m->nlinks) {
    snprintf(buf, len, "link?%d", link);
  } else if (link >= m->nnet) {
    int g = link - m->nnet;
    snprintf(buf, len, "gw%d(node %d)->io", g, m->gw_node[g]);
  } else {
    m->ops->link_name(m, link, buf, len);
  }
}

double ferry_topo_hop_latency(const ferry_topo_machine *m) { return m->hop_latency; }

int ferry_topo_gateways(const ferry_topo_machine *m) { return m->ngw; }

int ferry_topo_gateway_node(const ferry_topo_machine *m, int gw) {
  return (gw >= 0 && gw < m->ngw) ? m->gw_node[gw] : -1;
}

int ferry_topo_gateway_of_node(const ferry_topo_machine *m, int node) {
  return (node >= 0 && node < m->nnodes) ? m->node_gw[node] : -1;
}

int ferry_topo_gateway_exit_link(const ferry_topo_machine *m, int gw) {
  return (gw >= 0 && gw < m->ngw) ? m->nnet + gw : -1;
}

int ferry_topo_gateway_group(const ferry_topo_machine *m, int gw) {
  return (gw >= 0 && gw < m->ngw) ? m->gw_group[gw] : -1;
}

int ferry_topo_gateway_groups(const ferry_topo_machine *m) { return m->ngroups; }
const char *ferry_topo_gateway_noun(const ferry_topo_machine *m) { return m->gw_noun; }
const char *ferry_topo_group_noun(const ferry_topo_machine *m) { return m->group_noun; }

int ferry_topo_gateway_proxy(const ferry_topo_machine *m, int gw) {
  return (gw >= 0 && gw < m->ngw) ? m->gw_proxy[gw] : -1;
}

int ferry_topo_default_gateway(const ferry_topo_machine *m, int node) {
  return (node >= 0 && node < m->nnodes) ? m->default_gw[node] : -1;
}
