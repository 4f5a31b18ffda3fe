/* Machine specs: presets and their shapes, bridge counts and placement,
 * the static balanced default, option parsing and its errors, and the
 * accessors every model shares. */
#include <string.h>

#include <unistd.h>

#include "topology/tcheck.h"

static void presets(void) {
  static const struct {
    const char *spec;
    int nodes, gws;
    int shape[5];
  } want[] = {
      {"bgq:32", 32, 1, {2, 2, 2, 2, 2}},       {"bgq:128", 128, 2, {2, 2, 4, 4, 2}},
      {"bgq:512", 512, 8, {4, 4, 4, 4, 2}},     {"bgq:1024", 1024, 16, {4, 4, 4, 8, 2}},
      {"bgq:2048", 2048, 32, {4, 4, 8, 8, 2}},  {"bgq:4096", 4096, 64, {4, 8, 8, 8, 2}},
      {"bgq:8192", 8192, 128, {4, 4, 16, 16, 2}}, {"bgq:mira", 49152, 768, {8, 12, 16, 16, 2}},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ferry_topo_machine *m = tc_machine(want[i].spec);
    CHECK_INT(ferry_topo_nodes(m), want[i].nodes);
    CHECK_INT(ferry_topo_compute_nodes(m), want[i].nodes); /* bridges compute */
    CHECK_INT(ferry_topo_gateways(m), want[i].gws);
    CHECK_INT(ferry_topo_ndims(m), 5);
    for (int d = 0; d < 5; d++) CHECK_INT(ferry_topo_dim_size(m, d), want[i].shape[d]);
    /* one I/O node per 128 nodes, two bridges each, 64 nodes per bridge */
    int *share = calloc((size_t)ferry_topo_gateways(m), sizeof *share);
    for (int v = 0; v < ferry_topo_nodes(m); v++) share[ferry_topo_default_gateway(m, v)]++;
    int bad = 0;
    for (int g = 0; g < ferry_topo_gateways(m); g++) {
      bad += share[g] != want[i].nodes / want[i].gws;
      bad += ferry_topo_default_gateway(m, ferry_topo_gateway_node(m, g)) != g;
      bad += ferry_topo_gateway_group(m, g) != g / 2;
      bad += ferry_topo_gateway_proxy(m, g) != ferry_topo_gateway_node(m, g);
      bad += ferry_topo_gateway_exit_link(m, g) != ferry_topo_links(m) - ferry_topo_gateways(m) + g;
      if (g) bad += ferry_topo_gateway_node(m, g) <= ferry_topo_gateway_node(m, g - 1);
    }
    CHECK_INT(bad, 0);
    free(share);
    ferry_topo_free(m);
  }
  const ferry_topo_preset *p;
  int n = ferry_topo_presets(&p);
  CHECK(n >= 12);
  for (int i = 0; i < n; i++) {
    ferry_topo_machine *m = tc_machine(p[i].spec);
    CHECK(ferry_topo_gateways(m) >= 1);
    CHECK(strlen(ferry_topo_describe(m)) > 10);
    CHECK(strcmp(ferry_topo_spec(m), p[i].spec) == 0);
    ferry_topo_free(m);
  }
}

