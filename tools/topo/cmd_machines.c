/* ferry-topo machines: the presets, built, with their sizes. */
#include <stdio.h>

#include "cmd.h"
#include "output.h"
#include "util/json.h"

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

int cmd_machines(int argc, char **argv)
{
    topo_opts o;
    int rc = cmd_opts(argc, argv, &o, CMD_OPERANDS);
    if (rc)
        return rc;
    const ferry_topo_preset *p;
    int n = ferry_topo_presets(&p);
    int ok = 1;
    json_t *all = o.json ? json_array() : NULL;
    if (!o.json)
        printf("%-24s %-10s %7s %9s %6s  %s\n", "preset", "model", "nodes", "gateways", "links", "notes");
    for (int i = 0; i < n; i++) {
        ferry_topo_machine *m;
        char err[256];
        if (ferry_topo_create(p[i].spec, &m, err, sizeof err)) {
            fprintf(stderr, "ferry-topo: preset %s: %s\n", p[i].spec, err);
            json_decref(all);
            return 1;
        }
        if (o.json) {
            json_t *x = json_object();
            ferry_json_set(x, "spec", ferry_json_str(p[i].spec), &ok);
            ferry_json_set(x, "model", json_string(kind_name(ferry_topo_kind_of(m))), &ok);
            ferry_json_set(x, "nodes", json_integer(ferry_topo_compute_nodes(m)), &ok);
            ferry_json_set(x, "gateways", json_integer(ferry_topo_gateways(m)), &ok);
            ferry_json_set(x, "links", json_integer(ferry_topo_links(m)), &ok);
            ferry_json_set(x, "note", ferry_json_str(p[i].note), &ok);
            ferry_json_set(x, "description", ferry_json_str(ferry_topo_describe(m)), &ok);
            ferry_json_push(all, x, &ok);
        } else {
            printf("%-24s %-10s %7d %9d %6dk  %s\n", p[i].spec, kind_name(ferry_topo_kind_of(m)),
                   ferry_topo_compute_nodes(m), ferry_topo_gateways(m), (ferry_topo_links(m) + 999) / 1000, p[i].note);
            if (o.detail)
                printf("%24s %s\n", "", ferry_topo_describe(m));
        }
        ferry_topo_free(m);
    }
    if (!o.json)
        return 0;
    json_t *doc = json_object();
    ferry_json_set(doc, "machines", all, &ok);
    return out_json_done(doc, ok, stdout) ? 1 : 0;
}
