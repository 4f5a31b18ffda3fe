/* Assigning, costing and simulating one I/O row. */
#define _POSIX_C_SOURCE 200809L
#include "io_rows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const io_row_def io_rows_all[] = {
    {"default", FERRY_TOPO_ASSIGN_DEFAULT, PATH_DIRECT, 0},
    {"route-aware", FERRY_TOPO_ASSIGN_ROUTE_AWARE, PATH_SEED, 0},
    {"route-aware-coalesced", FERRY_TOPO_ASSIGN_ROUTE_AWARE, PATH_SEED_COALESCED, 0},
    {"load-aware", FERRY_TOPO_ASSIGN_LOAD_AWARE, PATH_SEED, 0},
    {"load-aware-coalesced", FERRY_TOPO_ASSIGN_LOAD_AWARE, PATH_SEED_COALESCED, 0},
    {"ferry-forward", ASSIGN_ADVISED, PATH_FORWARD, 0},
    {"node-request", FERRY_TOPO_ASSIGN_DEFAULT, PATH_NODE_REQUEST, 1},
};
const int io_nrows = (int)(sizeof io_rows_all / sizeof io_rows_all[0]);

double io_row_time(const io_row *r) { return r->t_sim >= 0 ? r->t_sim : r->t_floor; }

/* The seed's memory cap (iotree.cxx): maxWeight = heap / (2 x the bytes a
 * moved node sends) when coalescing, 1000 otherwise; a bridge then takes
 * at most maxWeight - 1 moved nodes. The seed's walk keeps that count (of
 * the largest node); load-aware takes the same memory in bytes, so a
 * bridge holds more light nodes than heavy ones. */
static int mem_cap(const io_cfg *c, path_kind k, const double *nb, int n) {
  if (c->mem_cap >= 0) return c->mem_cap;
  if (k != PATH_SEED_COALESCED) return 999;
  double mx = 0;
  for (int i = 0; i < n; i++)
    if (nb[i] > mx) mx = nb[i];
  double cap = mx > 0 ? floor(c->gw_mem / (2 * mx)) - 1 : 999;
  return cap < 1 ? 1 : cap > 999 ? 999 : (int)cap;
}

