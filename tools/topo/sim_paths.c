/* sim_paths_run(): an I/O path plan -> the dense description the SimGrid
 * engine builds its platform from (links numbered in first-use order,
 * routes as dense link lists), then the run in a child process. */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int *dense, *inv, nl;
  size_t *ship_off, *xfer_off;
  int *ship_route, *xfer_route, *ship_sink, *xfer_msgs;
  double *ship_lat, *xfer_lat, *xfer_bytes, *bw;
  size_t cap, used;
  int *route; /* one buffer for both route lists while building */
} paths_mem;

static void mem_free(paths_mem *x) {
  free(x->dense), free(x->inv), free(x->ship_off), free(x->xfer_off), free(x->ship_route), free(x->xfer_route);
  free(x->ship_sink), free(x->xfer_msgs), free(x->ship_lat), free(x->xfer_lat), free(x->xfer_bytes), free(x->bw);
}

/* Appends links to a dense route list; returns 0 or -ENOMEM. */
static int append(paths_mem *x, int **list, size_t *cap, size_t *used, const int *links, int n) {
  if (*used + (size_t)n > *cap) {
    size_t nc = *cap * 2 + (size_t)n + 64;
    int *r = realloc(*list, nc * sizeof *r);
    if (!r) return -ENOMEM;
    *list = r;
    *cap = nc;
  }
  for (int k = 0; k < n; k++) {
    int l = links[k];
    if (x->dense[l] < 0) x->inv[x->nl] = l, x->dense[l] = x->nl++;
    (*list)[(*used)++] = x->dense[l];
  }
  return 0;
}

static int run_paths(const void *arg, double *t) { return sim_engine_paths(arg, t); }

int sim_paths_run(const ferry_topo_machine *m, const sim_plan *p, sim_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int N = ferry_topo_nodes(m), G = ferry_topo_gateways(m), NG = ferry_topo_gateway_groups(m);
  int L = ferry_topo_links(m), gl = p->group_bw > 0;
  double lat = p->hop_latency > 0 ? p->hop_latency : ferry_topo_hop_latency(m);
  paths_mem x;
  memset(&x, 0, sizeof x);
  int rc = -ENOMEM, buf[FERRY_TOPO_MAX_ROUTE + 2];
  x.dense = malloc((size_t)(L + NG) * sizeof *x.dense);
  x.inv = malloc((size_t)(L + NG) * sizeof *x.inv);
  x.ship_off = malloc(((size_t)p->nship + 1) * sizeof *x.ship_off);
  x.xfer_off = malloc(((size_t)p->nxfer + 1) * sizeof *x.xfer_off);
  x.ship_sink = malloc(((size_t)p->nship + 1) * sizeof *x.ship_sink);
  x.ship_lat = malloc(((size_t)p->nship + 1) * sizeof *x.ship_lat);
  x.xfer_msgs = malloc(((size_t)p->nxfer + 1) * sizeof *x.xfer_msgs);
  x.xfer_lat = malloc(((size_t)p->nxfer + 1) * sizeof *x.xfer_lat);
  x.xfer_bytes = malloc(((size_t)p->nxfer + 1) * sizeof *x.xfer_bytes);
  if (!x.dense || !x.inv || !x.ship_off || !x.xfer_off || !x.ship_sink || !x.ship_lat || !x.xfer_msgs || !x.xfer_lat ||
      !x.xfer_bytes)
    goto fail;
  for (int l = 0; l < L + NG; l++) x.dense[l] = -1;
  size_t scap = 0, sused = 0, xcap = 0, xused = 0;
  rc = -EINVAL;
  for (int k = 0; k < p->nship; k++) {
    const sim_shipper *s = &p->ship[k];
    if (s->node < 0 || s->node >= N || s->gw < 0 || s->gw >= G) {
      snprintf(err, errlen, "shipper %d: bad node or gateway", k);
      goto fail;
    }
    int n = ferry_topo_route(m, s->node, ferry_topo_gateway_node(m, s->gw), buf);
    x.ship_lat[k] = (n + 1) * lat; /* the route and the exit link */
    buf[n++] = ferry_topo_gateway_exit_link(m, s->gw);
    if (gl) buf[n++] = L + ferry_topo_gateway_group(m, s->gw);
    x.ship_off[k] = sused;
    x.ship_sink[k] = ferry_topo_gateway_group(m, s->gw);
    if (append(&x, &x.ship_route, &scap, &sused, buf, n)) goto nomem;
  }
  x.ship_off[p->nship] = sused;
  for (int j = 0; j < p->nxfer; j++) {
    const sim_xfer *t = &p->xfer[j];
    if (t->src < 0 || t->src >= N || t->dst < 0 || t->dst >= N || t->msgs < 1 || !(t->bytes >= 0)) {
      snprintf(err, errlen, "transfer %d: bad endpoints, bytes or messages", j);
      goto fail;
    }
    int n = ferry_topo_route(m, t->src, t->dst, buf);
    x.xfer_lat[j] = n * lat;
    x.xfer_off[j] = xused;
    x.xfer_msgs[j] = t->msgs;
    x.xfer_bytes[j] = t->bytes;
    if (append(&x, &x.xfer_route, &xcap, &xused, buf, n)) goto nomem;
  }
  x.xfer_off[p->nxfer] = xused;
  long nwrites = 0;
  for (int b = 0; b < p->nbatch; b++) {
    const sim_batch *q = &p->batch[b];
    if (q->ship < 0 || q->ship >= p->nship || q->count < 0 || !(q->bytes >= 0) || q->xfer < -1 || q->xfer >= p->nxfer) {
      snprintf(err, errlen, "batch %d: bad shipper, writes or transfer", b);
      goto fail;
    }
    nwrites += q->count;
  }
  x.bw = malloc((size_t)(x.nl ? x.nl : 1) * sizeof *x.bw);
  if (!x.bw) goto nomem;
  for (int l = 0; l < x.nl; l++) x.bw[l] = x.inv[l] < L ? ferry_topo_link_bandwidth(m, x.inv[l]) : p->group_bw;
  sim_path_spec sp = {p->nship,  x.ship_off,   x.ship_route, x.ship_sink, x.ship_lat, p->nbatch, p->batch,
                      p->nxfer,  x.xfer_off,   x.xfer_route, x.xfer_bytes, x.xfer_msgs, x.xfer_lat, NG,
                      x.nl,      x.bw,         p->pull > 0 ? p->pull : 1048576.0,     p->msg_cost, nwrites,
                      p->label ? p->label : "simulate", p->wall_before};
  out->nflows = p->nship + p->nxfer;
  out->nmsgs = nwrites + p->nxfer;
  out->nlinks = x.nl;
  rc = sim_in_child(run_paths, &sp, &out->t_sim, &out->wall, err, errlen);
  mem_free(&x);
  return rc;
nomem:
  rc = -ENOMEM;
  snprintf(err, errlen, "out of memory building the platform");
fail:
  mem_free(&x);
  return rc;
}