static void bridges(void) {
  /* Tiles of 2x2x2x4x2 with the bridge at in-tile offset (0,1,0,1,0): the
   * seed's bridge 98 = (0,3,0,1,0) of a 512-node block is one of them. */
  ferry_topo_machine *m = tc_machine("bgq:512");
  int want[8], k = 0;
  for (int a = 0; a < 4; a += 2)
    for (int b = 0; b < 4; b += 2)
      for (int c = 0; c < 4; c += 2) want[k++] = a * 128 + (b + 1) * 32 + c * 8 + 1 * 2;
  for (int g = 0; g < 8; g++) CHECK_INT(ferry_topo_gateway_node(m, g), want[g]);
  CHECK_INT(ferry_topo_gateway_of_node(m, 98), 2);
  CHECK_INT(ferry_topo_gateway_of_node(m, 0), -1);
  /* pset default: I/O node 0's pset is the tiles of bridges 34 and 50
   * (A 0-1, B 0-1, C 0-3); its 126 other nodes in node order, 63 each:
   * A=0 (62 nodes) and A=1,B=0,C=0,D=0,E=0 go to bridge 34, the rest to 50.
   * Node (1,0,1,3,1) is in the tile of bridge 34 but goes to 50; node
   * (0,0,2,1,0) goes to 34 through bridge 50 (B first: (0,1,2,1,0)). */
  CHECK_INT(ferry_topo_default_gateway(m, 128 + 8 + 6 + 1), 1);
  CHECK_INT(ferry_topo_default_gateway(m, 128), 0);
  CHECK_INT(ferry_topo_default_gateway(m, 129), 1);
  CHECK_INT(ferry_topo_default_gateway(m, 2 * 8 + 1 * 2), 0);
  {
    int links[FERRY_TOPO_MAX_ROUTE], len = ferry_topo_route(m, 2 * 8 + 1 * 2, 34, links), through = 0;
    for (int h = 0; h < len - 1; h++) {
      int a, b;
      ferry_topo_link_ends(m, links[h], &a, &b);
      through += b == 50;
    }
    CHECK_INT(through, 1);
  }
  int share[8] = {0};
  for (int v = 0; v < 512; v++) share[ferry_topo_gateway_of_node(m, v) >= 0 ? ferry_topo_gateway_of_node(m, v)
                                                                           : ferry_topo_default_gateway(m, v)]++;
  for (int g = 0; g < 8; g++) CHECK_INT(share[g], 64);
  ferry_topo_free(m);
  /* default=tile: node (1,0,1,3,1) sits in the tile at origin (0,0,0,0,0) */
  m = tc_machine("bgq:512,default=tile");
  CHECK_INT(ferry_topo_default_gateway(m, 128 + 8 + 6 + 1), 0);
  /* exit links: the bridge -> I/O node link, 1.8 GB/s of payload like torus links; torus: keeps 2 GB/s */
  CHECK_NEAR(ferry_topo_link_bandwidth(m, ferry_topo_gateway_exit_link(m, 0)), 1.8e9, 0);
  CHECK_NEAR(ferry_topo_link_bandwidth(m, 0), 1.8e9, 0);
  CHECK_NEAR(ferry_topo_hop_latency(m), 40e-9, 1e-15);
  int f, t;
  CHECK_INT(ferry_topo_link_ends(m, ferry_topo_gateway_exit_link(m, 2), &f, &t), 1);
  CHECK_INT(f, ferry_topo_gateway_node(m, 2));
  CHECK_INT(t, -1);
  char name[96];
  ferry_topo_link_name(m, 98 * 10 + 3, name, sizeof name);
  CHECK(strcmp(name, "(0,3,0,1,0)B-") == 0);
  ferry_topo_free(m);

  /* configurable placement: offset, tile, nearest default */
  m = tc_machine("bgq:512,bridge=1.1.1.3.1");
  CHECK_INT(ferry_topo_gateway_node(m, 0), 128 + 32 + 8 + 6 + 1);
  ferry_topo_free(m);
  m = tc_machine("bgq:512,tile=4x4x2x2x1");
  CHECK_INT(ferry_topo_gateways(m), 8);
  ferry_topo_free(m);
  m = tc_machine("bgq:512,ion=256");
  CHECK_INT(ferry_topo_gateways(m), 4);
  ferry_topo_free(m);
  m = tc_machine("bgq:512,default=nearest");
  int bad = 0;
  for (int v = 0; v < 512; v++) {
    int dg = ferry_topo_distance(m, v, ferry_topo_gateway_node(m, ferry_topo_default_gateway(m, v)));
    for (int g = 0; g < 8; g++) {
      int d = ferry_topo_distance(m, v, ferry_topo_gateway_node(m, g));
      bad += d < dg || (d == dg && g < ferry_topo_default_gateway(m, v));
    }
  }
  CHECK_INT(bad, 0);
  ferry_topo_free(m);
}

/* default=map:FILE: the pset default dumped as node ids, then as
 * coordinates, loads back to the same assignment; bad maps are errors. */
