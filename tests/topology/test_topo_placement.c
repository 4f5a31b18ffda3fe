/* Aggregator placement by hand: ROMIO's evenly spaced first ranks, the BG/Q
 * bridge ring, and TAPIOCA's cost with its spreading penalty. */
#include "topology/tcheck.h"

int main(void) {
  /* ring of 8, one bridge at node 0 */
  ferry_topo_machine *m = tc_machine("torus:8,gwnodes=8,lat=1,bw=1");
  CHECK_INT(ferry_topo_gateways(m), 1);
  int agg[8];

  /* first rank: domain j -> node floor(j * 8 / 4) */
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_FIRST_RANK, 4, NULL, NULL, NULL, agg), 0);
  CHECK(agg[0] == 0 && agg[1] == 2 && agg[2] == 4 && agg[3] == 6);

  /* bridge ring, k = 1: by distance from the bridge, ties by node: 1, 7, 2,
   * 6, ...; domains take them in rank order */
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_BRIDGE_RING, 3, NULL, NULL, NULL, agg), 0);
  CHECK(agg[0] == 1 && agg[1] == 2 && agg[2] == 7);
  ferry_topo_agg_params ap = {0};
  ap.ring_hops = 3;
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_BRIDGE_RING, 2, NULL, NULL, &ap, agg), 0);
  CHECK(agg[0] == 3 && agg[1] == 5);

  /* TAPIOCA: senders 2, 3, 4 with a byte each, L = 1 s/hop, B = 1 B/s.
   *   cost(2) = (1 + 2) + 2 (to the bridge) + 2 x 1 B/B = 7
   *   cost(3) = (1 + 1) + 3 + 2 = 7   (tie: lowest node wins: 2)
   *   cost(4) = (2 + 1) + 4 + 2 = 9
   * then the penalty spreads later domains: 3, then 4, then 2 again. */
  ferry_topo_sender snd[12];
  size_t off[5];
  for (int j = 0; j < 4; j++) {
    off[j] = (size_t)j * 3;
    for (int k = 0; k < 3; k++) snd[j * 3 + k] = (ferry_topo_sender){2 + k, 1.0};
  }
  off[4] = 12;
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_TOPOLOGY, 4, off, snd, NULL, agg), 0);
  CHECK(agg[0] == 2 && agg[1] == 3 && agg[2] == 4 && agg[3] == 2);

  /* a heavy sender pulls the aggregator onto itself: its bytes stay put */
  ferry_topo_sender heavy[] = {{5, 100.0}, {6, 1.0}, {7, 1.0}};
  size_t hoff[] = {0, 3};
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_TOPOLOGY, 1, hoff, heavy, NULL, agg), 0);
  CHECK_INT(agg[0], 5);

  ferry_topo_agg_method am;
  CHECK_INT(ferry_topo_agg_parse("bridge-ring", &am), 0);
  CHECK_INT(am, FERRY_TOPO_AGG_BRIDGE_RING);
  CHECK(ferry_topo_agg_parse("x", &am) < 0);
  CHECK(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_TOPOLOGY, 1, NULL, NULL, NULL, agg) < 0);
  ferry_topo_free(m);

  /* on BG/Q every TAPIOCA aggregator is one of its domain's senders and
   * no node hosts two while a sender is free */
  m = tc_machine("bgq:512,default=tile"); /* psets = tiles, as below */
  int nd = 64;
  size_t *doff = malloc((size_t)(nd + 1) * sizeof *doff);
  ferry_topo_sender *ds = malloc(512 * sizeof *ds);
  for (int j = 0; j <= nd; j++) doff[j] = (size_t)j * 8;
  for (int v = 0; v < 512; v++) ds[v] = (ferry_topo_sender){v, 1048576.0};
  int *ag = malloc((size_t)nd * sizeof *ag);
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_TOPOLOGY, nd, doff, ds, NULL, ag), 0);
  int bad = 0;
  for (int j = 0; j < nd; j++) bad += ag[j] < j * 8 || ag[j] >= j * 8 + 8;
  CHECK_INT(bad, 0);
  CHECK_INT(ferry_topo_place_aggregators(m, FERRY_TOPO_AGG_BRIDGE_RING, nd, NULL, NULL, NULL, ag), 0);
  /* a bridge has 6 neighbours inside its 2x2x2x4x2 pset: each pset's 8
   * aggregators are those 6 at 1 hop and 2 at 2 hops */
  bad = 0;
  int ring1 = 0;
  for (int j = 0; j < nd; j++) {
    int g = ferry_topo_default_gateway(m, ag[j]);
    int d = ferry_topo_distance(m, ag[j], ferry_topo_gateway_node(m, g));
    bad += ferry_topo_gateway_of_node(m, ag[j]) >= 0; /* never the bridge */
    bad += d < 1 || d > 2;
    ring1 += d == 1;
    if (j) bad += ag[j] <= ag[j - 1];
  }
  CHECK_INT(bad, 0);
  CHECK_INT(ring1, 48);
  free(doff);
  free(ds);
  free(ag);
  ferry_topo_free(m);
  return tc_done("test_topo_placement");
}
