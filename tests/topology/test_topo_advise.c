/* Load-aware assignment, gateway groups in the cost model, and the advice,
 * on cases worked out by hand:
 *  - a ring of 8 with bridges at 0 and 4 where nodes 1-3 write 4x: the
 *    default's bridge 0 carries 13 MiB, the seed's walk (count-balanced)
 *    leaves 10 on bridge 1, load-aware 9; the advice takes load-aware;
 *  - the same ring evenly loaded: every assignment's floor is the same or
 *    worse, so the advice keeps the default;
 *  - group capacity and requests in ferry_topo_evaluate, and load-aware
 *    spreading requests over I/O nodes down to the mean. */
#include <string.h>

#include "topology/tcheck.h"

#define MIB 1048576.0

static int same(const int *a, const int *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static void show(const char *what, const int *gw, int n) {
  fprintf(stderr, "  %s:", what);
  for (int i = 0; i < n; i++) fprintf(stderr, " %d", gw[i]);
  fprintf(stderr, "\n");
}

/* Ring of 8, bridges at nodes 0 (g0) and 4 (g1), default {0..3} -> g0,
 * {4..7} -> g1; every link 2 GB/s. Nodes 1, 2, 3 write 4 MiB, the others
 * 1 MiB. Default: g0's exit link carries 1+4+4+4 = 13 MiB (the link 1->0
 * carries 12). Load-aware from the default: the top resource is g0's
 * exit; moving 1, 2 or 3 to g1 all peak at g1's exit (4+4 = 8 MiB); the
 * tie goes to the fewest added hop-bytes, node 3 (1 hop instead of 3).
 * Then g0 carries 9 and no move keeps g1 below 9: the result is
 * {0,0,0,1,1,1,1,1} with its maximum 9 MiB on g0's exit. Phase 2 would move
 * node 7 to g0 (1 hop instead of 3) but g0 would reach 10 > 9. The seed's
 * walk on the same ring ({0,0,1,1,1,1,0,0}: test_topo_assign) balances moved
 * nodes, not bytes: g1 gets 2 and 3, 4+4+1+1 = 10 MiB. */
static void ring_uneven(void) {
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=4");
  double w[8] = {MIB, 4 * MIB, 4 * MIB, 4 * MIB, MIB, MIB, MIB, MIB};
  ferry_topo_assign_params p = {0};
  p.node_bytes = w;
  p.slack = 2;
  int gw[8];
  ferry_topo_assign_stats st;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_LOAD_AWARE, &p, gw, &st), 0);
  static const int want[8] = {0, 0, 0, 1, 1, 1, 1, 1};
  if (!same(gw, want, 8)) show("load-aware", gw, 8);
  CHECK(same(gw, want, 8));
  CHECK_INT(st.moved, 1);
  CHECK_INT(st.refine_moves, 1);
  CHECK_NEAR(st.max_link_time_before, 13 * MIB / 2e9, 1e-15);
  CHECK_NEAR(st.max_link_time_after, 9 * MIB / 2e9, 1e-15);

  ferry_topo_advice a;
  int adv[8];
  CHECK_INT(ferry_topo_advise(m, &p, 0, adv, &a), 0);
  /* plus the longest route's latency: 3 hops (3 -> 0, 7 -> 4); the seed
   * moved 3 and 7 to the bridges one hop away: 2 hops (2 -> 4, 6 -> 0) */
  CHECK_INT(a.cand[0].algo, FERRY_TOPO_ASSIGN_DEFAULT);
  CHECK_INT(a.cand[1].algo, FERRY_TOPO_ASSIGN_ROUTE_AWARE);
  CHECK_INT(a.cand[2].algo, FERRY_TOPO_ASSIGN_LOAD_AWARE);
  CHECK_NEAR(a.cand[0].t_model, 13 * MIB / 2e9 + 3 * 40e-9, 1e-12);
  CHECK_NEAR(a.cand[1].t_model, 10 * MIB / 2e9 + 2 * 40e-9, 1e-12);
  CHECK_NEAR(a.cand[2].t_model, 9 * MIB / 2e9 + 3 * 40e-9, 1e-12);
  CHECK_INT(a.cand[0].bind.kind, FERRY_TOPO_BIND_EXIT);
  CHECK_INT(a.cand[0].bind.id, 0);
  CHECK_INT(a.cand[1].bind.id, 1);
  CHECK_INT(a.cand[2].bind.id, 0);
  CHECK_INT(a.cand[2].moved, 1);
  CHECK_INT(a.best, 2);
  CHECK_NEAR(a.gain, 1 - a.cand[2].t_model / a.cand[0].t_model, 1e-12);
  /* busiest bridge over the mean of both: 13 / 8.5 */
  CHECK_NEAR(a.imbalance, 13.0 / 8.5, 1e-12);
  CHECK(same(adv, want, 8));
  CHECK(strncmp(a.why, "load-aware: 31 % below default", 30) == 0);
  /* a gain below the threshold moves nobody */
  CHECK_INT(ferry_topo_advise(m, &p, 0.4, adv, &a), 0);
  CHECK_INT(a.best, 0);
  static const int def[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  CHECK(same(adv, def, 8));
  CHECK(strncmp(a.why, "default: no assignment 40 % faster", 34) == 0);
  ferry_topo_free(m);
}

