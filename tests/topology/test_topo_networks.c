/* Dragonfly, fat-tree and flat routes by hand, and route invariants
 * (length = distance, destination-based) over many pairs. */
#include <string.h>

#include "topology/tcheck.h"

/* Routes into dst form a tree: route(a, dst) minus its first link equals
 * the route of any other node whose route starts with that remainder.
 * Checked here as: two routes to the same destination, once they share a
 * link, share everything after it. */
static int merge_property(const ferry_topo_machine *m, int a, int b, int dst) {
  int ra[FERRY_TOPO_MAX_ROUTE], rb[FERRY_TOPO_MAX_ROUTE];
  int na = ferry_topo_route(m, a, dst, ra), nb = ferry_topo_route(m, b, dst, rb);
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      if (ra[i] == rb[j]) {
        if (na - i != nb - j) return 1;
        for (int k = 0; i + k < na; k++)
          if (ra[i + k] != rb[j + k]) return 1;
        return 0;
      }
  return 0;
}

static void dragonfly(void) {
  /* 3 groups of 2x2 routers, 2 nodes per router, 1 global port each:
   * 24 nodes; ports per router: 1 green + 1 black + 1 global; link ids:
   * injection = node, ejection = 24 + node, router r port p = 48 + 3r + p;
   * 2 global links per group pair */
  ferry_topo_machine *m = tc_machine("dragonfly:g=3,rows=2,cols=2,p=2,h=1,lnet=2");
  CHECK_INT(ferry_topo_nodes(m), 24);
  /* same group: node 0 (router 0 = row 0 col 0) -> node 7 (router 3 = row 1
   * col 1): green to col 1, then black to row 1 */
  CHECK_ROUTE(m, 0, 7, 0, 48, 52, 31);
  /* same router */
  CHECK_ROUTE(m, 0, 1, 0, 25);
  /* group 0 -> group 1, node 9 (router 4): parallel link k = 9 mod 2 = 1 ->
   * slot 2 in group 0 (router 2, row 1 col 0), arriving at slot 3 of group 1
   * (router 7, row 1 col 1); black 0->2, global, green 7->6, black 6->4 */
  CHECK_ROUTE(m, 0, 9, 0, 49, 56, 69, 67, 33);
  CHECK_INT(ferry_topo_distance(m, 0, 9), 6);
  int f, t;
  CHECK_INT(ferry_topo_link_ends(m, 0, &f, &t), 1);
  CHECK(f == 0 && t == -1);
  char name[96];
  ferry_topo_link_name(m, 56, name, sizeof name);
  CHECK(strcmp(name, "r2-global->r7") == 0);
  ferry_topo_link_name(m, 69, name, sizeof name);
  CHECK(strcmp(name, "r7-green->r6") == 0);
  int bad = 0;
  for (int a = 0; a < 24; a++)
    for (int b = 0; b < 24; b++) {
      bad += tc_route_invariants(m, a, b);
      for (int c = 0; c < 24; c++) bad += merge_property(m, a, c, b);
    }
  CHECK_INT(bad, 0);
  ferry_topo_free(m);

  m = tc_machine("dragonfly:theta");
  bad = 0;
  int maxd = 0;
  for (int a = 0; a < ferry_topo_nodes(m); a += 37)
    for (int b = 0; b < ferry_topo_nodes(m); b += 11) {
      bad += tc_route_invariants(m, a, b);
      int d = ferry_topo_distance(m, a, b);
      if (d > maxd) maxd = d;
    }
  CHECK_INT(bad, 0);
  /* minimal routes: inject, <= 2 local, 1 global, <= 2 local, eject */
  CHECK_INT(maxd, 7);
  ferry_topo_free(m);
}

