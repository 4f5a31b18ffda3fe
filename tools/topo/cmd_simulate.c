/* ferry-topo simulate: the seed's independent-I/O data paths run on
 * SimGrid, with the floor (ferry_topo_evaluate) beside each row.
 *
 * Rows (docs/topology-results.md):
 *   default                 every rank sends its own request through its
 *                           node's default bridge;
 *   route-aware             the seed's walk; moved nodes' ranks send through
 *                           the new bridge, one request per rank;
 *   route-aware-aggregated  the same assignment, one request per node
 *                           (intra-node aggregation);
 *   default-aggregated      one request per node through the default (the
 *                           seed never ran it; it separates the two effects).
 * --coalesce sends one message per node in every row (the cheap mode for
 * full-machine runs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "output.h"
#include "sim.h"

/* The per-request cost at a gateway when --msg-cost is not given: fitted
 * on the seed's default independent I/O at 4096 nodes (0.7 GB/s writing
 * 64 GiB to GPFS) by tools/topo/calibrate.sh; docs/topology-results.md has
 * the fit and the check on a second figure. */
#define SIM_MSG_COST 0.09535

typedef struct {
  char name[40];
  double avg_hops;
  int max_hops;
  double max_gw_msgs;      /* requests arriving at the busiest gateway */
  double max_bridge_msgs;  /* arriving + passing through, busiest bridge node */
  double transit_msgs;     /* passing through bridge nodes, all bridges */
  double t_floor;          /* ferry_topo_evaluate's floor, same costs */
  double t_sim;
  double gbps;             /* bytes written / t_sim, 1e9 B/s */
  double wall;
  long nmsgs;
  int moved;
} sim_row;

/* Messages that arrive at or pass through each gateway node; the largest,
 * and (*transit) the sum of those only passing through. */
static double busiest_bridge(const ferry_topo_machine *m, const ferry_topo_flow *fl, size_t n, double *transit) {
  int G = ferry_topo_gateways(m), *route = malloc(FERRY_TOPO_MAX_ROUTE * sizeof *route);
  double *through = calloc((size_t)G, sizeof *through), best = 0;
  if (!route || !through) {
    free(route);
    free(through);
    return -1;
  }
  for (size_t f = 0; f < n; f++) {
    int len = ferry_topo_route(m, fl[f].src, fl[f].dst, route);
    for (int h = 0; h < len - 1; h++) {
      int a, b;
      ferry_topo_link_ends(m, route[h], &a, &b);
      int g = b >= 0 ? ferry_topo_gateway_of_node(m, b) : -1;
      if (g >= 0) through[g] += fl[f].msgs, *transit += fl[f].msgs;
    }
    if (fl[f].gw >= 0) through[fl[f].gw] += fl[f].msgs;
  }
  for (int g = 0; g < G; g++)
    if (through[g] > best) best = through[g];
  free(route);
  free(through);
  return best;
}

static int run_row(const ferry_topo_machine *m, const char *name, const int *gw, double per_node_msgs,
                   double node_bytes, const ferry_topo_cost_params *cp, const sim_params *sp, int moved,
                   sim_row *row) {
  int n = ferry_topo_compute_nodes(m);
  ferry_topo_flow *fl = malloc((size_t)n * sizeof *fl);
  if (!fl) return -ENOMEM;
  for (int i = 0; i < n; i++)
    fl[i] = (ferry_topo_flow){ferry_topo_compute_node(m, i), ferry_topo_gateway_node(m, gw[i]), gw[i], node_bytes,
                              per_node_msgs};
  ferry_topo_metrics mt;
  int rc = ferry_topo_evaluate(m, fl, (size_t)n, cp, &mt);
  if (rc) {
    free(fl);
    return rc;
  }
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", name);
  row->avg_hops = mt.avg_hops;
  row->max_hops = mt.max_hops;
  row->max_gw_msgs = mt.max_gw_msgs;
  row->t_floor = mt.t_model;
  row->moved = moved;
  row->max_bridge_msgs = busiest_bridge(m, fl, (size_t)n, &row->transit_msgs);
  double total = mt.total_bytes;
  ferry_topo_metrics_free(&mt);
  sim_result sr;
  char err[256];
  rc = sim_run(m, fl, (size_t)n, sp, &sr, err, sizeof err);
  free(fl);
  if (rc) {
    fprintf(stderr, "ferry-topo simulate: %s: %s\n", name, err);
    return rc;
  }
  row->t_sim = sr.t_sim;
  row->wall = sr.wall;
  row->nmsgs = sr.nmsgs;
  row->gbps = sr.t_sim > 0 ? total / sr.t_sim / 1e9 : 0;
  return 0;
}

static void print_table(const sim_row *r, int n) {
  printf("%-24s %9s %9s %17s %16s %8s %12s %12s %9s %10s %8s\n", "assignment", "avg_hops", "max_hops",
         "max_gateway_msgs", "max_bridge_msgs", "moved", "floor_s", "simulated_s", "GB/s", "comms", "wall_s");
  for (int i = 0; i < n; i++)
    printf("%-24s %9.3f %9d %17.0f %16.0f %8d %12.6f %12.6f %9.3f %10ld %8.2f\n", r[i].name, r[i].avg_hops,
           r[i].max_hops, r[i].max_gw_msgs, r[i].max_bridge_msgs, r[i].moved, r[i].t_floor, r[i].t_sim, r[i].gbps,
           r[i].nmsgs, r[i].wall);
}

