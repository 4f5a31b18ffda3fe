/* Output formats. The table's columns are the issue's, in its order. */
#include "output.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/json.h"
#include "util/size.h"

static int simulated(const scen_row *rows, int n) {
  for (int i = 0; i < n; i++)
    if (rows[i].t_sim >= 0) return 1;
  return 0;
}

/* A row's byte columns in readable units (hop-bytes, bytes x hops, in the
 * units of bytes). */
typedef struct {
  char link[32], hops[32], gw[32];
} row_units;

static row_units units_of(const scen_row *r) {
  row_units u;
  ferry_size_format(r->max_link_load, FERRY_SIZE_3DIGITS, u.link, sizeof u.link);
  ferry_size_format(r->hop_bytes, FERRY_SIZE_3DIGITS, u.hops, sizeof u.hops);
  ferry_size_format(r->max_gw_bytes, FERRY_SIZE_3DIGITS, u.gw, sizeof u.gw);
  return u;
}

/* The rows under either header: the text table's aligned columns or the
 * Markdown table's cells (times to 4 places, fewer detail columns). */
static void out_rows(FILE *o, const scen_row *rows, int n, int sim, int detail, int md) {
  for (int i = 0; i < n; i++) {
    const scen_row *r = &rows[i];
    row_units u = units_of(r);
    fprintf(o, md ? "| %s | %.3f | %d | %s | %s | %.0f | %s | %.4f |" : "%-24s %9.3f %9d %13s %14s %17.0f %17s %16.6f",
            r->name, r->avg_hops, r->max_hops, u.link, u.hops, r->max_gw_msgs, u.gw, r->t_model);
    if (sim) fprintf(o, md ? " %.4f |" : " %16.6f", r->t_sim);
    if (detail && md) fprintf(o, " %.4f | %.0f | %d |", r->t_fair, r->transit_msgs, r->moved);
    else if (detail)
      fprintf(o, " %16.6f %14.6f %13.0f %8d %9.3f  %s", r->t_fair, r->t_links, r->transit_msgs, r->moved, r->secs,
              r->max_link);
    fputc('\n', o);
  }
}

void out_table(FILE *o, const scen_row *rows, int n, int detail) {
  int sim = simulated(rows, n);
  fprintf(o, "%-24s %9s %9s %13s %14s %17s %17s %16s", "assignment", "avg_hops", "max_hops", "max_link_load",
          "hop_bytes", "max_gateway_msgs", "max_gateway_bytes", "modelled_time_s");
  if (sim) fprintf(o, " %16s", "simulated_time_s");
  if (detail)
    fprintf(o, " %16s %14s %13s %8s %9s  %s", "fair_share_s", "link_floor_s", "transit_msgs", "moved", "cpu_s",
            "max_link");
  fputc('\n', o);
  out_rows(o, rows, n, sim, detail, 0);
}

void out_markdown(FILE *o, const scen_row *rows, int n, int detail) {
  int sim = simulated(rows, n);
  fprintf(o, "| assignment | avg_hops | max_hops | max_link_load | hop_bytes | max_gateway_msgs | max_gateway_bytes | "
             "modelled_time_s |%s%s\n",
          sim ? " simulated_time_s |" : "", detail ? " fair_share_s | transit_msgs | moved |" : "");
  fprintf(o, "|---|---:|---:|---:|---:|---:|---:|---:|%s%s\n", sim ? "---:|" : "", detail ? "---:|---:|---:|" : "");
  out_rows(o, rows, n, sim, detail, 1);
}

