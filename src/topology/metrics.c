/* Costing a flow set: route every flow, accumulate per-link, per-gateway and
 * per-group load, and derive the bottleneck floor, the resource that sets
 * it, and the fair-share estimate. */
#include "topology/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ferry_topo_metrics_free(ferry_topo_metrics *mt) {
  if (!mt) return;
  free(mt->link_bytes);
  free(mt->gw_bytes);
  free(mt->gw_msgs);
  free(mt->group_bytes);
  free(mt->group_msgs);
  mt->link_bytes = mt->gw_bytes = mt->gw_msgs = mt->group_bytes = mt->group_msgs = NULL;
}

void ferry_topo_binding_name(const ferry_topo_machine *m, const ferry_topo_binding *b, char *buf, size_t len) {
  if (!buf || !len) return;
  int first = -1, n = 0;
  switch (b->kind) {
  case FERRY_TOPO_BIND_LINK: ferry_topo_link_name(m, b->id, buf, len); return;
  case FERRY_TOPO_BIND_EXIT:
    snprintf(buf, len, "%s %d (node %d) link to its %s", m->gw_noun, b->id, m->gw_node[b->id], m->group_noun);
    return;
  case FERRY_TOPO_BIND_RECEIVER: snprintf(buf, len, "node %d (messages)", b->id); return;
  case FERRY_TOPO_BIND_GROUP_BYTES:
  case FERRY_TOPO_BIND_GROUP_MSGS:
    for (int g = 0; g < m->ngw; g++)
      if (m->gw_group[g] == b->id) n++, first = first < 0 ? g : first;
    if (n == 2)
      snprintf(buf, len, "%s %d (%ss %d+%d) %s", m->group_noun, b->id, m->gw_noun, first, first + 1,
               b->kind == FERRY_TOPO_BIND_GROUP_BYTES ? "bytes" : "requests");
    else
      snprintf(buf, len, "%s %d (%d %s%s from %d) %s", m->group_noun, b->id, n, m->gw_noun, n == 1 ? "" : "s", first,
               b->kind == FERRY_TOPO_BIND_GROUP_BYTES ? "bytes" : "requests");
    return;
  default: snprintf(buf, len, "-");
  }
}

/* The largest of the floor's terms; ties keep the earlier kind. */
static void bind_max(ferry_topo_binding *b, ferry_topo_bind_kind kind, int id, double load, double cap) {
  double t = cap > 0 ? load / cap : 0;
  if (t > b->time) *b = (ferry_topo_binding){kind, id, load, cap, t};
}

/* The routes fair sharing runs on: flow f's links rl[ro[f]..ro[f+1]), its
 * bytes fb[f] and weight (its requests) fw[f]. */
typedef struct {
  size_t *ro;
  int *rl;
  size_t rn, rcap;
  double *fb, *fw;
} routes_t;

/* Routes every flow and adds its load to links, gateways, groups and
 * receivers (recv: NULL when requests cost nothing); keeps the routes for
 * fair sharing when r is given. `gl`: group capacity is one more link per
 * group. */
static int route_flows(const ferry_topo_machine *m, const ferry_topo_flow *flows, size_t nf, int gl,
                       ferry_topo_metrics *out, double *recv, routes_t *r) {
  int links[FERRY_TOPO_MAX_ROUTE + 2];
  for (size_t f = 0; f < nf; f++) {
    const ferry_topo_flow *fl = &flows[f];
    if (fl->src < 0 || fl->src >= m->nnodes || fl->dst < 0 || fl->dst >= m->nnodes || fl->gw >= m->ngw ||
        !(fl->bytes >= 0) || !(fl->msgs >= 0))
      return -EINVAL;
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
      out->group_bytes[m->gw_group[fl->gw]] += fl->bytes;
      out->group_msgs[m->gw_group[fl->gw]] += fl->msgs;
      if (gl) links[kx++] = m->nlinks + m->gw_group[fl->gw];
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
    if (r) {
      r->ro[f] = r->rn;
      if (r->rn + (size_t)kx > r->rcap) {
        while (r->rn + (size_t)kx > r->rcap) r->rcap *= 2;
        int *n2 = realloc(r->rl, r->rcap * sizeof *n2);
        if (!n2) return -ENOMEM;
        r->rl = n2;
      }
      memcpy(r->rl + r->rn, links, (size_t)kx * sizeof *links);
      r->rn += (size_t)kx;
      r->fb[f] = fl->bytes;
      r->fw[f] = fl->msgs;
    }
  }
  if (r) r->ro[nf] = r->rn;
  out->avg_hops = out->total_bytes > 0 ? out->hop_bytes / out->total_bytes : 0;
  return 0;
}

/* The bottleneck floor (out->t_model) from the loads, and the resource that
 * sets it (out->bind). Returns the time the binding requests take. */
