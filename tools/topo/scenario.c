/* Building and costing the compare rows. */
#define _POSIX_C_SOURCE 200809L
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time: the figure that matters on a shared machine */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The seed: maxWeight = heap / (2 x bytes a node sends) with coalescing,
 * 1000 without; a gateway then takes at most maxWeight - 1 moved nodes. */
int scen_mem_cap(const scen_cfg *c) {
  if (c->mem_cap >= 0) return c->mem_cap;
  double maxw = c->coalesce ? floor(c->gw_mem / (2.0 * c->ppn * c->bytes_per_rank)) : 1000.0;
  double cap = maxw - 1;
  if (cap < 1) cap = 1;
  if (cap > 1e9) cap = 1e9;
  return (int)cap;
}

/* ROMIO on BG/Q: GPFSMPIO_NAGG_PSET = 8 aggregators per bridge's pset. */
int scen_naggs(const scen_cfg *c) {
  if (c->naggs > 0) return c->naggs;
  int n = ferry_topo_compute_nodes(c->m), a = 8 * ferry_topo_gateways(c->m);
  return a < n ? a : n;
}

/* SimGrid's time for a flow set, or -1 with the reason on stderr. */
static double sim_time(const scen_cfg *c, const ferry_topo_flow *fl, size_t n) {
  sim_result r;
  char err[256];
  if (sim_run(c->m, fl, n, &c->sim, &r, err, sizeof err)) {
    fprintf(stderr, "ferry-topo: %s\n", err);
    return -1;
  }
  return r.t_sim;
}

void scen_row_from_metrics(const ferry_topo_machine *m, const ferry_topo_metrics *mt, scen_row *row) {
  row->avg_hops = mt->avg_hops;
  row->max_hops = mt->max_hops;
  row->max_link_load = mt->max_link_load;
  if (mt->max_link >= 0) ferry_topo_link_name(m, mt->max_link, row->max_link, sizeof row->max_link);
  else snprintf(row->max_link, sizeof row->max_link, "-");
  row->hop_bytes = mt->hop_bytes;
  row->max_gw_msgs = mt->max_gw_msgs;
  row->max_gw_bytes = mt->max_gw_bytes;
  row->t_model = mt->t_model;
  row->t_fair = mt->t_fair;
  row->t_links = mt->t_links;
  row->transit_msgs = mt->transit_msgs;
}

int scen_independent(const scen_cfg *c, ferry_topo_assign_algo algo, scen_row *row, int *gw_keep,
                     ferry_topo_metrics *mt_keep) {
  const ferry_topo_machine *m = c->m;
  int n = ferry_topo_compute_nodes(m), rc = -ENOMEM;
  double t0 = now();
  double node_bytes = c->ppn * c->bytes_per_rank;
  int *gw = malloc((size_t)n * sizeof *gw);
  double *w = malloc((size_t)n * sizeof *w);
  ferry_topo_flow *fl = malloc((size_t)n * sizeof *fl);
  if (!gw || !w || !fl) goto out;
  for (int i = 0; i < n; i++) w[i] = node_bytes;
  ferry_topo_assign_params ap = {0};
  ap.node_bytes = w;
  ap.mem_cap = scen_mem_cap(c);
  ap.slack = c->slack;
  ferry_topo_assign_stats st;
  if ((rc = ferry_topo_assign(m, algo, &ap, gw, &st))) goto out;
  for (int i = 0; i < n; i++) {
    int v = ferry_topo_compute_node(m, i);
    fl[i] = (ferry_topo_flow){v, ferry_topo_gateway_node(m, gw[i]), gw[i], node_bytes, c->coalesce ? 1.0 : c->ppn};
  }
  ferry_topo_metrics mt;
  if ((rc = ferry_topo_evaluate(m, fl, (size_t)n, &c->cost, &mt))) goto out;
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", ferry_topo_assign_name(algo));
  scen_row_from_metrics(m, &mt, row);
  row->moved = st.moved;
  row->refine_moves = st.refine_moves;
  row->mem_cap = ap.mem_cap;
  row->secs = now() - t0;
  row->t_sim = c->simulate ? sim_time(c, fl, (size_t)n) : -1;
  if (c->simulate && row->t_sim < 0) rc = -EIO;
  if (mt_keep) *mt_keep = mt;
  else ferry_topo_metrics_free(&mt);
  if (gw_keep) memcpy(gw_keep, gw, (size_t)n * sizeof *gw);
out:
  free(gw);
  free(w);
  free(fl);
  return rc;
}

/* File domains: the file (ranks x bytes_per_rank, rank-ordered) cut into
 * naggs equal contiguous pieces (GPFS-style); each domain's senders are the
 * nodes whose ranks' blocks overlap it, one entry per node with its bytes
 * and how many ranks (messages) contribute. */
typedef struct {
  int nd;
  size_t *off;
  ferry_topo_sender *snd;
  double *msgs;
  double *size;
} domains_t;

static void domains_free(domains_t *d) {
  free(d->off);
  free(d->snd);
  free(d->msgs);
  free(d->size);
}