int io_row_run(const io_cfg *c, const io_row_def *d, double wall_before, io_row *out) {
  const ferry_topo_machine *m = c->m;
  int n = ferry_topo_compute_nodes(m), rc = -ENOMEM, said = 0;
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", d->name);
  out->path = d->path;
  out->what_if = d->what_if;
  out->t_sim = -1;
  int *gw = malloc((size_t)n * sizeof *gw);
  double *nb = malloc((size_t)n * sizeof *nb), *nc = malloc((size_t)n * sizeof *nc);
  double *one = malloc((size_t)n * sizeof *one);
  path_plan plan;
  memset(&plan, 0, sizeof plan);
  if (!gw || !nb || !nc || !one) goto out;
  for (int k = 0; k < n; k++) {
    nb[k] = writers_node_bytes(c->w, k);
    nc[k] = writers_node_calls(c->w, k);
    one[k] = nb[k] > 0;
  }
  ferry_topo_assign_params ap = {0};
  ap.node_bytes = nb;
  ap.node_msgs = nc;
  ap.moved_msgs = d->path == PATH_SEED_COALESCED ? one : nc;
  ap.cost = &c->cost;
  ap.slack = c->slack;
  ap.mem_cap = d->path == PATH_FORWARD ? 0 : mem_cap(c, d->path, nb, n);
  if (d->algo == FERRY_TOPO_ASSIGN_LOAD_AWARE && d->path == PATH_SEED_COALESCED && c->mem_cap < 0)
    ap.mem_cap = 0, ap.mem_cap_bytes = c->gw_mem / 2;
  if (d->algo == ASSIGN_ADVISED) {
    ferry_topo_advice adv;
    if ((rc = ferry_topo_advise(m, &ap, c->min_gain, gw, &adv))) goto out;
    snprintf(out->assign, sizeof out->assign, "%s", ferry_topo_assign_name(adv.cand[adv.best].algo));
    snprintf(out->why, sizeof out->why, "%s", adv.why);
  } else {
    if ((rc = ferry_topo_assign(m, (ferry_topo_assign_algo)d->algo, &ap, gw, NULL))) goto out;
    snprintf(out->assign, sizeof out->assign, "%s", ferry_topo_assign_name((ferry_topo_assign_algo)d->algo));
  }
  for (int k = 0; k < n; k++) out->moved += gw[k] != ferry_topo_default_gateway(m, ferry_topo_compute_node(m, k));
  if (d->path == PATH_DIRECT || d->path == PATH_NODE_REQUEST) out->moved = 0;
  if ((rc = path_build(m, c->w, gw, d->path, &plan))) goto out;

  ferry_topo_cost_params cp = c->cost;
  cp.fair_share = 0;
  ferry_topo_metrics mt;
  if ((rc = ferry_topo_evaluate(m, plan.flows, plan.nflows, &cp, &mt))) goto out;
  /* hops a byte travels from its writer to the bridge: the transfers' and
   * the shippers' routes together */
  out->avg_hops = c->w->total > 0 ? mt.hop_bytes / c->w->total : 0;
  out->max_hops = mt.max_hops;
  out->max_gw_bytes = mt.max_gw_bytes;
  double sum = 0, qm = 0, qb = 0;
  for (int g = 0; g < mt.ngw; g++) sum += mt.gw_bytes[g];
  out->mean_gw_bytes = sum / mt.ngw;
  for (int q = 0; q < mt.ngroups; q++) {
    if (mt.group_msgs[q] > out->max_group_msgs) out->max_group_msgs = mt.group_msgs[q];
    if (mt.group_bytes[q] > out->max_group_bytes) out->max_group_bytes = mt.group_bytes[q];
    qm += mt.group_msgs[q];
    qb += mt.group_bytes[q];
  }
  out->mean_group_msgs = qm / mt.ngroups;
  out->mean_group_bytes = qb / mt.ngroups;
  out->transit_msgs = mt.transit_msgs;
  out->t_floor = mt.t_model;
  out->bind = mt.bind;
  out->bytes = c->w->total;
  ferry_topo_metrics_free(&mt);

  if (c->simulate) {
    sim_plan sp = {plan.nship, plan.ship, plan.nbatch, plan.batch, plan.nxfer, plan.xfer, c->pull,
                   c->cost.group_msg_cost, c->cost.group_bw, 0, out->name, wall_before};
    sim_result sr;
    char err[256];
    if ((rc = sim_paths_run(m, &sp, &sr, err, sizeof err))) {
      fprintf(stderr, "ferry-topo: %s: %s\n", out->name, err);
      said = 1;
      goto out;
    }
    out->t_sim = sr.t_sim;
    out->wall = sr.wall;
    out->comms = sr.nmsgs;
  }
  rc = 0;
out:
  /* a row that cannot be costed says why (its own message is above) */
  if (rc && !said)
    fprintf(stderr, "ferry-topo: %s: %s\n", out->name, strerror(-rc));
  path_free(&plan);
  free(gw);
  free(nb);
  free(nc);
  free(one);
  return rc;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int io_rows_run(const io_cfg *c, const char *cmd, const io_row_def *defs, int n,
                int (*want)(const io_row_def *d, const void *arg), const void *arg, io_row *out) {
  double t0 = wall_now();
  int nr = 0, total = 0;
  for (int i = 0; i < n; i++) total += !want || want(&defs[i], arg);
  for (int i = 0; i < n; i++) {
    if (want && !want(&defs[i], arg)) continue;
    double el = wall_now() - t0;
    if (el >= 10)
      fprintf(stderr, "ferry-topo %s: row %d of %d (%s), %.0f s so far\n", cmd, nr + 1, total, defs[i].name, el);
    if (io_row_run(c, &defs[i], el, &out[nr])) return -1;
    nr++;
  }
  return nr;
}