static void fattree(void) {
  /* k = 4, 3 levels: 16 nodes, 8 leaves, 8 aggregation and 4 core
   * switches. Ids: up 0..15, down 16..31, leaf->agg 32.., agg->leaf 48..,
   * agg->core 64.., core->agg 80.. */
  ferry_topo_machine *m = tc_machine("fattree:k=4,levels=3,gwleaves=1,gwperleaf=1");
  CHECK_INT(ferry_topo_nodes(m), 16);
  CHECK_ROUTE(m, 0, 1, 0, 17);                 /* same leaf */
  CHECK_ROUTE(m, 0, 3, 0, 33, 51, 19);         /* same pod: agg 3 mod 2 = 1 */
  CHECK_ROUTE(m, 0, 5, 0, 33, 66, 89, 54, 21); /* core (1, (5/2) mod 2 = 0) */
  CHECK_ROUTE(m, 6, 5, 6, 32 + 3 * 2 + 1, 48 + 3 * 2 + 0, 21);
  int bad = 0;
  for (int a = 0; a < 16; a++)
    for (int b = 0; b < 16; b++) {
      bad += tc_route_invariants(m, a, b);
      for (int c = 0; c < 16; c++) bad += merge_property(m, a, c, b);
    }
  CHECK_INT(bad, 0);
  char name[96];
  ferry_topo_link_name(m, 89, name, sizeof name);
  CHECK(strcmp(name, "core2->agg3") == 0);
  ferry_topo_free(m);

  /* k = 4, 2 levels: 8 nodes on 4 leaves, 2 spines; leaf->spine 16..,
   * spine->leaf 24.. */
  m = tc_machine("fattree:k=4,levels=2,gwleaves=1,gwperleaf=1");
  CHECK_INT(ferry_topo_nodes(m), 8);
  CHECK_ROUTE(m, 0, 5, 0, 17, 30, 13);
  CHECK_ROUTE(m, 0, 4, 0, 16, 26, 12);
  CHECK_INT(ferry_topo_gateway_node(m, 0), 7);
  CHECK(ferry_topo_is_service(m, 7));
  ferry_topo_free(m);

  m = tc_machine("fattree:k=16,levels=3");
  bad = 0;
  for (int a = 0; a < 1024; a += 7)
    for (int b = 0; b < 1024; b += 3) bad += tc_route_invariants(m, a, b);
  CHECK_INT(bad, 0);
  ferry_topo_free(m);
}

static void flat(void) {
  ferry_topo_machine *m = tc_machine("flat:8,gw=2");
  CHECK_ROUTE(m, 2, 5, 2, 13);
  CHECK_INT(ferry_topo_distance(m, 2, 5), 2);
  CHECK_INT(ferry_topo_distance(m, 4, 4), 0);
  CHECK_INT(ferry_topo_gateway_node(m, 0), 3);
  CHECK_INT(ferry_topo_gateway_node(m, 1), 7);
  ferry_topo_free(m);
}

/* The emulated cluster's I/O-node tier: compute nodes 0..3, I/O nodes 4
 * and 5 (service nodes, the gateways), blocks of two compute nodes per I/O
 * node, each link at its tier's rate, the I/O nodes' storage links as the
 * exit links. */
static void cluster(void) {
  ferry_topo_machine *m = tc_machine("cluster:nodes=4,ions=2,rate=1000,iorate=2000,iosrate=4000");
  CHECK_INT(ferry_topo_nodes(m), 6);
  CHECK_INT(ferry_topo_compute_nodes(m), 4);
  CHECK_INT(ferry_topo_gateways(m), 2);
  CHECK_INT(ferry_topo_gateway_node(m, 0), 4);
  CHECK_INT(ferry_topo_gateway_node(m, 1), 5);
  CHECK(ferry_topo_is_service(m, 4) && ferry_topo_is_service(m, 5) && !ferry_topo_is_service(m, 3));
  CHECK_INT(ferry_topo_default_gateway(m, 0), 0);
  CHECK_INT(ferry_topo_default_gateway(m, 1), 0);
  CHECK_INT(ferry_topo_default_gateway(m, 2), 1);
  CHECK_INT(ferry_topo_default_gateway(m, 3), 1);
  CHECK_ROUTE(m, 1, 4, 1, 10);
  CHECK(ferry_topo_link_bandwidth(m, 1) == 1000 && ferry_topo_link_bandwidth(m, 10) == 2000);
  CHECK(ferry_topo_link_bandwidth(m, ferry_topo_gateway_exit_link(m, 1)) == 4000);
  ferry_topo_free(m);
  char err[256];
  ferry_topo_machine *bad = NULL;
  CHECK(ferry_topo_create("cluster:nodes=2,ions=3", &bad, err, sizeof err) != 0 && strstr(err, "ions"));
  CHECK(ferry_topo_create("cluster:4", &bad, err, sizeof err) != 0 && strstr(err, "key=value"));
}

int main(void) {
  dragonfly();
  fattree();
  flat();
  cluster();
  return tc_done("test_topo_networks");
}