static int domains_build(const scen_cfg *c, int nd, domains_t *d) {
  const ferry_topo_machine *m = c->m;
  memset(d, 0, sizeof *d);
  long long ranks = (long long)ferry_topo_compute_nodes(m) * c->ppn;
  long long bpr = (long long)c->bytes_per_rank;
  long long total = ranks * bpr;
  d->nd = nd;
  d->off = malloc(((size_t)nd + 1) * sizeof *d->off);
  d->size = malloc((size_t)nd * sizeof *d->size);
  /* each domain touches at most (its ranks + 1) ranks on (nodes + 2) nodes */
  size_t cap = (size_t)nd * 2 + (size_t)ranks + 16;
  d->snd = malloc(cap * sizeof *d->snd);
  d->msgs = malloc(cap * sizeof *d->msgs);
  if (!d->off || !d->size || !d->snd || !d->msgs) return -ENOMEM;
  size_t k = 0;
  for (int j = 0; j < nd; j++) {
    long long lo = total / nd * j + (total % nd) * j / nd;
    long long hi = total / nd * (j + 1) + (total % nd) * (j + 1) / nd;
    d->off[j] = k;
    d->size[j] = (double)(hi - lo);
    if (hi <= lo) continue;
    for (long long r = lo / bpr; r <= (hi - 1) / bpr; r++) {
      long long a = r * bpr > lo ? r * bpr : lo, b = (r + 1) * bpr < hi ? (r + 1) * bpr : hi;
      int node = ferry_topo_rank_node(m, (long)r, c->ppn);
      if (k > d->off[j] && d->snd[k - 1].node == node) {
        d->snd[k - 1].bytes += (double)(b - a);
        d->msgs[k - 1] += 1;
      } else {
        if (k == cap) return -ENOMEM;
        d->snd[k] = (ferry_topo_sender){node, (double)(b - a)};
        d->msgs[k++] = 1;
      }
    }
  }
  d->off[nd] = k;
  return 0;
}

static void combine(const ferry_topo_machine *m, const ferry_topo_metrics *a, const ferry_topo_metrics *b,
                    double written, scen_row *row) {
  /* phase 2's gateway numbers, the worse phase's bottleneck, sums of the
   * rest; hops per byte written counts both phases' travel */
  const ferry_topo_metrics *worst = a->t_links >= b->t_links ? a : b;
  scen_row_from_metrics(m, worst, row);
  row->hop_bytes = a->hop_bytes + b->hop_bytes;
  row->avg_hops = written > 0 ? row->hop_bytes / written : 0;
  row->max_hops = a->max_hops > b->max_hops ? a->max_hops : b->max_hops;
  row->max_gw_msgs = b->max_gw_msgs;
  row->max_gw_bytes = b->max_gw_bytes;
  row->t_model = a->t_model + b->t_model;
  row->t_fair = (a->t_fair >= 0 && b->t_fair >= 0) ? a->t_fair + b->t_fair : -1;
  row->t_links = a->t_links + b->t_links;
  row->transit_msgs = a->transit_msgs + b->transit_msgs;
}

int scen_collective(const scen_cfg *c, ferry_topo_agg_method method, scen_row *row) {
  const ferry_topo_machine *m = c->m;
  double t0 = now();
  int nd = scen_naggs(c), rc;
  domains_t d;
  int *agg = malloc((size_t)nd * sizeof *agg);
  ferry_topo_flow *f1 = NULL, *f2 = NULL;
  ferry_topo_metrics m1, m2;
  memset(&m1, 0, sizeof m1);
  memset(&m2, 0, sizeof m2);
  if ((rc = domains_build(c, nd, &d)) || !agg) {
    rc = -ENOMEM;
    goto out;
  }
  if ((rc = ferry_topo_place_aggregators(m, method, nd, d.off, d.snd, NULL, agg))) goto out;
  size_t ns = d.off[nd];
  f1 = malloc((ns ? ns : 1) * sizeof *f1);
  f2 = malloc((size_t)nd * sizeof *f2);
  if (!f1 || !f2) {
    rc = -ENOMEM;
    goto out;
  }
  for (int j = 0; j < nd; j++) {
    for (size_t s = d.off[j]; s < d.off[j + 1]; s++)
      f1[s] = (ferry_topo_flow){d.snd[s].node, agg[j], -1, d.snd[s].bytes, d.msgs[s]};
    /* the aggregator writes its domain through its own default gateway,
     * one request per collective buffer */
    int g = ferry_topo_gateway_of_node(m, agg[j]);
    if (g < 0) g = ferry_topo_default_gateway(m, agg[j]);
    f2[j] = (ferry_topo_flow){agg[j], ferry_topo_gateway_node(m, g), g, d.size[j], ceil(d.size[j] / c->cb_buffer)};
  }
  if ((rc = ferry_topo_evaluate(m, f1, ns, &c->cost, &m1))) goto out;
  if ((rc = ferry_topo_evaluate(m, f2, (size_t)nd, &c->cost, &m2))) goto out;
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "collective-%s",
           method == FERRY_TOPO_AGG_FIRST_RANK ? "default" : ferry_topo_agg_name(method));
  double written = (double)ferry_topo_compute_nodes(m) * c->ppn * c->bytes_per_rank;
  combine(m, &m1, &m2, written, row);
  row->naggs = nd;
  row->secs = now() - t0;
  row->t_sim = -1;
  if (c->simulate) {
    /* the exchange, then the aggregators' writes */
    double a = sim_time(c, f1, ns), b = a < 0 ? -1 : sim_time(c, f2, (size_t)nd);
    if (b < 0) rc = -EIO;
    else row->t_sim = a + b;
  }
out:
  ferry_topo_metrics_free(&m1);
  ferry_topo_metrics_free(&m2);
  domains_free(&d);
  free(agg);
  free(f1);
  free(f2);
  return rc;
}