static double floor_of(const ferry_topo_machine *m, const ferry_topo_cost_params *cp, const double *recv,
                       ferry_topo_metrics *out) {
  /* the bottleneck: largest bytes/bandwidth, ties to the lowest link id */
  double best = 0;
  for (int l = 0; l < m->nlinks; l++) {
    if (out->link_bytes[l] <= 0) continue;
    double u = out->link_bytes[l] / m->link_bw[l];
    if (u > best) best = u, out->max_link = l;
  }
  out->max_link_load = out->max_link >= 0 ? out->link_bytes[out->max_link] : 0;
  out->t_links = best;
  ferry_topo_binding *b = &out->bind;
  if (out->max_link >= 0) {
    int ex = out->max_link >= m->nnet;
    bind_max(b, ex ? FERRY_TOPO_BIND_EXIT : FERRY_TOPO_BIND_LINK, ex ? out->max_link - m->nnet : out->max_link,
             out->max_link_load, m->link_bw[out->max_link]);
  }
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
    int at = -1;
    for (int v = 0; v < m->nnodes; v++)
      if (recv[v] > mx) mx = recv[v], at = v;
    out->t_msgs = mx * cp->msg_cost;
    if (at >= 0) bind_max(b, FERRY_TOPO_BIND_RECEIVER, at, mx, 1 / cp->msg_cost);
  }
  for (int q = 0; q < m->ngroups; q++) {
    if (cp->group_bw > 0) {
      double t = out->group_bytes[q] / cp->group_bw;
      if (t > out->t_group_bytes) out->t_group_bytes = t;
      bind_max(b, FERRY_TOPO_BIND_GROUP_BYTES, q, out->group_bytes[q], cp->group_bw);
    }
    if (cp->group_msg_cost > 0) {
      double t = out->group_msgs[q] * cp->group_msg_cost;
      if (t > out->t_group_msgs) out->t_group_msgs = t;
      bind_max(b, FERRY_TOPO_BIND_GROUP_MSGS, q, out->group_msgs[q], 1 / cp->group_msg_cost);
    }
  }
  /* the requests that bind are served one after another: the larger term */
  double serve = out->t_msgs > out->t_group_msgs ? out->t_msgs : out->t_group_msgs;
  double flow = out->t_links > out->t_group_bytes ? out->t_links : out->t_group_bytes;
  out->t_model = (flow > serve ? flow : serve) + out->t_latency;
  return serve;
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
  out->ngroups = m->ngroups;
  int rc = -ENOMEM;
  /* group capacity takes part in fair sharing as one more link per group */
  int gl = cp->group_bw > 0, NL = m->nlinks + (gl ? m->ngroups : 0);
  out->link_bytes = calloc((size_t)m->nlinks, sizeof *out->link_bytes);
  out->gw_bytes = calloc((size_t)m->ngw, sizeof *out->gw_bytes);
  out->gw_msgs = calloc((size_t)m->ngw, sizeof *out->gw_msgs);
  out->group_bytes = calloc((size_t)m->ngroups, sizeof *out->group_bytes);
  out->group_msgs = calloc((size_t)m->ngroups, sizeof *out->group_msgs);
  double *fbw = cp->fair_share ? malloc((size_t)NL * sizeof *fbw) : NULL;
  double *recv = cp->msg_cost > 0 ? calloc((size_t)m->nnodes, sizeof *recv) : NULL;
  routes_t r = {.ro = malloc((nf + 1) * sizeof *r.ro), .rcap = nf * 4 + 64};
  if (cp->fair_share) {
    r.rl = malloc(r.rcap * sizeof *r.rl);
    r.fb = malloc((nf ? nf : 1) * sizeof *r.fb);
    r.fw = malloc((nf ? nf : 1) * sizeof *r.fw);
  }
  if (!out->link_bytes || !out->gw_bytes || !out->gw_msgs || !out->group_bytes || !out->group_msgs ||
      (cp->msg_cost > 0 && !recv) || !r.ro || (cp->fair_share && (!r.rl || !r.fb || !r.fw || !fbw)))
    goto fail;
  if ((rc = route_flows(m, flows, nf, gl, out, recv, cp->fair_share ? &r : NULL))) goto fail;
  double serve = floor_of(m, cp, recv, out);
  if (cp->fair_share) {
    for (int l = 0; l < NL; l++) fbw[l] = l < m->nlinks ? m->link_bw[l] : cp->group_bw;
    double fs = ferry_topo__fair_share(NL, fbw, nf, r.ro, r.rl, r.fb, r.fw, cp->max_epochs > 0 ? cp->max_epochs : 100000,
                                       &out->fair_epochs);
    rc = -ENOMEM;
    if (fs < 0) goto fail;
    out->t_fair = (fs > serve ? fs : serve) + out->t_latency;
  }
  rc = 0;
fail:
  free(fbw);
  free(recv);
  free(r.ro);
  free(r.rl);
  free(r.fb);
  free(r.fw);
  if (rc) ferry_topo_metrics_free(out);
  return rc;
}
