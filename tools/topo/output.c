/* Output formats. The table's columns are the issue's, in its order. */
#include "output.h"

#include <stdio.h>
#include <stdlib.h>

void format_bytes(double b, char *buf, size_t len) {
  static const char *suf[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int k = 0;
  double v = b;
  while (k < 5 && (v >= 1024 || v <= -1024)) v /= 1024, k++;
  if (k == 0) snprintf(buf, len, "%.0f B", b);
  else snprintf(buf, len, "%.*f %s", v >= 100 || v <= -100 ? 0 : v >= 10 || v <= -10 ? 1 : 2, v, suf[k]);
}

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
  format_bytes(r->max_link_load, u.link, sizeof u.link);
  format_bytes(r->hop_bytes, u.hops, sizeof u.hops);
  format_bytes(r->max_gw_bytes, u.gw, sizeof u.gw);
  return u;
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
  for (int i = 0; i < n; i++) {
    const scen_row *r = &rows[i];
    row_units u = units_of(r);
    fprintf(o, "%-24s %9.3f %9d %13s %14s %17.0f %17s %16.6f", r->name, r->avg_hops, r->max_hops, u.link, u.hops,
            r->max_gw_msgs, u.gw, r->t_model);
    if (sim) fprintf(o, " %16.6f", r->t_sim);
    if (detail)
      fprintf(o, " %16.6f %14.6f %13.0f %8d %9.3f  %s", r->t_fair, r->t_links, r->transit_msgs, r->moved, r->secs,
              r->max_link);
    fputc('\n', o);
  }
}

void out_markdown(FILE *o, const scen_row *rows, int n, int detail) {
  int sim = simulated(rows, n);
  fprintf(o, "| assignment | avg_hops | max_hops | max_link_load | hop_bytes | max_gateway_msgs | max_gateway_bytes | "
             "modelled_time_s |%s%s\n",
          sim ? " simulated_time_s |" : "", detail ? " fair_share_s | transit_msgs | moved |" : "");
  fprintf(o, "|---|---:|---:|---:|---:|---:|---:|---:|%s%s\n", sim ? "---:|" : "", detail ? "---:|---:|---:|" : "");
  for (int i = 0; i < n; i++) {
    const scen_row *r = &rows[i];
    row_units u = units_of(r);
    fprintf(o, "| %s | %.3f | %d | %s | %s | %.0f | %s | %.4f |", r->name, r->avg_hops, r->max_hops, u.link, u.hops,
            r->max_gw_msgs, u.gw, r->t_model);
    if (sim) fprintf(o, " %.4f |", r->t_sim);
    if (detail) fprintf(o, " %.4f | %.0f | %d |", r->t_fair, r->transit_msgs, r->moved);
    fputc('\n', o);
  }
}

void out_json_string(FILE *o, const char *s) {
  fputc('"', o);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(o, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(o, "\\u%04x", (unsigned char)*s);
    else fputc(*s, o);
  }
  fputc('"', o);
}

void out_json_results(FILE *o, const scen_row *rows, int n, int detail) {
  fprintf(o, "\"results\":[");
  for (int i = 0; i < n; i++) {
    const scen_row *r = &rows[i];
    fprintf(o, "%s{\"assignment\":", i ? "," : "");
    out_json_string(o, r->name);
    fprintf(o,
            ",\"avg_hops\":%.6f,\"max_hops\":%d,\"max_link_load\":%.0f,\"hop_bytes\":%.0f,"
            "\"max_gateway_msgs\":%.0f,\"max_gateway_bytes\":%.0f,\"modelled_time_s\":%.9g,"
            "\"fair_share_time_s\":%.9g,\"link_floor_s\":%.9g,\"max_link\":",
            r->avg_hops, r->max_hops, r->max_link_load, r->hop_bytes, r->max_gw_msgs, r->max_gw_bytes, r->t_model,
            r->t_fair, r->t_links);
    out_json_string(o, r->max_link);
    fprintf(o, ",\"transit_msgs\":%.0f,\"moved_nodes\":%d", r->transit_msgs, r->moved);
    if (r->t_sim >= 0) fprintf(o, ",\"simulated_time_s\":%.9g", r->t_sim);
    if (r->naggs) fprintf(o, ",\"aggregators\":%d", r->naggs);
    if (detail) fprintf(o, ",\"refine_moves\":%ld,\"cpu_s\":%.6f", r->refine_moves, r->secs);
    fputc('}', o);
  }
  fputc(']', o);
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
    format_bytes(mt->link_bytes[top[i]], b, sizeof b);
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
