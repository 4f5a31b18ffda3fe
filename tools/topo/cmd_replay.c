/* ferry-topo replay: cost the sends (and writes) a run recorded with
 * FERRY_TRACE on a machine model, ranks mapped onto nodes in blocks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "output.h"
#include "util/json.h"
#include "sim.h"
#include "trace.h"
#include "util/size.h"

typedef struct {
  long long key;
  size_t flow;
} slot_t;

/* A rank's node: where the trace says it ran (a run with real coordinates,
 * FERRY_TOPOLOGY=SPEC@MAP) when `placed`, else blocks of ppn ranks. */
static int rank_node(const ferry_topo_machine *m, const trace_t *tr, long rank, int ppn, int placed) {
  return placed ? (int)tr->node_of[rank] : ferry_topo_rank_node(m, rank, ppn);
}

/* 1 if the trace places every rank on a compute node of m. */
static int trace_placed(const ferry_topo_machine *m, const trace_t *tr) {
  if (!tr->node_of || tr->capnodes <= tr->maxrank) return 0;
  for (long r = 0; r <= tr->maxrank; r++)
    if (tr->node_of[r] < 0 || tr->node_of[r] >= ferry_topo_nodes(m) || ferry_topo_is_service(m, (int)tr->node_of[r]))
      return 0;
  return 1;
}

/* Messages between the same two nodes share a route: merge them. */
static int merge_messages(const ferry_topo_machine *m, const trace_t *tr, int ppn, int placed,
                          ferry_topo_flow **out, size_t *nout) {
  size_t cap = 16;
  while (cap < 2 * tr->nmsgs + 16) cap *= 2;
  slot_t *tab = malloc(cap * sizeof *tab);
  ferry_topo_flow *fl = malloc((tr->nmsgs ? tr->nmsgs : 1) * sizeof *fl);
  if (!tab || !fl) {
    free(tab);
    free(fl);
    return -ENOMEM;
  }
  for (size_t i = 0; i < cap; i++) tab[i].key = -1;
  long long N = ferry_topo_nodes(m);
  size_t nf = 0;
  for (size_t i = 0; i < tr->nmsgs; i++) {
    int a = rank_node(m, tr, tr->msgs[i].src, ppn, placed), b = rank_node(m, tr, tr->msgs[i].dst, ppn, placed);
    long long key = a * N + b;
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ULL) & (cap - 1);
    while (tab[h].key != -1 && tab[h].key != key) h = (h + 1) & (cap - 1);
    if (tab[h].key == -1) {
      tab[h].key = key;
      tab[h].flow = nf;
      fl[nf++] = (ferry_topo_flow){a, b, -1, 0, 0};
    }
    fl[tab[h].flow].bytes += tr->msgs[i].bytes;
    fl[tab[h].flow].msgs += 1;
  }
  free(tab);
  *out = fl;
  *nout = nf;
  return 0;
}