json_t *out_json_results(const scen_row *rows, int n, int detail, int *ok)
{
    json_t *all = json_array();
    for (int i = 0; i < n; i++) {
        const scen_row *r = &rows[i];
        json_t *x = json_object();
        ferry_json_set(x, "assignment", ferry_json_str(r->name), ok);
        ferry_json_set(x, "avg_hops", ferry_json_fixed(r->avg_hops, 6), ok);
        ferry_json_set(x, "max_hops", json_integer(r->max_hops), ok);
        ferry_json_set(x, "max_link_load", ferry_json_fixed(r->max_link_load, 0), ok);
        ferry_json_set(x, "hop_bytes", ferry_json_fixed(r->hop_bytes, 0), ok);
        ferry_json_set(x, "max_gateway_msgs", ferry_json_fixed(r->max_gw_msgs, 0), ok);
        ferry_json_set(x, "max_gateway_bytes", ferry_json_fixed(r->max_gw_bytes, 0), ok);
        ferry_json_set(x, "modelled_time_s", ferry_json_real(r->t_model, 9), ok);
        ferry_json_set(x, "fair_share_time_s", ferry_json_real(r->t_fair, 9), ok);
        ferry_json_set(x, "link_floor_s", ferry_json_real(r->t_links, 9), ok);
        ferry_json_set(x, "max_link", ferry_json_str(r->max_link), ok);
        ferry_json_set(x, "transit_msgs", ferry_json_fixed(r->transit_msgs, 0), ok);
        ferry_json_set(x, "moved_nodes", json_integer(r->moved), ok);
        if (r->t_sim >= 0)
            ferry_json_set(x, "simulated_time_s", ferry_json_real(r->t_sim, 9), ok);
        if (r->naggs)
            ferry_json_set(x, "aggregators", json_integer(r->naggs), ok);
        if (detail) {
            ferry_json_set(x, "refine_moves", json_integer(r->refine_moves), ok);
            ferry_json_set(x, "cpu_s", ferry_json_fixed(r->secs, 6), ok);
        }
        ferry_json_push(all, x, ok);
    }
    return all;
}

int out_json_done(json_t *doc, int ok, FILE *o)
{
    int rc = ok ? ferry_json_print(doc, o) : -1;
    json_decref(doc);
    if (rc)
        fprintf(stderr, "ferry-topo: out of memory for the JSON output\n");
    return rc;
}

void out_top_links(FILE *o, const ferry_topo_machine *m, const ferry_topo_metrics *mt, int k) {
  int *top = calloc((size_t)(k > 0 ? k : 1), sizeof *top);
  if (!top) return;
  int nt = 0;
#define UTIL(l) (mt->link_bytes[l] / ferry_topo_link_bandwidth(m, l))
  for (int l = 0; l < mt->nlinks && k > 0; l++) {
    if (mt->link_bytes[l] <= 0) continue;
    if (nt < k) top[nt++] = l;
    else if (UTIL(l) > UTIL(top[k - 1])) top[k - 1] = l;
    else continue;
    for (int i = nt - 1; i > 0 && UTIL(top[i]) > UTIL(top[i - 1]); i--) {
      int t = top[i];
      top[i] = top[i - 1];
      top[i - 1] = t;
    }
  }
#undef UTIL
  fprintf(o, "%-36s %12s %12s\n", "link", "bytes", "seconds");
  for (int i = 0; i < nt; i++) {
    char name[96], b[32];
    ferry_topo_link_name(m, top[i], name, sizeof name);
    ferry_size_format(mt->link_bytes[top[i]], FERRY_SIZE_3DIGITS, b, sizeof b);
    fprintf(o, "%-36s %12s %12.6g\n", name, b, mt->link_bytes[top[i]] / ferry_topo_link_bandwidth(m, top[i]));
  }
  free(top);
}

int out_links_csv(const char *path, const ferry_topo_machine *m, const ferry_topo_metrics *mt) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "link,name,bytes,bandwidth\n");
  for (int l = 0; l < mt->nlinks; l++) {
    if (mt->link_bytes[l] <= 0) continue;
    char name[96];
    ferry_topo_link_name(m, l, name, sizeof name);
    fprintf(f, "%d,\"%s\",%.0f,%.6g\n", l, name, mt->link_bytes[l], ferry_topo_link_bandwidth(m, l));
  }
  return fclose(f);
}
