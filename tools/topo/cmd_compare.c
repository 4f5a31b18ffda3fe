/* ferry-topo compare: every assignment and aggregator placement on one
 * machine and I/O size, costed by the floor (uniform writers; simulate and
 * advise take spreads). */
#include <stdio.h>

#include "cmd.h"
#include "output.h"

int cmd_compare(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o);
  if (rc) return rc;
  if (o.npositional) {
    fprintf(stderr, "ferry-topo compare: unexpected argument '%s'\n", o.positional[0]);
    return 2;
  }
  ferry_topo_machine *m = cmd_machine(&o);
  if (!m) return 1;
  scen_cfg c;
  cmd_scen_cfg(&o, m, &c);
  scen_row rows[7];
  int n = 0;
  static const ferry_topo_assign_algo algos[] = {FERRY_TOPO_ASSIGN_DEFAULT, FERRY_TOPO_ASSIGN_ROUTE_AWARE,
                                                 FERRY_TOPO_ASSIGN_REFINED, FERRY_TOPO_ASSIGN_LOAD_AWARE};
  static const ferry_topo_agg_method aggs[] = {FERRY_TOPO_AGG_FIRST_RANK, FERRY_TOPO_AGG_BRIDGE_RING,
                                               FERRY_TOPO_AGG_TOPOLOGY};
  for (int i = 0; i < 4 && rc == 0; i++) rc = scen_independent(&c, algos[i], &rows[n++], NULL, NULL);
  for (int i = 0; i < 3 && rc == 0; i++) rc = scen_collective(&c, aggs[i], &rows[n++]);
  if (rc) {
    fprintf(stderr, "ferry-topo compare: costing failed (%d)\n", rc);
    ferry_topo_free(m);
    return 1;
  }
  char bpr[32];
  format_size(o.bytes_per_rank, bpr, sizeof bpr);
  if (o.json) {
    printf("{\"machine\":");
    out_json_string(stdout, ferry_topo_spec(m));
    printf(",\"nodes\":%d,\"gateways\":%d,\"ppn\":%d,\"bytes_per_rank\":%.0f,\"coalesce\":%s,\"aggregators\":%d,"
           "\"mem_cap\":%d,",
           ferry_topo_compute_nodes(m), ferry_topo_gateways(m), o.ppn, o.bytes_per_rank, o.coalesce ? "true" : "false",
           scen_naggs(&c), scen_mem_cap(&c));
    out_json_results(stdout, rows, n, o.detail);
    printf("}\n");
  } else if (o.markdown) {
    out_markdown(stdout, rows, n, o.detail);
  } else {
    printf("# %s\n# %d ranks/node, %s per rank, coalesce %s, %d two-phase aggregators, memory cap %d nodes/gateway\n",
           ferry_topo_describe(m), o.ppn, bpr, o.coalesce ? "on" : "off", scen_naggs(&c), scen_mem_cap(&c));
    out_table(stdout, rows, n, o.detail);
  }
  ferry_topo_free(m);
  return 0;
}
