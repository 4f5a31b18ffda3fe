/* ferry-topo's SimGrid back end against closed forms: a ring of 8 with one
 * bridge, a 6x4 torus with 3 bridges (exit-bound, with and without the
 * per-request cost), the 6x4 torus network-bound against the layer's own
 * max-min estimate, and the invariant that with a balanced default and no
 * per-request cost no reassignment beats the default. */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "topology/tcheck.h"

/* Every compute node sends `bytes` in `msgs` messages through the gateway
 * gw[i] (NULL: the default). */
static int split; /* one SimGrid communication per message */

static double simulate(const ferry_topo_machine *m, const int *gw, double bytes, double msgs, double cost,
                       double *t_fair) {
  int n = ferry_topo_compute_nodes(m);
  ferry_topo_flow *fl = malloc((size_t)n * sizeof *fl);
  for (int i = 0; i < n; i++) {
    int v = ferry_topo_compute_node(m, i), g = gw ? gw[i] : ferry_topo_gateway_of_node(m, v);
    if (g < 0) g = ferry_topo_default_gateway(m, v);
    fl[i] = (ferry_topo_flow){v, ferry_topo_gateway_node(m, g), g, bytes, msgs};
  }
  if (t_fair) {
    ferry_topo_cost_params cp = {.fair_share = 1};
    ferry_topo_metrics mt;
    CHECK_INT(ferry_topo_evaluate(m, fl, (size_t)n, &cp, &mt), 0);
    *t_fair = mt.t_fair;
    ferry_topo_metrics_free(&mt);
  }
  sim_params sp = {cost, 0, split};
  sim_result r;
  char err[256];
  int rc = sim_run(m, fl, (size_t)n, &sp, &r, err, sizeof err);
  if (rc) fprintf(stderr, "sim_run: %s\n", err);
  CHECK_INT(rc, 0);
  free(fl);
  return r.t_sim;
}

#define WITHIN_1PCT(a, b) CHECK_NEAR((a) / (b), 1.0, 0.01)

/* Ring of 8, one bridge, exit link effectively infinite: the half-ring tie
 * sends four nodes' flows into the bridge over one link and three over the
 * other, so max-min gives each of the four b/4 and the time is 4B/b. With
 * a per-request cost c = B/b at the bridge: its own request is served at
 * once, three arrive at 3B/b, four at 4B/b, one server: 3 + 3 + 4 = 10 B/b. */
static void ring8(void) {
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=8,bw=1e9,iobw=1e15,lat=1e-9");
  CHECK_INT(ferry_topo_gateways(m), 1);
  double B = 1e6, b = 1e9;
  WITHIN_1PCT(simulate(m, NULL, B, 1, 0, NULL), 4 * B / b);
  WITHIN_1PCT(simulate(m, NULL, B, 1, B / b, NULL), 10 * B / b);
  ferry_topo_free(m);
}

/* 6x4 torus, 3 bridges of 8 nodes, slow exit links (b/10): each bridge's
 * 8 flows share its exit link equally and end together at 8B/(b/10); with
 * 4 requests per node and a cost c each, the 32 requests then queue:
 * 8B/(b/10) + 32c. Fast exits: the torus binds, checked against the
 * layer's max-min estimate. */
static void torus6x4(void) {
  ferry_topo_machine *m = tc_machine("torus:6x4,gwnodes=8,bw=1e9,iobw=1e8,lat=1e-9");
  CHECK_INT(ferry_topo_gateways(m), 3);
  double B = 1e6, io = 1e8, c = 1e-3;
  WITHIN_1PCT(simulate(m, NULL, B, 1, 0, NULL), 8 * B / io);
  WITHIN_1PCT(simulate(m, NULL, B, 4, 0, NULL), 8 * B / io);
  WITHIN_1PCT(simulate(m, NULL, B, 4, c, NULL), 8 * B / io + 32 * c);
  ferry_topo_free(m);

  m = tc_machine("torus:6x4,gwnodes=8,bw=1e9,iobw=1e15,lat=1e-9");
  double fair;
  double t = simulate(m, NULL, B, 1, 0, &fair);
  CHECK(fair > 0);
  WITHIN_1PCT(t, fair);
  ferry_topo_free(m);
}

/* Balanced default, no per-request cost: the busiest exit link already
 * carries exactly its share, so moving nodes can only add to some bridge;
 * neither the seed's walk nor the flat variant may simulate faster. */
static void invariant(void) {
  static const char *specs[] = {"bgq:512", "bgq:512,default=tile", "torus:8x8,gwnodes=8"};
  static const ferry_topo_assign_algo algos[] = {FERRY_TOPO_ASSIGN_ROUTE_AWARE, FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    ferry_topo_machine *m = tc_machine(specs[s]);
    int n = ferry_topo_compute_nodes(m);
    int *gw = malloc((size_t)n * sizeof *gw);
    double t_def = simulate(m, NULL, 4e6, 2, 0, NULL);
    for (size_t a = 0; a < 2; a++) {
      ferry_topo_assign_stats st;
      CHECK_INT(ferry_topo_assign(m, algos[a], NULL, gw, &st), 0);
      double t = simulate(m, gw, 4e6, 2, 0, NULL);
      if (t < t_def * (1 - 1e-6))
        fprintf(stderr, "%s %s: %.9g < default %.9g\n", specs[s], ferry_topo_assign_name(algos[a]), t, t_def);
      CHECK(t >= t_def * (1 - 1e-6));
    }
    free(gw);
    ferry_topo_free(m);
  }
}

/* A flow's messages as one weighted communication give the same times as
 * one communication each, here where flows differ (ring: 3 and 4 per link,
 * two latencies), with and without the per-request cost. */
static void merged_equals_split(void) {
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=8,bw=1e9,iobw=3e9,lat=1e-7");
  for (int c = 0; c < 2; c++) {
    split = 0;
    double merged = simulate(m, NULL, 3e6, 3, c * 1e-4, NULL);
    split = 1;
    double each = simulate(m, NULL, 3e6, 3, c * 1e-4, NULL);
    split = 0;
    CHECK_NEAR(merged / each, 1.0, 1e-6);
  }
  ferry_topo_free(m);
}

int main(void) {
  ring8();
  torus6x4();
  split = 1; /* the closed forms hold message by message too */
  ring8();
  torus6x4();
  split = 0;
  merged_equals_split();
  invariant();
  return tc_done("test_topo_sim");
}
