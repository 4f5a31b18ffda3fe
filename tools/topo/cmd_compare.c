/* ferry-topo compare: every assignment and aggregator placement on one
 * machine and I/O size, costed by the floor (uniform writers; simulate and
 * advise take spreads). */
#include <stdio.h>

#include "cmd.h"
#include "output.h"
#include "util/json.h"
#include "util/size.h"

int cmd_compare(int argc, char **argv)
{
    topo_opts o;
    int rc = cmd_opts(argc, argv, &o, CMD_NO_OPERANDS);
    if (rc)
        return rc;
    ferry_topo_machine *m = cmd_machine(&o);
    if (!m)
        return 1;
    scen_cfg c;
    cmd_scen_cfg(&o, m, &c);
    scen_row rows[7];
    int n = 0;
    static const ferry_topo_assign_algo algos[] = {FERRY_TOPO_ASSIGN_DEFAULT, FERRY_TOPO_ASSIGN_ROUTE_AWARE,
                                                   FERRY_TOPO_ASSIGN_REFINED, FERRY_TOPO_ASSIGN_LOAD_AWARE};
    static const ferry_topo_agg_method aggs[] = {FERRY_TOPO_AGG_FIRST_RANK, FERRY_TOPO_AGG_BRIDGE_RING,
                                                 FERRY_TOPO_AGG_TOPOLOGY};
    for (int i = 0; i < 4 && rc == 0; i++)
        rc = scen_independent(&c, algos[i], &rows[n++], NULL, NULL);
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = scen_collective(&c, aggs[i], &rows[n++]);
    if (rc) {
        fprintf(stderr, "ferry-topo compare: costing failed (%d)\n", rc);
        ferry_topo_free(m);
        return 1;
    }
    char bpr[32];
    ferry_size_format(o.bytes_per_rank, FERRY_SIZE_EXACT, bpr, sizeof bpr);
    if (o.json) {
        int ok = 1;
        json_t *doc = json_object();
        ferry_json_set(doc, "machine", ferry_json_str(ferry_topo_spec(m)), &ok);
        ferry_json_set(doc, "nodes", json_integer(ferry_topo_compute_nodes(m)), &ok);
        ferry_json_set(doc, "gateways", json_integer(ferry_topo_gateways(m)), &ok);
        ferry_json_set(doc, "ppn", json_integer(o.ppn), &ok);
        ferry_json_set(doc, "bytes_per_rank", ferry_json_fixed(o.bytes_per_rank, 0), &ok);
        ferry_json_set(doc, "coalesce", json_boolean(o.coalesce), &ok);
        ferry_json_set(doc, "aggregators", json_integer(scen_naggs(&c)), &ok);
        ferry_json_set(doc, "mem_cap", json_integer(scen_mem_cap(&c)), &ok);
        ferry_json_set(doc, "results", out_json_results(rows, n, o.detail, &ok), &ok);
        rc = out_json_done(doc, ok, stdout) ? 1 : 0;
    } else if (o.markdown) {
        out_markdown(stdout, rows, n, o.detail);
    } else {
        printf(
            "# %s\n# %d ranks/node, %s per rank, coalesce %s, %d two-phase aggregators, memory cap %d nodes/gateway\n",
            ferry_topo_describe(m), o.ppn, bpr, o.coalesce ? "on" : "off", scen_naggs(&c), scen_mem_cap(&c));
        out_table(stdout, rows, n, o.detail);
    }
    ferry_topo_free(m);
    return rc;
}