int cmd_replay(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o, CMD_OPERANDS);
  if (rc) return rc;
  if (o.npositional != 1) {
    fprintf(stderr, "ferry-topo replay: give one trace file (RUN.json)\n");
    return 2;
  }
  ferry_topo_assign_algo algo = FERRY_TOPO_ASSIGN_DEFAULT;
  if (o.assign && ferry_topo_assign_parse(o.assign, &algo)) {
    fprintf(stderr, "ferry-topo replay: --assign %s: want default, route-aware, route-aware-flat, refined or load-aware\n", o.assign);
    return 2;
  }
  trace_t tr;
  char err[256];
  if (trace_read_file(o.positional[0], &tr, err, sizeof err) || trace_records_as_writes(&tr, err, sizeof err)) {
    fprintf(stderr, "ferry-topo replay: %s\n", err);
    return 1;
  }
  if (!tr.nmsgs && !tr.nwrites) { /* JSON, but nothing of a run: a table of zeros would say nothing */
    fprintf(stderr, "ferry-topo replay: %s: no messages, writes or FERRY_STATS_JSON records in it "
                    "(a FERRY_TRACE log or a FERRY_STATS_JSON record)\n", o.positional[0]);
    trace_free(&tr);
    return 1;
  }
  int ppn = (tr.ranks_per_node && !o.ppn_given) ? tr.ranks_per_node : o.ppn;
  ferry_topo_machine *m = cmd_machine(&o);
  if (!m) {
    trace_free(&tr);
    return 1;
  }
  int status = 1;
  ferry_topo_flow *fl = NULL;
  int *wnode = NULL, *nodes = NULL, *gw = NULL;
  double *wbytes = NULL, *wmsgs = NULL;
  ferry_topo_metrics mt;
  memset(&mt, 0, sizeof mt);
  /* recorded nodes win unless --ppn asks for the block mapping */
  int placed = !o.ppn_given && trace_placed(m, &tr);
  if (tr.node_of && !o.ppn_given && !placed)
    fprintf(stderr, "ferry-topo replay: the trace's recorded nodes do not fit %s; ranks map in blocks\n",
            ferry_topo_spec(m));
  if (!placed && (long long)ferry_topo_compute_nodes(m) * ppn < tr.ranks) {
    fprintf(stderr, "ferry-topo replay: %ld ranks at %d per node need %ld nodes; %s has %d\n", tr.ranks, ppn,
            (tr.ranks + ppn - 1) / ppn, ferry_topo_spec(m), ferry_topo_compute_nodes(m));
    goto out;
  }
  size_t nf;
  if (merge_messages(m, &tr, ppn, placed, &fl, &nf)) goto nomem;
  /* writes: bytes per node, each node through its assigned gateway */
  int N = ferry_topo_nodes(m);
  wnode = malloc((size_t)N * sizeof *wnode);
  wbytes = calloc((size_t)N, sizeof *wbytes);
  wmsgs = calloc((size_t)N, sizeof *wmsgs);
  if (!wnode || !wbytes || !wmsgs) goto nomem;
  for (int v = 0; v < N; v++) wnode[v] = -1;
  int nw = 0;
  nodes = malloc((size_t)N * sizeof *nodes);
  if (!nodes) goto nomem;
  for (size_t i = 0; i < tr.nwrites; i++) {
    int v = rank_node(m, &tr, tr.writes[i].rank, ppn, placed);
    if (wnode[v] < 0) {
      wnode[v] = nw;
      nodes[nw++] = v;
    }
    wbytes[wnode[v]] += tr.writes[i].bytes;
    wmsgs[wnode[v]] += tr.writes[i].calls;
  }
  if (nw) {
    gw = malloc((size_t)nw * sizeof *gw);
    ferry_topo_flow *nfl = realloc(fl, (nf + (size_t)nw) * sizeof *nfl);
    if (!gw || !nfl) goto nomem;
    fl = nfl;
    ferry_topo_assign_params ap = {0};
    ap.nnodes = nw;
    ap.nodes = nodes;
    ap.node_bytes = wbytes;
    ap.slack = o.slack;
    ap.mem_cap = o.mem_cap > 0 ? o.mem_cap : 0;
    if ((rc = ferry_topo_assign(m, algo, &ap, gw, NULL))) {
      fprintf(stderr, "ferry-topo replay: assignment failed (%d)\n", rc);
      goto out;
    }
    for (int i = 0; i < nw; i++)
      fl[nf++] = (ferry_topo_flow){nodes[i], ferry_topo_gateway_node(m, gw[i]), gw[i], wbytes[i], wmsgs[i]};
  }
  scen_cfg c;
  cmd_scen_cfg(&o, m, &c);
  if ((rc = ferry_topo_evaluate(m, fl, nf, &c.cost, &mt))) {
    fprintf(stderr, "ferry-topo replay: evaluation failed (%d)\n", rc);
    goto out;
  }
  /* the same flows on SimGrid: contention and the per-request cost added */
  sim_result sr = {.t_sim = -1};
  if (o.simulate) {
    sim_params sp = {o.msg_cost, 0, o.split};
    if (sim_run(m, fl, nf, &sp, &sr, err, sizeof err)) {
      fprintf(stderr, "ferry-topo replay: %s\n", err);
      goto out;
    }
  }
  scen_row row;
  memset(&row, 0, sizeof row);
  row.t_sim = o.simulate ? sr.t_sim : -1;
  snprintf(row.name, sizeof row.name, "replay%s%s", nw ? "-" : "", nw ? ferry_topo_assign_name(algo) : "");
  scen_row_from_metrics(m, &mt, &row);
  if (o.json) {
    int ok = 1;
    json_t *doc = json_object();
    ferry_json_set(doc, "machine", ferry_json_str(ferry_topo_spec(m)), &ok);
    ferry_json_set(doc, "nodes", json_integer(ferry_topo_compute_nodes(m)), &ok);
    ferry_json_set(doc, "trace", ferry_json_str(o.positional[0]), &ok);
    ferry_json_set(doc, "ranks", json_integer(tr.ranks), &ok);
    ferry_json_set(doc, "ranks_per_node", json_integer(ppn), &ok);
    ferry_json_set(doc, "messages", json_integer((json_int_t)tr.nmsgs), &ok);
    ferry_json_set(doc, "writes", json_integer((json_int_t)tr.nwrites), &ok);
    ferry_json_set(doc, "node_pairs", json_integer((json_int_t)(nf - (size_t)nw)), &ok);
    ferry_json_set(doc, "records", json_integer((json_int_t)tr.nrecords), &ok);
    ferry_json_set(doc, "total_bytes", ferry_json_fixed(mt.total_bytes, 0), &ok);
    if (o.simulate) {
      ferry_json_set(doc, "simulated_time_s", ferry_json_real(sr.t_sim, 9), &ok);
      ferry_json_set(doc, "simulation_wall_s", ferry_json_fixed(sr.wall, 3), &ok);
    }
    ferry_json_set(doc, "results", out_json_results(&row, 1, o.detail, &ok), &ok);
    if (out_json_done(doc, ok, stdout)) goto out;
  } else {
    char tb[32];
    ferry_size_format(mt.total_bytes, FERRY_SIZE_3DIGITS, tb, sizeof tb);
    printf("# %s\n# trace %s: %ld ranks, %d per node, %zu messages (%zu node pairs), %zu writes, %s\n",
           ferry_topo_describe(m), o.positional[0], tr.ranks, ppn, tr.nmsgs, nf - (size_t)nw, tr.nwrites, tb);
    if (tr.nrecords)
      printf("# the writes are %zu FERRY_STATS_JSON record%s totals, spread evenly over the ranks\n", tr.nrecords,
             tr.nrecords == 1 ? "'s" : "s'");
    out_table(stdout, &row, 1, o.detail);
    if (o.simulate) printf("# simulated on SimGrid: %.6f s (%ld messages, %.2f s wall)\n", sr.t_sim, sr.nmsgs, sr.wall);
    if (o.top_links > 0) out_top_links(stdout, m, &mt, o.top_links);
  }
  if (o.links_csv && out_links_csv(o.links_csv, m, &mt)) {
    fprintf(stderr, "ferry-topo replay: cannot write %s\n", o.links_csv);
    goto out;
  }
  status = 0;
  goto out;
nomem:
  fprintf(stderr, "ferry-topo replay: out of memory\n");
out:
  ferry_topo_metrics_free(&mt);
  free(fl);
  free(wnode);
  free(wbytes);
  free(wmsgs);
  free(nodes);
  free(gw);
  trace_free(&tr);
  ferry_topo_free(m);
  return status;
}
