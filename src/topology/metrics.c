/* Costing a flow set: route every flow, accumulate per-link and per-gateway
 * load, and derive the bottleneck floor and the fair-share estimate. */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ferry_topo_metrics_free(ferry_topo_metrics *mt) {
  if (!mt) return;
  free(mt->link_bytes);
  free(mt->gw_bytes);
  free(mt->gw_msgs);
  mt->link_bytes = mt->gw_bytes = mt->gw_msgs = NULL;
}

int ferry_topo_evaluate(const ferry_topo_machine *m, const ferry_topo_flow *flows, size_t nf,
                        const ferry_topo_cost_params *cp, ferry_topo_metrics *out) {
  if (!m || !out || (nf && !flows)) return -EINVAL;
  ferry_topo_cost_params dcp = {0};
  if (!cp) cp = &dcp;
  memset(out, 0, sizeof *out);
  out->nflows = nf;
  out->nlinks = m->nlinks;
  out->ngw = m->ngw;
  out->max_link = -1;
  out->max_gw_bytes_gw = out->max_gw_msgs_gw = -1;
  out->t_fair = -1;
  int rc = -ENOMEM;
  out->link_bytes = calloc((size_t)m->nlinks, sizeof *out->link_bytes);
  out->gw_bytes = calloc((size_t)m->ngw, sizeof *out->gw_bytes);
  out->gw_msgs = calloc((size_t)m->ngw, sizeof *out->gw_msgs);
  double *recv = cp->msg_cost > 0 ? calloc((size_t)m->nnodes, sizeof *recv) : NULL;
  size_t *ro = malloc((nf + 1) * sizeof *ro);
  size_t rcap = nf * 4 + 64, rn = 0;
  int *rl = cp->fair_share ? malloc(rcap * sizeof *rl) : NULL;
  double *fb = cp->fair_share ? malloc((nf ? nf : 1) * sizeof *fb) : NULL;
  double *fw = cp->fair_share ? malloc((nf ? nf : 1) * sizeof *fw) : NULL;
  if (!out->link_bytes || !out->gw_bytes || !out->gw_msgs || (cp->msg_cost > 0 && !recv) || !ro ||
      (cp->fair_share && (!rl || !fb || !fw)))
    goto fail;

  int links[FERRY_TOPO_MAX_ROUTE + 1];
  for (size_t f = 0; f < nf; f++) {
    const ferry_topo_flow *fl = &flows[f];
    if (fl->src < 0 || fl->src >= m->nnodes || fl->dst < 0 || fl->dst >= m->nnodes || fl->gw >= m->ngw ||
        !(fl->bytes >= 0) || !(fl->msgs >= 0)) {
      rc = -EINVAL;
      goto fail;
    }
    int k = m->ops->route(m, fl->src, fl->dst, links);
    int kx = k;
    if (fl->gw >= 0) links[kx++] = m->nnet + fl->gw;
    out->total_bytes += fl->bytes;
    out->total_msgs += fl->msgs;
    out->hop_bytes += fl->bytes * k;
    if (fl->bytes > 0 && k > out->max_hops) out->max_hops = k;
    for (int j = 0; j < kx; j++) out->link_bytes[links[j]] += fl->bytes;
    if (fl->gw >= 0) {
      out->gw_bytes[fl->gw] += fl->bytes;
      out->gw_msgs[fl->gw] += fl->msgs;
    }
    /* routed through a gateway node on the way somewhere else */
    for (int j = 0; j + 1 < k; j++) {
      int from, to;
      if (m->ops->link_ends(m, links[j], &from, &to) > 0 && to >= 0 && to != fl->dst && m->node_gw[to] >= 0) {
        out->transit_bytes += fl->bytes;
        out->transit_msgs += fl->msgs;
      }
    }
    if (recv) recv[fl->dst] += fl->msgs;
    if (cp->fair_share) {
      ro[f] = rn;
      if (rn + (size_t)kx > rcap) {
        while (rn + (size_t)kx > rcap) rcap *= 2;
        int *n2 = realloc(rl, rcap * sizeof *n2);
        if (!n2) goto fail;
        rl = n2;
      }
      memcpy(rl + rn, links, (size_t)kx * sizeof *links);
      rn += (size_t)kx;
      fb[f] = fl->bytes;
      fw[f] = fl->msgs;
    }
  }
  if (cp->fair_share) ro[nf] = rn;
  out->avg_hops = out->total_bytes > 0 ? out->hop_bytes / out->total_bytes : 0;

  /* the bottleneck: largest bytes/bandwidth, ties to the lowest link id */
  double best = 0;
  for (int l = 0; l < m->nlinks; l++) {
    if (out->link_bytes[l] <= 0) continue;
    double u = out->link_bytes[l] / m->link_bw[l];
    if (u > best) best = u, out->max_link = l;
  }
  out->max_link_load = out->max_link >= 0 ? out->link_bytes[out->max_link] : 0;
  out->t_links = best;
  for (int g = 0; g < m->ngw; g++) {
    if (out->gw_bytes[g] > out->max_gw_bytes || (out->max_gw_bytes_gw < 0 && out->gw_bytes[g] > 0))
      out->max_gw_bytes = out->gw_bytes[g], out->max_gw_bytes_gw = g;
    if (out->gw_msgs[g] > out->max_gw_msgs || (out->max_gw_msgs_gw < 0 && out->gw_msgs[g] > 0))
      out->max_gw_msgs = out->gw_msgs[g], out->max_gw_msgs_gw = g;
  }
  double lat = cp->hop_latency > 0 ? cp->hop_latency : m->hop_latency;
  out->t_latency = out->max_hops * lat;
  if (recv) {
    double mx = 0;
    for (int v = 0; v < m->nnodes; v++)
      if (recv[v] > mx) mx = recv[v];
    out->t_msgs = mx * cp->msg_cost;
  }
  out->t_model = (out->t_links > out->t_msgs ? out->t_links : out->t_msgs) + out->t_latency;
  if (cp->fair_share) {
    double fs = ferry_topo__fair_share(m->nlinks, m->link_bw, nf, ro, rl, fb, fw,
                                       cp->max_epochs > 0 ? cp->max_epochs : 100000, &out->fair_epochs);
    if (fs < 0) goto fail;
    out->t_fair = (fs > out->t_msgs ? fs : out->t_msgs) + out->t_latency;
  }
  free(recv);
  free(ro);
  free(rl);
  free(fb);
  free(fw);
  return 0;
fail:
  free(recv);
  free(ro);
  free(rl);
  free(fb);
  free(fw);
  ferry_topo_metrics_free(out);
  return rc;
}