static void bridge_map(void) {
  const char *tmp = getenv("FERRY_TEST_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  char path[512], spec[700], err[256];
  snprintf(path, sizeof path, "%s/topo_map_%d.txt", tmp, (int)getpid());
  ferry_topo_machine *m = tc_machine("bgq:512"), *x = NULL;
  for (int form = 0; form < 2; form++) {
    FILE *f = fopen(path, "w");
    fprintf(f, "# bridge of each node, node order\n");
    for (int v = 0; v < 512; v++) {
      int b = ferry_topo_gateway_node(m, ferry_topo_default_gateway(m, v)), c[8];
      if (form == 0) fprintf(f, "%d\n", b);
      else {
        ferry_topo_coords(m, b, c);
        fprintf(f, "%d %d %d %d %d\n", c[0], c[1], c[2], c[3], c[4]);
      }
    }
    fclose(f);
    snprintf(spec, sizeof spec, "bgq:512,default=map:%s", path);
    x = tc_machine(spec);
    int bad = 0;
    for (int v = 0; v < 512; v++) bad += ferry_topo_default_gateway(x, v) != ferry_topo_default_gateway(m, v);
    CHECK_INT(bad, 0);
    ferry_topo_free(x);
  }
  /* a node that is not a bridge, and a short map */
  FILE *f = fopen(path, "w");
  fprintf(f, "0\n");
  fclose(f);
  x = NULL;
  CHECK(ferry_topo_create(spec, &x, err, sizeof err) < 0 && x == NULL && strstr(err, "bridges"));
  f = fopen(path, "w");
  fprintf(f, "34\n");
  fclose(f);
  CHECK(ferry_topo_create(spec, &x, err, sizeof err) < 0 && strstr(err, "1 lines for 512 nodes"));
  remove(path);
  CHECK(ferry_topo_create(spec, &x, err, sizeof err) < 0 && strstr(err, "cannot open"));
  ferry_topo_free(m);
}

static void errors(void) {
  static const char *bad[] = {
      "bgq",          "bgq:500",          "bgq:4x4x4x4",     "bgq:4x4x4x4x2,mesh=Q", "bgq:512,order=AAB",
      "bgq:512,bogus=1", "bgq:512,bridge=5.0.0.0.0", "bgq:512,tile=3x4x4x4x2", "nosuch:1", "flat:0",
      "fattree:k=5",  "fattree:k=16,levels=4", "dragonfly:g=40,rows=1,cols=1,h=1", "torus:300x2",
      "bgq:512,bw=-1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ferry_topo_machine *m = (ferry_topo_machine *)1;
    char err[256] = "";
    int rc = ferry_topo_create(bad[i], &m, err, sizeof err);
    if (rc == 0) fprintf(stderr, "spec %s accepted\n", bad[i]);
    CHECK(rc < 0);
    CHECK(m == NULL);
    CHECK(err[0] != '\0');
  }
}

static void others(void) {
  ferry_topo_machine *m = tc_machine("dragonfly:theta");
  CHECK_INT(ferry_topo_nodes(m), 9 * 96 * 4);
  CHECK_INT(ferry_topo_gateways(m), 30);
  CHECK_INT(ferry_topo_compute_nodes(m), 9 * 96 * 4 - 30);
  int bad = 0;
  for (int g = 0; g < 30; g++) {
    int v = ferry_topo_gateway_node(m, g);
    bad += !ferry_topo_is_service(m, v) || ferry_topo_gateway_group(m, g) != g / 7;
    int px = ferry_topo_gateway_proxy(m, g);
    bad += ferry_topo_is_service(m, px) || ferry_topo_distance(m, px, v) != 2; /* same router */
  }
  CHECK_INT(bad, 0);
  /* ranks map onto compute nodes only, in blocks */
  CHECK_INT(ferry_topo_rank_node(m, 0, 4), ferry_topo_compute_node(m, 0));
  CHECK_INT(ferry_topo_rank_node(m, 7, 4), ferry_topo_compute_node(m, 1));
  CHECK_INT(ferry_topo_rank_node(m, 4L * ferry_topo_compute_nodes(m), 4), -1);
  ferry_topo_free(m);

  m = tc_machine("fattree:k=16,levels=3");
  CHECK_INT(ferry_topo_nodes(m), 1024);
  CHECK_INT(ferry_topo_gateways(m), 32);
  ferry_topo_free(m);
  m = tc_machine("flat:64");
  CHECK_INT(ferry_topo_gateways(m), 1);
  CHECK_INT(ferry_topo_gateway_node(m, 0), 63);
  CHECK_INT(ferry_topo_compute_nodes(m), 64);
  ferry_topo_free(m);
  m = tc_machine("flat:100,gw=4");
  static const int gws[] = {24, 49, 74, 99};
  for (int g = 0; g < 4; g++) CHECK_INT(ferry_topo_gateway_node(m, g), gws[g]);
  /* blocks of 25 */
  CHECK_INT(ferry_topo_default_gateway(m, 24), 0);
  CHECK_INT(ferry_topo_default_gateway(m, 25), 1);
  ferry_topo_free(m);
  m = tc_machine("torus:8x8x8");
  CHECK_INT(ferry_topo_ndims(m), 3);
  CHECK_INT(ferry_topo_gateways(m), 8);
  ferry_topo_free(m);
}

int main(void) {
  presets();
  bridges();
  bridge_map();
  errors();
  others();
  return tc_done("test_topo_machine");
}
