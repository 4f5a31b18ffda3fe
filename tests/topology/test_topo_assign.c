/* Gateway assignment: the seed's route-aware walk on small rings worked
 * out by hand (visit order, ties, the balance rule, the memory cap), its
 * published rules as invariants (no route through another bridge, moves
 * inside a group, no farther than the default), the
 * refinement on a hand case, and invariants on BG/Q partitions: default
 * balance, never farther than the default, balance of new work, the cap,
 * and refinement never raising the maximum link load above the better of
 * default and route-aware. */
#include <string.h>

#include "topology/tcheck.h"

static void check_assign(const char *spec, ferry_topo_assign_algo algo, int cap, const int *want, int n) {
  ferry_topo_machine *m = tc_machine(spec);
  int gw[64];
  ferry_topo_assign_params p = {0};
  p.mem_cap = cap;
  p.slack = 2;
  CHECK_INT(ferry_topo_compute_nodes(m), n);
  CHECK_INT(ferry_topo_assign(m, algo, &p, gw, NULL), 0);
  int ok = 1;
  for (int i = 0; i < n; i++) ok &= gw[i] == want[i];
  if (!ok) {
    fprintf(stderr, "  %s %s cap %d:", spec, ferry_topo_assign_name(algo), cap);
    for (int i = 0; i < n; i++) fprintf(stderr, " %d", gw[i]);
    fprintf(stderr, "\n");
  }
  CHECK(ok);
  ferry_topo_free(m);
}

static void by_hand(void) {
  /* Ring of 8, bridges at 0 (gw 0) and 4 (gw 1), default {0..3} -> 0,
   * {4..7} -> 1. Nodes 2 and 6 are equally far from both bridges (ties are
   * allowed: "no farther than the default"); 3 and 7 are one hop from the
   * other bridge. Visits in (depth, gateway, node) order:
   *   (1,g0,7): 7 -> g0        loads 1,0  avg 0.5
   *   (1,g1,3): 3 -> g1        loads 1,1  avg 1
   *   (2,g0,2): 2 -> g1 (1<=1) loads 1,2  avg 1.5
   *   (2,g0,6): 6 -> g0 (1<=1.5) */
  static const int ring8[] = {0, 0, 1, 1, 1, 1, 0, 0};
  check_assign("torus:8,gwnodes=4", FERRY_TOPO_ASSIGN_ROUTE_AWARE, 0, ring8, 8);
  /* memory cap of one moved node per bridge: 2 and 6 stay home */
  static const int ring8cap[] = {0, 0, 0, 1, 1, 1, 1, 0};
  check_assign("torus:8,gwnodes=4", FERRY_TOPO_ASSIGN_ROUTE_AWARE, 1, ring8cap, 8);
  static const int ring8def[] = {0, 0, 0, 0, 1, 1, 1, 1};
  check_assign("torus:8,gwnodes=4", FERRY_TOPO_ASSIGN_DEFAULT, 0, ring8def, 8);

  /* Ring of 12, bridges at 0, 4, 8, defaults by nearest bridge with ties to
   * the lowest index: g0 {0,1,2,10,11}, g1 {3,4,5,6}, g2 {7,8,9}. Movers:
   * 2 (tie g0/g1), 6 (tie g1/g2), 10 (tie g2/g0). Visits:
   *   (2,g0,2):  2 -> g1                loads 0,1,0 avg 1/3
   *   (2,g0,10): 10 -> g2 (0 <= 1/3)    loads 0,1,1 avg 2/3
   *   (2,g1,6):  g2 has 1 > 2/3: the balance rule keeps 6 home
   *   (2,g2,6):  still 1 > 2/3 */
  static const int ring12[] = {0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 0};
  check_assign("torus:12,gwnodes=4,default=nearest", FERRY_TOPO_ASSIGN_ROUTE_AWARE, 0, ring12, 12);
  /* Refinement from there: bridge exits carry 3, 5, 4 nodes. The top link
   * is g1's exit; moving 2 back to g0 (2 hops either way) brings the exits
   * to 4, 4, 4; then no move lowers the maximum, and no node has a nearer
   * gateway that keeps links at or below it. */
  static const int ring12r[] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0};
  check_assign("torus:12,gwnodes=4,default=nearest", FERRY_TOPO_ASSIGN_REFINED, 0, ring12r, 12);
}

static double max_link_time(const ferry_topo_machine *m, const int *gw, int n, double w) {
  ferry_topo_flow *fl = malloc((size_t)n * sizeof *fl);
  for (int i = 0; i < n; i++) {
    int v = ferry_topo_compute_node(m, i);
    fl[i] = (ferry_topo_flow){v, ferry_topo_gateway_node(m, gw[i]), gw[i], w, 1};
  }
  ferry_topo_metrics mt;
  ferry_topo_evaluate(m, fl, (size_t)n, NULL, &mt);
  double t = mt.t_links;
  ferry_topo_metrics_free(&mt);
  free(fl);
  return t;
}

