/* Torus routing by hand: BG/Q 2x2x2x2x2 and 4x4x4x4x2 routes, the
 * half-ring tie rule, mesh dimensions, the routing order option, and the
 * invariants (route = chain of links, length = distance, destination-based
 * trees) over every pair of a midplane. */
#include <string.h>

#include "topology/tcheck.h"

/* Link ids: node * 10 + 2 * dim + (0 for +, 1 for -), dims A..E = 0..4. */
static void board(void) {
  ferry_topo_machine *m = tc_machine("bgq:2x2x2x2x2");
  CHECK_INT(ferry_topo_nodes(m), 32);
  /* size-2 dimensions are half rings: every move is a tie, so + from the
   * even coordinate and - from the odd one */
  CHECK_ROUTE(m, 0, 31, 0, 162, 244, 286, 308);
  CHECK_ROUTE(m, 31, 0, 311, 153, 75, 37, 19);
  CHECK_ROUTE(m, 0, 1, 8);
  CHECK_ROUTE(m, 1, 0, 19);
  CHECK_INT(ferry_topo_distance(m, 0, 31), 5);
  int c[5];
  CHECK_INT(ferry_topo_coords(m, 22, c), 5);
  CHECK(c[0] == 1 && c[1] == 0 && c[2] == 1 && c[3] == 1 && c[4] == 0);
  CHECK_INT(ferry_topo_node_at(m, c), 22);
  ferry_topo_free(m);
}

static void midplane(void) {
  ferry_topo_machine *m = tc_machine("bgq:512");
  /* strides: A 128, B 32, C 8, D 2, E 1 */
  int a1 = 128, a2 = 256, a3 = 384;
  /* half-ring ties in A (ring of 4) */
  CHECK_ROUTE(m, 0, a2, 0, 1280);         /* 0 even: + through 1 */
  CHECK_ROUTE(m, a1, a3, 1281, 1);        /* 1 odd: - through 0 */
  CHECK_ROUTE(m, a3, a1, 3841, 2561);     /* 3 odd: - through 2 */
  CHECK_ROUTE(m, a2, 0, 2560, 3840);      /* 2 even: + through 3 */
  /* short way round, no tie */
  CHECK_ROUTE(m, 0, a3, 1);
  CHECK_ROUTE(m, 0, a1, 0);
  /* (0,0,0,0,0) -> (1,2,3,0,1): A+ ; B tie from even: + + ; C short: - ; E + */
  CHECK_ROUTE(m, 0, 217, 0, 1282, 1602, 1925, 2168);
  CHECK_INT(ferry_topo_distance(m, 0, 217), 5);
  /* the longest route in a midplane: 2+2+2+2+1 */
  int far = 2 * 128 + 2 * 32 + 2 * 8 + 2 * 2 + 1;
  CHECK_INT(ferry_topo_distance(m, 0, far), 9);
  int bad = 0;
  for (int a = 0; a < 512; a++)
    for (int b = 0; b < 512; b++) bad += tc_route_invariants(m, a, b);
  CHECK_INT(bad, 0);
  ferry_topo_free(m);

  /* the same pair under order EDCBA */
  m = tc_machine("bgq:4x4x4x4x2,order=EDCBA");
  CHECK_ROUTE(m, 0, 217, 8, 15, 252, 572, 890);
  ferry_topo_free(m);
  /* longest dimension first (ties A<B<...): 4x4x4x8x2 routes D first */
  m = tc_machine("bgq:4x4x4x8x2,order=longest,mesh=none");
  int links[FERRY_TOPO_MAX_ROUTE];
  int to = 256 + 2; /* a=1, d=1 */
  int k = ferry_topo_route(m, 0, to, links);
  CHECK_INT(k, 2);
  CHECK_INT(links[0], 0 * 10 + 6); /* D+ first */
  ferry_topo_free(m);
}

static void mesh(void) {
  /* 4x4x4x8x2: strides A 256, B 64, C 16, D 2, E 1; the 1024 preset runs D
   * as a mesh */
  ferry_topo_machine *mm = tc_machine("bgq:1024");
  ferry_topo_machine *tt = tc_machine("bgq:4x4x4x8x2");
  int d7 = 7 * 2;
  CHECK_ROUTE(mm, 0, d7, 6, 26, 46, 66, 86, 106, 126); /* no wrap: + 7 */
  CHECK_ROUTE(tt, 0, d7, 7);                          /* torus: - 1 */
  CHECK_INT(ferry_topo_distance(mm, 0, d7), 7);
  CHECK_INT(ferry_topo_distance(tt, 0, d7), 1);
  /* d 1 -> 5 is half the ring: mesh goes +, torus goes - from odd 1 */
  CHECK_ROUTE(mm, 2, 10, 26, 46, 66, 86);
  CHECK_ROUTE(tt, 2, 10, 27, 7, 147, 127);
  /* mesh boundary links do not exist */
  int f, t;
  CHECK_INT(ferry_topo_link_ends(mm, 14 * 10 + 6, &f, &t), 0); /* D+ at d=7 */
  CHECK_INT(ferry_topo_link_ends(mm, 0 * 10 + 7, &f, &t), 0);  /* D- at d=0 */
  CHECK_INT(ferry_topo_link_ends(tt, 14 * 10 + 6, &f, &t), 1);
  CHECK_INT(t, 0);
  int bad = 0;
  for (int a = 0; a < 1024; a += 3)
    for (int b = 0; b < 1024; b++) bad += tc_route_invariants(mm, a, b);
  CHECK_INT(bad, 0);
  ferry_topo_free(mm);
  ferry_topo_free(tt);
}

static void trees(void) {
  /* the routes into a bridge form a tree whose depth is the distance */
  ferry_topo_machine *m = tc_machine("bgq:512");
  int g = ferry_topo_gateway_node(m, 3);
  int parent[512], depth[512];
  CHECK_INT(ferry_topo_route_tree(m, g, parent, depth), 0);
  int bad = 0, edges = 0;
  for (int v = 0; v < 512; v++) {
    if (v == g) {
      bad += parent[v] != -1 || depth[v] != 0;
      continue;
    }
    int f, t;
    ferry_topo_link_ends(m, parent[v], &f, &t);
    bad += f != v || depth[t] != depth[v] - 1;
    edges++;
  }
  CHECK_INT(bad, 0);
  CHECK_INT(edges, 511);
  ferry_topo_free(m);
}

int main(void) {
  board();
  midplane();
  mesh();
  trees();
  return tc_done("test_topo_torus");
}
