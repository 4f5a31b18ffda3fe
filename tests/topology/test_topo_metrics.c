/* The cost model by hand: per-link bytes, bottleneck, hops, hop-bytes,
 * gateway traffic, transit through gateways, the floor time, and the
 * max-min fair-share estimate (including a case where it exceeds the
 * floor); plus the invariant that link loads add up to bytes x links. */
#include <string.h>

#include "topology/tcheck.h"

static void ring(void) {
  /* ring of 8, gateways at 0 and 4, 100 B/s links, 1 s per hop */
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=4,bw=100,iobw=100,lat=1");
  CHECK_INT(ferry_topo_gateways(m), 2);
  CHECK_INT(ferry_topo_gateway_node(m, 1), 4);
  ferry_topo_flow fl[] = {
      {2, 0, 0, 100, 1}, /* 2 -> 1 -> 0, then gateway 0's exit */
      {3, 4, 1, 50, 2},  /* 3 -> 4, then gateway 1's exit */
      {1, 6, -1, 10, 1}, /* 1 -> 0 -> 7 -> 6: through gateway node 0 */
  };
  ferry_topo_cost_params cp = {0};
  cp.fair_share = 1;
  ferry_topo_metrics mt;
  CHECK_INT(ferry_topo_evaluate(m, fl, 3, &cp, &mt), 0);
  /* link ids: node * 2 + (0 for +, 1 for -); exits 16 and 17 */
  CHECK_NEAR(mt.link_bytes[5], 100, 0);  /* 2- */
  CHECK_NEAR(mt.link_bytes[3], 110, 0);  /* 1-: shared */
  CHECK_NEAR(mt.link_bytes[6], 50, 0);   /* 3+ */
  CHECK_NEAR(mt.link_bytes[1], 10, 0);   /* 0- */
  CHECK_NEAR(mt.link_bytes[15], 10, 0);  /* 7- */
  CHECK_NEAR(mt.link_bytes[16], 100, 0);
  CHECK_NEAR(mt.link_bytes[17], 50, 0);
  double sum = 0;
  for (int l = 0; l < mt.nlinks; l++) sum += mt.link_bytes[l];
  CHECK_NEAR(sum, 100 * 3 + 50 * 2 + 10 * 3, 0);
  CHECK_INT(mt.max_link, 3);
  CHECK_NEAR(mt.max_link_load, 110, 0);
  CHECK_NEAR(mt.hop_bytes, 280, 0);
  CHECK_NEAR(mt.avg_hops, 280.0 / 160.0, 1e-12);
  CHECK_INT(mt.max_hops, 3);
  CHECK_NEAR(mt.gw_bytes[0], 100, 0);
  CHECK_NEAR(mt.gw_msgs[1], 2, 0);
  CHECK_NEAR(mt.max_gw_bytes, 100, 0);
  CHECK_INT(mt.max_gw_bytes_gw, 0);
  CHECK_NEAR(mt.max_gw_msgs, 2, 0);
  CHECK_INT(mt.max_gw_msgs_gw, 1);
  CHECK_NEAR(mt.transit_msgs, 1, 0);
  CHECK_NEAR(mt.transit_bytes, 10, 0);
  CHECK_NEAR(mt.t_links, 1.1, 1e-12);
  CHECK_NEAR(mt.t_latency, 3, 1e-12);
  CHECK_NEAR(mt.t_model, 4.1, 1e-12);
  /* fair share: 1->6 and 2->0 split link 1- (50 each); 1->6 ends at 0.2 s,
   * 3->4 at 0.5 s; 2->0 then runs at 100 and ends at 1.1 s: no slack */
  CHECK_NEAR(mt.t_fair, 4.1, 1e-9);
  CHECK(mt.fair_epochs >= 2);
  ferry_topo_metrics_free(&mt);

  /* a per-message cost at receivers: gateway 1 takes 2 messages */
  cp.msg_cost = 10;
  cp.fair_share = 0;
  CHECK_INT(ferry_topo_evaluate(m, fl, 3, &cp, &mt), 0);
  CHECK_NEAR(mt.t_msgs, 20, 1e-12);
  CHECK_NEAR(mt.t_model, 23, 1e-12);
  CHECK_NEAR(mt.t_fair, -1, 0);
  ferry_topo_metrics_free(&mt);

  /* bad flows are refused */
  ferry_topo_flow badf = {0, 99, -1, 1, 1};
  CHECK(ferry_topo_evaluate(m, &badf, 1, NULL, &mt) < 0);
  badf = (ferry_topo_flow){0, 1, 5, 1, 1};
  CHECK(ferry_topo_evaluate(m, &badf, 1, NULL, &mt) < 0);
  ferry_topo_free(m);
}

