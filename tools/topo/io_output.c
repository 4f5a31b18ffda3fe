/* The simulate and advise tables and their JSON. */
#include "io_output.h"

#include <jansson.h>
#include <string.h>

#include "output.h"
#include "util/size.h"

void out_io_header(FILE *o, const io_setup *s, const char *how) {
  char tot[32], each[32];
  ferry_size_format(s->w.total, FERRY_SIZE_3DIGITS, tot, sizeof tot);
  ferry_size_format(s->w.total / (double)s->w.nranks, FERRY_SIZE_3DIGITS, each, sizeof each);
  fprintf(o, "# %s\n", ferry_topo_describe(s->m));
  fprintf(o, "# writers: %s, %d ranks/node, %ld ranks, %s in all (%s per rank on average)", s->spec.text, s->ppn,
          s->w.nranks, tot, each);
  if (s->w.run_ranks) fprintf(o, "; the run's %ld ranks laid over the machine's in proportion", s->w.run_ranks);
  fprintf(o, "\n# %s; %s\n", s->costs, how);
}

void out_io_bound(const ferry_topo_machine *m, const ferry_topo_binding *b, char *buf, size_t len) {
  char load[32];
  if (b->kind == FERRY_TOPO_BIND_GROUP_MSGS || b->kind == FERRY_TOPO_BIND_RECEIVER)
    snprintf(load, sizeof load, "%.0f", b->load);
  else
    ferry_size_format(b->load, FERRY_SIZE_3DIGITS, load, sizeof load);
  switch (b->kind) {
  case FERRY_TOPO_BIND_EXIT:
    snprintf(buf, len, "%s %d link: %s", ferry_topo_gateway_noun(m), b->id, load);
    break;
  case FERRY_TOPO_BIND_GROUP_BYTES:
  case FERRY_TOPO_BIND_GROUP_MSGS:
    snprintf(buf, len, "%s %d %s: %s", ferry_topo_group_noun(m), b->id,
             b->kind == FERRY_TOPO_BIND_GROUP_MSGS ? "requests" : "bytes", load);
    break;
  case FERRY_TOPO_BIND_NONE: snprintf(buf, len, "-"); break;
  default: {
    char name[96];
    ferry_topo_binding_name(m, b, name, sizeof name);
    snprintf(buf, len, "%s: %s", name, load);
  }
  }
}

static const io_row *row_named(const io_row *r, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(r[i].name, name)) return &r[i];
  return NULL;
}

/* "+12.3 %" of a row's time against the default's */
static void versus(const io_row *r, const io_row *d, char *buf, size_t len) {
  if (!d || io_row_time(d) <= 0) snprintf(buf, len, "-");
  else snprintf(buf, len, "%+.1f %%", 100 * (io_row_time(r) / io_row_time(d) - 1));
}

void out_io_table(FILE *o, const io_setup *s, const io_row *r, int n) {
  const io_row *d = row_named(r, n, "default");
  int sim = n > 0 && r[0].t_sim >= 0, whatif = 0;
  fprintf(o, "%-23s %-11s %-14s %6s %8s %10s %12s %9s %11s", "row", "assignment", "path", "moved", "avg_hops",
          "max_bridge", "max_ion_reqs", "transit", "floor_s");
  if (sim) fprintf(o, " %11s %8s", "simulated_s", "GB/s");
  fprintf(o, " %10s  %s\n", "vs_default", "bound_by (floor)");
  for (int i = 0; i < n; i++) {
    char mb[32], vs[24], bound[128];
    ferry_size_format(r[i].max_gw_bytes, FERRY_SIZE_3DIGITS, mb, sizeof mb);
    versus(&r[i], d, vs, sizeof vs);
    out_io_bound(s->m, &r[i].bind, bound, sizeof bound);
    whatif |= r[i].what_if;
    fprintf(o, "%-23s %-11s %-14s %6d %8.3f %10s %12.0f %9.0f %11.6f", r[i].name, r[i].assign, path_name(r[i].path),
            r[i].moved, r[i].avg_hops, mb, r[i].max_group_msgs, r[i].transit_msgs, r[i].t_floor);
    if (sim) fprintf(o, " %11.6f %8.3f", r[i].t_sim, r[i].t_sim > 0 ? r[i].bytes / r[i].t_sim / 1e9 : 0);
    fprintf(o, " %10s  %s%s\n", vs, bound, r[i].what_if ? "  (what-if)" : "");
  }
  if (whatif) fprintf(o, "# what-if: a path neither the seed nor ferry implements, for comparison\n");
  if (sim) {
    double wall = 0;
    for (int i = 0; i < n; i++) wall += r[i].wall;
    fprintf(o, "# SimGrid wall time: %.1f s over %d row(s)\n", wall, n);
  }
  const io_row *ra = row_named(r, n, "route-aware"), *la = row_named(r, n, "load-aware"),
               *ff = row_named(r, n, "ferry-forward");
  if (d && (ra || la || ff)) {
    fprintf(o, "#");
    char vs[24];
    if (ra) versus(ra, d, vs, sizeof vs), fprintf(o, " route-aware vs default: %s;", vs);
    if (la) versus(la, d, vs, sizeof vs), fprintf(o, " load-aware vs default: %s", vs);
    if (la && ra) fprintf(o, ", vs route-aware: %+.1f %%", 100 * (io_row_time(la) / io_row_time(ra) - 1));
    if (la) fprintf(o, ";");
    if (ff) versus(ff, d, vs, sizeof vs), fprintf(o, " ferry-forward (%s) vs default: %s", ff->assign, vs);
    fprintf(o, "\n");
  }
}