/* Even bytes: both bridges carry 4 MiB by default, the mean; the seed's
 * walk moves 2 nodes each way and stays at 4; load-aware finds nothing to
 * lower. The advice keeps the default. */
static void ring_even(void) {
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=4");
  double w[8];
  for (int i = 0; i < 8; i++) w[i] = MIB;
  ferry_topo_assign_params p = {0};
  p.node_bytes = w;
  p.slack = 2;
  ferry_topo_advice a;
  int adv[8];
  CHECK_INT(ferry_topo_advise(m, &p, 0, adv, &a), 0);
  CHECK_INT(a.best, 0);
  CHECK_NEAR(a.gain, 0, 0);
  CHECK_NEAR(a.imbalance, 1, 1e-12);
  CHECK_NEAR(a.cand[2].t_model, a.cand[0].t_model, 1e-15);
  CHECK_INT(a.cand[2].moved, 0);
  /* the seed's walk keeps every bridge at 4 MiB, its routes one hop shorter */
  CHECK_NEAR(a.cand[1].t_model, a.cand[0].t_model - 40e-9, 1e-12);
  CHECK(strncmp(a.why, "default: no assignment", 22) == 0);
  ferry_topo_free(m);
}

/* bgq:2x2x2x2x2,ion=8: 8 bridges of 4 nodes, two per I/O node; I/O node 0
 * serves nodes 0-7 (bridges at nodes 2 and 6). */
