/* The assignment entry point and the static balanced default: every node
 * keeps the gateway the machine gives it (BG/Q: its own bridge). */
#include "topology/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *ferry_topo_assign_name(ferry_topo_assign_algo algo) {
  switch (algo) {
  case FERRY_TOPO_ASSIGN_DEFAULT: return "default";
  case FERRY_TOPO_ASSIGN_ROUTE_AWARE: return "route-aware";
  case FERRY_TOPO_ASSIGN_REFINED: return "refined";
  case FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT: return "route-aware-flat";
  case FERRY_TOPO_ASSIGN_LOAD_AWARE: return "load-aware";
  }
  return "?";
}

int ferry_topo_assign_parse(const char *name, ferry_topo_assign_algo *algo) {
  if (!name || !algo) return -EINVAL;
  if (strcmp(name, "default") == 0) *algo = FERRY_TOPO_ASSIGN_DEFAULT;
  else if (strcmp(name, "route-aware") == 0 || strcmp(name, "route_aware") == 0) *algo = FERRY_TOPO_ASSIGN_ROUTE_AWARE;
  else if (strcmp(name, "refined") == 0) *algo = FERRY_TOPO_ASSIGN_REFINED;
  else if (strcmp(name, "route-aware-flat") == 0) *algo = FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT;
  else if (strcmp(name, "load-aware") == 0 || strcmp(name, "load_aware") == 0) *algo = FERRY_TOPO_ASSIGN_LOAD_AWARE;
  else return -EINVAL;
  return 0;
}

/* A gateway node always writes through itself; others take the machine's
 * default. */
static int default_of(const ferry_topo_machine *m, int node) {
  if (m->node_gw[node] >= 0) return m->node_gw[node];
  return m->default_gw[node];
}

/* Route-aware, then (refined) the local search; one candidate build
 * serves both stages. A local search only walks downhill, so refined starts
 * from whichever of the default and the route-aware assignment has the
 * lower maximum link load (then hop-bytes; ties: route-aware): refined is
 * never worse than either. Load-aware starts from the default and also
 * weighs the gateway groups (capacity and requests) when p->cost asks. */
static int assign_moving(const ferry_topo_machine *m, ferry_topo_assign_algo algo, const ferry_topo_assign_params *p,
                         int n, const int *nodes, const int *def, int *gw_out, ferry_topo_assign_stats *st,
                         int *moved) {
  int search = algo != FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT;
  int slack = search ? (p->slack < 0 ? 2 : p->slack) : 0;
  ferry_topo_cands c;
  double *w = NULL;
  int *limit = malloc(ferry_topo__sz(n) * sizeof *limit);
  if (!limit) return -ENOMEM;
  ferry_topo__limits(m, n, nodes, def, slack, limit);
  int rc = ferry_topo__cands_build(m, n, nodes, limit, &c);
  free(limit);
  if (rc) return rc;
  if (algo == FERRY_TOPO_ASSIGN_LOAD_AWARE) memcpy(gw_out, def, (size_t)n * sizeof *def);
  else rc = ferry_topo__assign_route_aware(m, n, nodes, def, p->mem_cap, &c, gw_out, moved);
  if (rc == 0 && search) {
    if (!p->node_bytes) {
      w = malloc(ferry_topo__sz(n) * sizeof *w);
      if (!w) rc = -ENOMEM;
      else
        for (int i = 0; i < n; i++) w[i] = 1.0;
    }
    const double *wt = p->node_bytes ? p->node_bytes : w;
    double pr, hr, pd, hd;
    if (algo == FERRY_TOPO_ASSIGN_REFINED && rc == 0 &&
        (rc = ferry_topo__peak(m, n, nodes, wt, gw_out, &pr, &hr)) == 0 &&
        (rc = ferry_topo__peak(m, n, nodes, wt, def, &pd, &hd)) == 0 && (pd < pr || (pd == pr && hd < hr)))
      memcpy(gw_out, def, (size_t)n * sizeof *def);
    ferry_topo__search sp = {wt, NULL, NULL, 0, 0, p->mem_cap, slack, p->mem_cap_bytes, p->max_moves};
    if (algo == FERRY_TOPO_ASSIGN_LOAD_AWARE) {
      sp.rq = p->node_msgs;
      sp.rqm = p->moved_msgs;
      if (p->cost) sp.group_bw = p->cost->group_bw, sp.group_msg_cost = p->cost->group_msg_cost;
    }
    if (rc == 0) rc = ferry_topo__refine(m, n, nodes, def, &sp, &c, gw_out, st);
  }
  free(w);
  ferry_topo__cands_free(&c);
  return rc;
}

int ferry_topo_assign(const ferry_topo_machine *m, ferry_topo_assign_algo algo,
                      const ferry_topo_assign_params *p, int *gw_out, ferry_topo_assign_stats *st) {
  if (!m || !gw_out) return -EINVAL;
  ferry_topo_assign_params dp;
  memset(&dp, 0, sizeof dp);
  dp.slack = -1;
  if (!p) p = &dp;
  const int *nodes;
  int n, rc;
  if ((rc = ferry_topo__participants(m, p->nnodes, p->nodes, &nodes, &n))) return rc;
  if (st) memset(st, 0, sizeof *st);
  int *def = malloc(ferry_topo__sz(n) * sizeof *def);
  if (!def) return -ENOMEM;
  for (int i = 0; i < n; i++) {
    def[i] = default_of(m, nodes[i]);
    if (def[i] < 0) {
      free(def);
      return -EINVAL; /* a service node that is not a gateway sends no I/O */
    }
  }
  int moved = 0;
  switch (algo) {
  case FERRY_TOPO_ASSIGN_DEFAULT:
    memcpy(gw_out, def, (size_t)n * sizeof *def);
    break;
  case FERRY_TOPO_ASSIGN_ROUTE_AWARE:
    rc = ferry_topo__assign_seed(m, n, nodes, def, p->mem_cap, gw_out, &moved);
    break;
  case FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT:
  case FERRY_TOPO_ASSIGN_REFINED:
  case FERRY_TOPO_ASSIGN_LOAD_AWARE:
    rc = assign_moving(m, algo, p, n, nodes, def, gw_out, st, &moved);
    break;
  default:
    rc = -EINVAL;
  }
  if (rc == 0 && st) {
    st->moved = 0;
    for (int i = 0; i < n; i++) st->moved += gw_out[i] != def[i];
  }
  free(def);
  return rc;
}