static json_t *bound_json(const ferry_topo_machine *m, const ferry_topo_binding *b) {
  static const char *kinds[] = {"none", "link", "exit", "receiver", "group_bytes", "group_requests"};
  char name[128];
  out_io_bound(m, b, name, sizeof name);
  return json_pack("{s:s,s:i,s:f,s:f,s:f,s:s}", "kind", kinds[b->kind], "id", b->id, "load", b->load, "capacity",
                   b->capacity, "time_s", b->time, "text", name);
}

int out_io_json(FILE *o, const io_setup *s, const io_row *r, int n, void *advice) {
  const io_row *d = row_named(r, n, "default");
  json_t *res = json_array();
  for (int i = 0; i < n; i++) {
    json_t *x = json_pack("{s:s,s:s,s:s,s:b,s:i,s:f,s:i,s:f,s:f,s:f,s:f,s:f,s:o}", "row", r[i].name, "assignment",
                          r[i].assign, "path", path_name(r[i].path), "what_if", r[i].what_if, "moved_nodes", r[i].moved,
                          "avg_hops", r[i].avg_hops, "max_hops", r[i].max_hops, "max_bridge_bytes", r[i].max_gw_bytes,
                          "mean_bridge_bytes", r[i].mean_gw_bytes, "max_ion_requests", r[i].max_group_msgs,
                          "transit_msgs", r[i].transit_msgs, "floor_time_s", r[i].t_floor, "bound_by",
                          bound_json(s->m, &r[i].bind));
    json_object_set_new(x, "mean_ion_requests", json_real(r[i].mean_group_msgs));
    json_object_set_new(x, "max_ion_bytes", json_real(r[i].max_group_bytes));
    json_object_set_new(x, "mean_ion_bytes", json_real(r[i].mean_group_bytes));
    if (r[i].t_sim >= 0) {
      json_object_set_new(x, "simulated_time_s", json_real(r[i].t_sim));
      json_object_set_new(x, "bandwidth_gbps", json_real(r[i].t_sim > 0 ? r[i].bytes / r[i].t_sim / 1e9 : 0));
      json_object_set_new(x, "simgrid_comms", json_integer(r[i].comms));
      json_object_set_new(x, "wall_s", json_real(r[i].wall));
    }
    if (d) json_object_set_new(x, "vs_default", json_real(io_row_time(&r[i]) / io_row_time(d) - 1));
    if (r[i].why[0]) json_object_set_new(x, "advice", json_string(r[i].why));
    json_array_append_new(res, x);
  }
  json_t *top = json_pack(
      "{s:s,s:i,s:i,s:i,s:i,s:{s:s,s:f,s:I,s:I},s:{s:s,s:f,s:f,s:s},s:o}", "machine", ferry_topo_spec(s->m), "nodes",
      ferry_topo_compute_nodes(s->m), "gateways", ferry_topo_gateways(s->m), "groups", ferry_topo_gateway_groups(s->m),
      "ppn", s->ppn, "writers", "spec", s->spec.text, "total_bytes", s->w.total, "ranks", (json_int_t)s->w.nranks,
      "run_ranks", (json_int_t)s->w.run_ranks, "costs", "mode", s->fs ? "file-system" : "network",
      "msg_cost_s", s->cfg.cost.group_msg_cost, "ion_bw", s->cfg.cost.group_bw, "text", s->costs, "results", res);
  if (!top) return -1;
  if (advice) json_object_set_new(top, "advice", (json_t *)advice);
  int rc = json_dumpf(top, o, JSON_COMPACT);
  fputc('\n', o);
  json_decref(top);
  return rc;
}
