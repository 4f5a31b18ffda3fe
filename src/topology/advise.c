/* Which gateway assignment a set of writers should use: the default, the
 * seed's route-aware walk and load-aware are each costed on the same flows
 * (a node's bytes and requests to its gateway), and a reassignment is
 * advised only where the floor predicts a gain of at least min_gain over
 * the default, so a model's noise never moves anyone. The same decision
 * serves ferry-topo advise and the forward strategy's plan. */
#include "topology/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ferry_topo_assign_algo cand_algo[FERRY_TOPO_ADVICE_CANDIDATES] = {
    FERRY_TOPO_ASSIGN_DEFAULT, FERRY_TOPO_ASSIGN_ROUTE_AWARE, FERRY_TOPO_ASSIGN_LOAD_AWARE};

/* Costs one assignment: each node's bytes to its gateway, its requests
 * (moved_msgs when not on its default). */
static int cost(const ferry_topo_machine *m, int n, const int *nodes, const int *def, const int *gw,
                const ferry_topo_assign_params *p, ferry_topo_flow *fl, ferry_topo_choice *c) {
  for (int i = 0; i < n; i++) {
    double b = p->node_bytes ? p->node_bytes[i] : 1.0;
    double r = p->node_msgs ? p->node_msgs[i] : 1.0;
    if (gw[i] != def[i] && p->moved_msgs) r = p->moved_msgs[i];
    fl[i] = (ferry_topo_flow){nodes[i], m->gw_node[gw[i]], gw[i], b, r};
  }
  ferry_topo_cost_params cp = {0};
  if (p->cost) cp = *p->cost;
  cp.fair_share = 0;
  ferry_topo_metrics mt;
  int rc = ferry_topo_evaluate(m, fl, (size_t)n, &cp, &mt);
  if (rc) return rc;
  c->t_model = mt.t_model;
  c->bind = mt.bind;
  c->max_gw_bytes = mt.max_gw_bytes;
  /* the mean over all gateways: what perfect balance would give each */
  double sum = 0;
  for (int g = 0; g < m->ngw; g++) sum += mt.gw_bytes[g];
  c->mean_gw_bytes = sum / m->ngw;
  c->moved = 0;
  for (int i = 0; i < n; i++) c->moved += gw[i] != def[i];
  ferry_topo_metrics_free(&mt);
  return 0;
}

int ferry_topo_advise(const ferry_topo_machine *m, const ferry_topo_assign_params *p, double min_gain,
                      int *gw_out, ferry_topo_advice *adv) {
  if (!m || !p || !adv) return -EINVAL;
  memset(adv, 0, sizeof *adv);
  if (min_gain <= 0) min_gain = 0.02;
  const int *nodes;
  int n, rc;
  if ((rc = ferry_topo__participants(m, p->nnodes, p->nodes, &nodes, &n))) return rc;
  int *gw = malloc(ferry_topo__sz((long)n * FERRY_TOPO_ADVICE_CANDIDATES) * sizeof *gw);
  ferry_topo_flow *fl = malloc(ferry_topo__sz(n) * sizeof *fl);
  if (!gw || !fl) {
    free(gw);
    free(fl);
    return -ENOMEM;
  }
  for (int k = 0; k < FERRY_TOPO_ADVICE_CANDIDATES && rc == 0; k++) {
    adv->cand[k].algo = cand_algo[k];
    rc = ferry_topo_assign(m, cand_algo[k], p, gw + (size_t)k * n, NULL);
  }
  for (int k = 0; k < FERRY_TOPO_ADVICE_CANDIDATES && rc == 0; k++)
    rc = cost(m, n, nodes, gw, gw + (size_t)k * n, p, fl, &adv->cand[k]);
  if (rc == 0) {
    const ferry_topo_choice *d = &adv->cand[0];
    adv->imbalance = d->mean_gw_bytes > 0 ? d->max_gw_bytes / d->mean_gw_bytes : 1;
    int best = 0;
    for (int k = 1; k < FERRY_TOPO_ADVICE_CANDIDATES; k++)
      if (adv->cand[k].t_model < adv->cand[best].t_model) best = k;
    double gain = d->t_model > 0 ? 1 - adv->cand[best].t_model / d->t_model : 0;
    if (gain < min_gain) best = 0;
    adv->best = best;
    adv->gain = best ? gain : 0;
    if (best)
      snprintf(adv->why, sizeof adv->why, "%s: %.0f %% below default (%s %.2fx the mean)",
               ferry_topo_assign_name(cand_algo[best]), 100 * gain, m->gw_noun, adv->imbalance);
    else
      snprintf(adv->why, sizeof adv->why, "default: no assignment %.0f %% faster (%s %.2fx the mean)",
               100 * min_gain, m->gw_noun, adv->imbalance);
    if (gw_out) memcpy(gw_out, gw + (size_t)best * n, (size_t)n * sizeof *gw);
  }
  free(gw);
  free(fl);
  return rc;
}
