/* ferry-topo machines: the presets, built, with their sizes. */
#include <stdio.h>

#include "cmd.h"
#include "output.h"

static const char *kind_name(ferry_topo_kind k) {
  switch (k) {
  case FERRY_TOPO_TORUS: return "torus";
  case FERRY_TOPO_DRAGONFLY: return "dragonfly";
  case FERRY_TOPO_FATTREE: return "fattree";
  case FERRY_TOPO_FLAT: return "flat";
  case FERRY_TOPO_CLUSTER: return "cluster";
  }
  return "?";
}

int cmd_machines(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o);
  if (rc) return rc;
  const ferry_topo_preset *p;
  int n = ferry_topo_presets(&p);
  if (o.json) printf("{\"machines\":[");
  else printf("%-24s %-10s %7s %9s %6s  %s\n", "preset", "model", "nodes", "gateways", "links", "notes");
  for (int i = 0; i < n; i++) {
    ferry_topo_machine *m;
    char err[256];
    if (ferry_topo_create(p[i].spec, &m, err, sizeof err)) {
      fprintf(stderr, "ferry-topo: preset %s: %s\n", p[i].spec, err);
      return 1;
    }
    if (o.json) {
      printf("%s{\"spec\":", i ? "," : "");
      out_json_string(stdout, p[i].spec);
      printf(",\"model\":\"%s\",\"nodes\":%d,\"gateways\":%d,\"links\":%d,\"note\":", kind_name(ferry_topo_kind_of(m)),
             ferry_topo_compute_nodes(m), ferry_topo_gateways(m), ferry_topo_links(m));
      out_json_string(stdout, p[i].note);
      printf(",\"description\":");
      out_json_string(stdout, ferry_topo_describe(m));
      printf("}");
    } else {
      printf("%-24s %-10s %7d %9d %6dk  %s\n", p[i].spec, kind_name(ferry_topo_kind_of(m)), ferry_topo_compute_nodes(m),
             ferry_topo_gateways(m), (ferry_topo_links(m) + 999) / 1000, p[i].note);
      if (o.detail) printf("%24s %s\n", "", ferry_topo_describe(m));
    }
    ferry_topo_free(m);
  }
  if (o.json) printf("]}\n");
  return 0;
}