static void invariants(const char *spec, int cap) {
  ferry_topo_machine *m = tc_machine(spec);
  int n = ferry_topo_compute_nodes(m), G = ferry_topo_gateways(m);
  int *def = malloc((size_t)n * sizeof *def), *ra = malloc((size_t)n * sizeof *ra),
      *rf = malloc((size_t)n * sizeof *rf);
  double *w = malloc((size_t)n * sizeof *w);
  for (int i = 0; i < n; i++) w[i] = 16.0 * 1048576;
  ferry_topo_assign_params p = {0};
  p.node_bytes = w;
  p.mem_cap = cap;
  p.slack = 2;
  ferry_topo_assign_stats st;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_DEFAULT, &p, def, NULL), 0);
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_ROUTE_AWARE, &p, ra, &st), 0);
  int moved_ra = st.moved;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_REFINED, &p, rf, &st), 0);
  int *share = calloc((size_t)G, sizeof *share), *in = calloc((size_t)G, sizeof *in);
  int bad_far = 0, bad_gw = 0, bad_slack = 0, moved = 0, bad_route = 0, bad_group = 0;
  int gsize = n <= 1024 ? 512 : (n + 1) / 2, route[FERRY_TOPO_MAX_ROUTE];
  for (int i = 0; i < n; i++) {
    int v = ferry_topo_compute_node(m, i);
    share[def[i]]++;
    int dd = ferry_topo_distance(m, v, ferry_topo_gateway_node(m, def[i]));
    /* no farther than the default */
    bad_far += ferry_topo_distance(m, v, ferry_topo_gateway_node(m, ra[i])) > dd;
    bad_slack += ferry_topo_distance(m, v, ferry_topo_gateway_node(m, rf[i])) > dd + 2;
    /* bridges never move */
    if (ferry_topo_gateway_of_node(m, v) >= 0) bad_gw += ra[i] != def[i] || rf[i] != def[i];
    if (ra[i] != def[i]) {
      in[ra[i]]++, moved++;
      /* the seed's trees hold no route through another bridge */
      int len = ferry_topo_route(m, v, ferry_topo_gateway_node(m, ra[i]), route);
      for (int h = 0; h < len - 1; h++) {
        int a, b;
        ferry_topo_link_ends(m, route[h], &a, &b);
        bad_route += b >= 0 && ferry_topo_gateway_of_node(m, b) >= 0;
      }
      /* groups (512 nodes up to 1024, else half the job) balance their own
       * bridges: the new bridge serves some node of the same group */
      int same = 0;
      for (int j = (i / gsize) * gsize; j < n && j < (i / gsize + 1) * gsize && !same; j++) same = def[j] == ra[i];
      bad_group += !same;
    }
  }
  CHECK_INT(bad_far, 0);
  CHECK_INT(bad_slack, 0);
  CHECK_INT(bad_gw, 0);
  CHECK_INT(bad_route, 0);
  CHECK_INT(bad_group, 0);
  CHECK_INT(moved, moved_ra);
  CHECK(moved > 0);
  /* default: equal shares */
  int mx = 0, mn = n;
  for (int g = 0; g < G; g++) {
    if (share[g] > mx) mx = share[g];
    if (share[g] < mn) mn = share[g];
  }
  CHECK_INT(mx, mn);
  /* balance of new work: a gateway takes a node only while at or below the
   * running average, so no gateway ends above ceil(moved / G) + 1 */
  int bound = (moved + G - 1) / G + 1, worst = 0;
  for (int g = 0; g < G; g++) {
    if (in[g] > worst) worst = in[g];
    if (cap > 0) CHECK(in[g] <= cap);
  }
  CHECK(worst <= bound);
  /* the refinement starts from the better of default and route-aware and
   * never raises the maximum link load */
  double tra = max_link_time(m, ra, n, w[0]), trf = max_link_time(m, rf, n, w[0]);
  double tdf = max_link_time(m, def, n, w[0]), start = tdf < tra ? tdf : tra;
  CHECK(trf <= start * (1 + 1e-12));
  CHECK_NEAR(st.max_link_time_before, start, 1e-9 * start);
  CHECK_NEAR(st.max_link_time_after, trf, 1e-9 * trf);
  if (cap > 0) {
    int *in2 = calloc((size_t)G, sizeof *in2);
    for (int i = 0; i < n; i++)
      if (rf[i] != def[i]) in2[rf[i]]++;
    for (int g = 0; g < G; g++) CHECK(in2[g] <= cap);
    free(in2);
  }
  free(def);
  free(ra);
  free(rf);
  free(w);
  free(share);
  free(in);
  ferry_topo_free(m);
}

static void subset(void) {
  /* a job on part of a machine: only its nodes are assigned */
  ferry_topo_machine *m = tc_machine("bgq:512");
  int nodes[40], gw[40];
  for (int i = 0; i < 40; i++) nodes[i] = 3 + 11 * i;
  ferry_topo_assign_params p = {0};
  p.nnodes = 40;
  p.nodes = nodes;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_REFINED, &p, gw, NULL), 0);
  int bad = 0;
  for (int i = 0; i < 40; i++) {
    int dd = ferry_topo_distance(m, nodes[i], ferry_topo_gateway_node(m, ferry_topo_default_gateway(m, nodes[i])));
    bad += gw[i] < 0 || gw[i] >= 8 || ferry_topo_distance(m, nodes[i], ferry_topo_gateway_node(m, gw[i])) > dd + 2;
  }
  CHECK_INT(bad, 0);
  int badnode = 9999;
  p.nnodes = 1;
  p.nodes = &badnode;
  CHECK(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_DEFAULT, &p, gw, NULL) < 0);
  ferry_topo_assign_algo a;
  CHECK_INT(ferry_topo_assign_parse("route-aware", &a), 0);
  CHECK_INT(a, FERRY_TOPO_ASSIGN_ROUTE_AWARE);
  CHECK(ferry_topo_assign_parse("nope", &a) < 0);
  ferry_topo_free(m);
}

int main(void) {
  by_hand();
  invariants("bgq:512", 0);
  invariants("bgq:2048", 3);
  invariants("bgq:1024", 0);
  invariants("dragonfly:g=5,rows=2,cols=4,p=2,h=2,lnet=4", 0);
  subset();
  return tc_done("test_topo_assign");
}