static void groups(void) {
  ferry_topo_machine *m = tc_machine("bgq:2x2x2x2x2,ion=8");
  CHECK_INT(ferry_topo_gateways(m), 8);
  CHECK_INT(ferry_topo_gateway_groups(m), 4);
  CHECK(strcmp(ferry_topo_gateway_noun(m), "bridge") == 0);
  CHECK(strcmp(ferry_topo_group_noun(m), "I/O node") == 0);
  int n = ferry_topo_compute_nodes(m);
  CHECK_INT(n, 32);
  /* every node 1 MiB through its default; I/O node q passes 8 MiB */
  ferry_topo_flow fl[32];
  for (int v = 0; v < n; v++) {
    int g = ferry_topo_default_gateway(m, v);
    fl[v] = (ferry_topo_flow){v, ferry_topo_gateway_node(m, g), g, MIB, v < 8 ? 2 : 1};
  }
  ferry_topo_cost_params cp = {0};
  cp.group_bw = 1.8e9; /* as fast as one bridge link: the I/O node binds */
  ferry_topo_metrics mt;
  CHECK_INT(ferry_topo_evaluate(m, fl, 32, &cp, &mt), 0);
  CHECK_INT(mt.ngroups, 4);
  for (int q = 0; q < 4; q++) CHECK_NEAR(mt.group_bytes[q], 8 * MIB, 0);
  CHECK_NEAR(mt.group_msgs[0], 16, 0);
  CHECK_NEAR(mt.group_msgs[1], 8, 0);
  CHECK_NEAR(mt.t_links, 4 * MIB / 1.8e9, 1e-15); /* a bridge link: 4 nodes */
  CHECK_NEAR(mt.t_group_bytes, 8 * MIB / 1.8e9, 1e-15);
  CHECK_INT(mt.bind.kind, FERRY_TOPO_BIND_GROUP_BYTES);
  CHECK_INT(mt.bind.id, 0); /* ties: the lowest group */
  CHECK_NEAR(mt.t_model, 8 * MIB / 1.8e9 + mt.t_latency, 1e-15);
  char name[128];
  ferry_topo_binding_name(m, &mt.bind, name, sizeof name);
  CHECK(strcmp(name, "I/O node 0 (bridges 0+1) bytes") == 0);
  ferry_topo_metrics_free(&mt);
  /* requests at 10 ms each: I/O node 0 serves 16, the others 8 */
  cp.group_msg_cost = 0.01;
  CHECK_INT(ferry_topo_evaluate(m, fl, 32, &cp, &mt), 0);
  CHECK_NEAR(mt.t_group_msgs, 0.16, 1e-12);
  CHECK_INT(mt.bind.kind, FERRY_TOPO_BIND_GROUP_MSGS);
  CHECK_INT(mt.bind.id, 0);
  CHECK_NEAR(mt.t_model, 0.16 + mt.t_latency, 1e-12);
  ferry_topo_metrics_free(&mt);

  /* Load-aware on requests: 16 + 8 + 8 + 8 over four I/O nodes, mean 10.
   * Moving one of I/O node 0's six movable nodes (2 requests each) to
   * another I/O node lowers the top by 2 and raises that one to 10; after
   * three moves every other I/O node is at 10 and I/O node 0 at 10: no move
   * lowers the maximum any more. */
  double w[32], rq[32];
  for (int v = 0; v < n; v++) w[v] = MIB, rq[v] = v < 8 ? 2 : 1;
  ferry_topo_assign_params p = {0};
  p.node_bytes = w;
  p.node_msgs = rq;
  p.cost = &cp;
  p.slack = 8;
  int gw[32];
  ferry_topo_assign_stats st;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_LOAD_AWARE, &p, gw, &st), 0);
  CHECK_INT(st.moved, 3);
  CHECK_NEAR(st.max_link_time_before, 0.16, 1e-12);
  CHECK_NEAR(st.max_link_time_after, 0.10, 1e-12);
  double per[4] = {0};
  for (int v = 0; v < n; v++) per[ferry_topo_gateway_group(m, gw[v])] += rq[v];
  for (int q = 0; q < 4; q++) CHECK_NEAR(per[q], 10, 0);
  /* A path that coalesces moved nodes sends 1 request for each, also when
   * the new bridge is the other one of the same I/O node: a move saves a
   * request. With all six movable nodes moved the total is 40 - 6 = 34
   * over four I/O nodes (I/O node 0 keeps its bridges' 4): the maximum can
   * reach 9 and no lower (34 / 4 > 8), e.g. 3 moves out (10, 9, 9, 9) and
   * one inside I/O node 0 (9). */
  double rqm[32];
  for (int v = 0; v < n; v++) rqm[v] = 1;
  p.moved_msgs = rqm;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_LOAD_AWARE, &p, gw, &st), 0);
  CHECK_NEAR(st.max_link_time_after, 0.09, 1e-12);
  for (int q = 0; q < 4; q++) per[q] = 0;
  double total = 0;
  for (int v = 0; v < n; v++) {
    double r = gw[v] == ferry_topo_default_gateway(m, v) ? rq[v] : rqm[v];
    per[ferry_topo_gateway_group(m, gw[v])] += r;
    total += r;
  }
  for (int q = 0; q < 4; q++) CHECK(per[q] <= 9);
  CHECK_NEAR(total, 40 - st.moved, 0);
  /* without groups in the cost, requests do not count: links only, and
   * every bridge link carries its 4 nodes: nothing moves */
  p.cost = NULL;
  CHECK_INT(ferry_topo_assign(m, FERRY_TOPO_ASSIGN_LOAD_AWARE, &p, gw, &st), 0);
  CHECK_INT(st.moved, 0);
  ferry_topo_free(m);
}

int main(void) {
  ring_uneven();
  ring_even();
  groups();
  return tc_done("test_topo_advise");
}