static void print_json(const ferry_topo_machine *m, const topo_opts *o, const sim_params *sp, const sim_row *r,
                       int n) {
  printf("{\"machine\":");
  out_json_string(stdout, ferry_topo_spec(m));
  printf(",\"nodes\":%d,\"gateways\":%d,\"ppn\":%d,\"bytes_per_rank\":%.0f,\"msg_cost_s\":%.9g,"
         "\"hop_latency_s\":%.9g,\"coalesce\":%s,\"results\":[",
         ferry_topo_compute_nodes(m), ferry_topo_gateways(m), o->ppn, o->bytes_per_rank, sp->msg_cost,
         ferry_topo_hop_latency(m), o->coalesce ? "true" : "false");
  for (int i = 0; i < n; i++) {
    printf("%s{\"assignment\":", i ? "," : "");
    out_json_string(stdout, r[i].name);
    printf(",\"avg_hops\":%.6f,\"max_hops\":%d,\"max_gateway_msgs\":%.0f,\"max_bridge_msgs\":%.0f,"
           "\"bridge_transit_msgs\":%.0f,\"moved_nodes\":%d,\"floor_time_s\":%.9g,\"simulated_time_s\":%.9g,\"bandwidth_gbps\":%.6g,"
           "\"simgrid_comms\":%ld,\"wall_s\":%.3f}",
           r[i].avg_hops, r[i].max_hops, r[i].max_gw_msgs, r[i].max_bridge_msgs, r[i].transit_msgs, r[i].moved,
           r[i].t_floor,
           r[i].t_sim, r[i].gbps, r[i].nmsgs, r[i].wall);
  }
  printf("]");
  if (n == 4)
    printf(",\"route_aware_vs_default\":%.6f,\"bridge_msgs_default_over_route_aware\":%.6f,"
           "\"aggregated_bandwidth_over_default\":%.6f",
           r[1].t_sim / r[0].t_sim - 1, r[0].max_bridge_msgs / r[1].max_bridge_msgs, r[2].gbps / r[0].gbps);
  printf("}\n");
}

/* --assign: a comma-separated list of row names */
static int row_wanted(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int cmd_simulate(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o);
  if (rc) return rc;
  if (o.npositional) {
    fprintf(stderr, "ferry-topo simulate: unexpected argument '%s'\n", o.positional[0]);
    return 2;
  }
  ferry_topo_machine *m = cmd_machine(&o);
  if (!m) return 1;
  scen_cfg c;
  cmd_scen_cfg(&o, m, &c);
  c.cost.fair_share = 0; /* the simulation is the contention model here */
  sim_params sp = {o.msg_cost_given ? o.msg_cost : SIM_MSG_COST, 0, o.split};
  c.cost.msg_cost = sp.msg_cost; /* the floor beside it at the same cost */
  int n = ferry_topo_compute_nodes(m), status = 1;
  int *def = malloc((size_t)n * sizeof *def), *ra = malloc((size_t)n * sizeof *ra);
  sim_row rows[4];
  int nr = 0;
  if (!def || !ra) goto out;
  ferry_topo_assign_params ap = {0};
  ap.mem_cap = scen_mem_cap(&c);
  ferry_topo_assign_stats st;
  if (ferry_topo_assign(m, FERRY_TOPO_ASSIGN_DEFAULT, &ap, def, NULL) ||
      ferry_topo_assign(m, FERRY_TOPO_ASSIGN_ROUTE_AWARE, &ap, ra, &st)) {
    fprintf(stderr, "ferry-topo simulate: assignment failed\n");
    goto out;
  }
  double node_bytes = o.ppn * o.bytes_per_rank, per_rank = o.coalesce ? 1 : o.ppn;
  const struct {
    const char *name;
    const int *gw;
    double msgs;
    int moved;
  } spec[] = {{"default", def, per_rank, 0},
              {"route-aware", ra, per_rank, st.moved},
              {"route-aware-aggregated", ra, 1, st.moved},
              {"default-aggregated", def, 1, 0}};
  for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
    if (o.assign && !row_wanted(o.assign, spec[i].name)) continue;
    if (run_row(m, spec[i].name, spec[i].gw, spec[i].msgs, node_bytes, &c.cost, &sp, spec[i].moved, &rows[nr++]))
      goto out;
  }
  if (nr == 0) {
    fprintf(stderr, "ferry-topo simulate: --assign %s names no row\n", o.assign);
    goto out;
  }
  int all = nr == 4;
  if (o.json) {
    print_json(m, &o, &sp, rows, nr);
  } else {
    char bpr[32];
    format_size(o.bytes_per_rank, bpr, sizeof bpr);
    printf("# %s\n# %d ranks/node, %s per rank, %g s per request at the gateway, SimGrid CM02 max-min sharing\n",
           ferry_topo_describe(m), o.ppn, bpr, sp.msg_cost);
    print_table(rows, nr);
    if (all)
      printf("# route-aware vs default: %+.1f %%; busiest-bridge messages default/route-aware: %.2f; "
           "aggregated bandwidth / default: %.2fx\n",
           100 * (rows[1].t_sim / rows[0].t_sim - 1), rows[0].max_bridge_msgs / rows[1].max_bridge_msgs,
           rows[2].gbps / rows[0].gbps);
  }
  status = 0;
out:
  free(def);
  free(ra);
  ferry_topo_free(m);
  return status;
}