/* The floor assumes the busiest link never idles; fair sharing can leave it
 * idle. Flat switch, 1 B/s links: A 0->2 and B 1->2 share switch->2; A
 * shares 0->switch with C (0->3, weight 9), B shares 1->switch with D (1->4,
 * weight 9). Every link carries 2 B at most: floor 2 s. Fair: A and B get
 * 0.1 B/s while C and D run (10/9 s), then 0.5 B/s each for their last
 * 8/9 B: 26/9 s. */
static void fair_above_floor(void) {
  ferry_topo_machine *m = tc_machine("flat:8,gw=1,bw=1,iobw=1,lat=1e-9");
  ferry_topo_flow fl[] = {{0, 2, -1, 1, 1}, {1, 2, -1, 1, 1}, {0, 3, -1, 1, 9}, {1, 4, -1, 1, 9}};
  ferry_topo_cost_params cp = {0};
  cp.fair_share = 1;
  ferry_topo_metrics mt;
  CHECK_INT(ferry_topo_evaluate(m, fl, 4, &cp, &mt), 0);
  CHECK_NEAR(mt.t_links, 2, 1e-12);
  CHECK_NEAR(mt.t_fair - mt.t_latency, 26.0 / 9.0, 1e-9);
  CHECK_INT(mt.fair_epochs, 2);
  ferry_topo_metrics_free(&mt);
  ferry_topo_free(m);
}

/* Loads add up on a big random flow set, and the fair-share estimate is
 * never below the floor. */
static void invariants(void) {
  static const char *specs[] = {"bgq:512", "dragonfly:g=5,rows=2,cols=4,p=2,h=2,lnet=4", "fattree:k=8,levels=3",
                                "flat:40,gw=3"};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    ferry_topo_machine *m = tc_machine(specs[s]);
    int n = ferry_topo_nodes(m), G = ferry_topo_gateways(m);
    size_t nf = 2000;
    ferry_topo_flow *fl = malloc(nf * sizeof *fl);
    unsigned x = 12345;
    double want = 0, bytes = 0, hb = 0;
    for (size_t i = 0; i < nf; i++) {
      x = x * 1103515245u + 12345u;
      int a = (int)((x >> 8) % (unsigned)n);
      x = x * 1103515245u + 12345u;
      int g = (int)((x >> 8) % (unsigned)(G + 1)) - 1;
      x = x * 1103515245u + 12345u;
      int b = g >= 0 ? ferry_topo_gateway_node(m, g) : (int)((x >> 8) % (unsigned)n);
      double by = 1 + (x >> 20) % 1000;
      fl[i] = (ferry_topo_flow){a, b, g, by, 1 + (double)(x % 4)};
      int d = ferry_topo_distance(m, a, b);
      want += by * (d + (g >= 0));
      bytes += by;
      hb += by * d;
    }
    ferry_topo_cost_params cp = {0};
    cp.fair_share = 1;
    ferry_topo_metrics mt;
    CHECK_INT(ferry_topo_evaluate(m, fl, nf, &cp, &mt), 0);
    double sum = 0, mx = 0;
    for (int l = 0; l < mt.nlinks; l++) {
      sum += mt.link_bytes[l];
      double u = mt.link_bytes[l] / ferry_topo_link_bandwidth(m, l);
      if (u > mx) mx = u;
    }
    CHECK_NEAR(sum, want, 1e-6 * want);
    CHECK_NEAR(mt.total_bytes, bytes, 1e-9 * bytes);
    CHECK_NEAR(mt.hop_bytes, hb, 1e-9 * hb);
    CHECK_NEAR(mt.t_links, mx, 1e-12 * mx);
    CHECK(mt.t_fair >= mt.t_model * (1 - 1e-9));
    double gsum = 0;
    for (int g = 0; g < G; g++) gsum += mt.gw_bytes[g];
    double ex = 0;
    for (int g = 0; g < G; g++) ex += mt.link_bytes[ferry_topo_gateway_exit_link(m, g)];
    CHECK_NEAR(gsum, ex, 1e-9 * (ex + 1));
    ferry_topo_metrics_free(&mt);
    free(fl);
    ferry_topo_free(m);
  }
}

int main(void) {
  ring();
  fair_above_floor();
  invariants();
  return tc_done("test_topo_metrics");
}
