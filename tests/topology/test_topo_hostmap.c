/* Host maps (hostmap.c): coordinates and node ids, exact and short-name
 * matches in both directions, first match wins, comments, and the errors:
 * unknown host, wrong coordinate count, out-of-range coordinates, a service
 * node. */
#include <string.h>

#include "topology/tcheck.h"

static const char *map =
    "# BG/Q midplane, ABCDE\n"
    "  r00n00   0 0 0 0 0\n"
    "r00n01.cluster 0 0 0 0 1   # a full name in the map\n"
    "r00n02 0,0,0,1,0\n"
    "r00n03 3\n"
    "r00n02 1 1 1 1 1\n" /* shadowed by the first r00n02 */
    "badcount 1 2 3\n"
    "badrange 4 0 0 0 0\n"
    "badnum 0 0 x 0 0\n";

static void bgq(void) {
  ferry_topo_machine *m = tc_machine("bgq:4x4x4x4x2");
  char err[200];
  int c1[5] = {0, 0, 0, 0, 1}, c2[5] = {0, 0, 0, 1, 0};
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n00", err, sizeof err), 0);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n01", err, sizeof err), ferry_topo_node_at(m, c1));
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n01.cluster", err, sizeof err), ferry_topo_node_at(m, c1));
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n00.other.domain", err, sizeof err), 0);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n02", err, sizeof err), ferry_topo_node_at(m, c2));
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n03", err, sizeof err), 3);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n0", err, sizeof err), -1);
  CHECK(strstr(err, "not in the map") != NULL);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "r00n01.elsewhere", err, sizeof err), -1);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "badcount", err, sizeof err), -1);
  CHECK(strstr(err, "line 7") != NULL);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "badrange", err, sizeof err), -1);
  CHECK_INT(ferry_topo_hostmap_node(m, map, "badnum", err, sizeof err), -1);
  CHECK_INT(ferry_topo_hostmap_node(m, "", "r00n00", err, sizeof err), -1);
  ferry_topo_free(m);
}

/* models without coordinates take node ids; service nodes hold no ranks */
static void dragonfly(void) {
  ferry_topo_machine *m = tc_machine("dragonfly:theta");
  char err[200];
  int gw = ferry_topo_gateway_node(m, 0);
  char text[128];
  snprintf(text, sizeof text, "nid00012 12\nlnet %d\n", gw);
  CHECK_INT(ferry_topo_hostmap_node(m, text, "nid00012", err, sizeof err), 12);
  CHECK(ferry_topo_is_service(m, gw));
  CHECK_INT(ferry_topo_hostmap_node(m, text, "lnet", err, sizeof err), -1);
  ferry_topo_free(m);
}

int main(void) {
  bgq();
  dragonfly();
  return tc_done("test_topo_hostmap");
}
