/* Building the I/O path plans of paths.h. */
#include "paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *path_name(path_kind k) {
  switch (k) {
  case PATH_DIRECT: return "direct";
  case PATH_SEED: return "seed";
  case PATH_SEED_COALESCED: return "seed-coalesced";
  case PATH_FORWARD: return "forward";
  case PATH_NODE_REQUEST: return "node-request";
  }
  return "?";
}

typedef struct {
  const ferry_topo_machine *m;
  path_plan *p;
  int *ship_of; /* node -> shipper index, -1 */
  int capship, capbatch, capxfer;
} builder;

static int grow(void **a, int *cap, int n, size_t elem) {
  if (n < *cap) return 0;
  int nc = *cap ? *cap * 2 : 256;
  void *q = realloc(*a, (size_t)nc * elem);
  if (!q) return -ENOMEM;
  *a = q;
  *cap = nc;
  return 0;
}

/* The shipper of a node: a gateway node writes through itself (a bridge, or
 * a service node such as an LNET router or an I/O node, which has no
 * default gateway), any other through its default gateway. */
static int shipper(builder *b, int node) {
  if (b->ship_of[node] >= 0) return b->ship_of[node];
  if (grow((void **)&b->p->ship, &b->capship, b->p->nship, sizeof *b->p->ship)) return -1;
  int own = ferry_topo_gateway_of_node(b->m, node);
  b->p->ship[b->p->nship] = (sim_shipper){node, own >= 0 ? own : ferry_topo_default_gateway(b->m, node)};
  return b->ship_of[node] = b->p->nship++;
}

static int batch(builder *b, int ship, double bytes, int count, int xfer) {
  if (count <= 0 || bytes <= 0) return 0;
  if (grow((void **)&b->p->batch, &b->capbatch, b->p->nbatch, sizeof *b->p->batch)) return -ENOMEM;
  b->p->batch[b->p->nbatch++] = (sim_batch){ship, bytes, count, xfer};
  return 0;
}

static int xfer(builder *b, int src, int dst, double bytes, int msgs) {
  if (grow((void **)&b->p->xfer, &b->capxfer, b->p->nxfer, sizeof *b->p->xfer)) return -1;
  b->p->xfer[b->p->nxfer] = (sim_xfer){src, dst, bytes, msgs > 0 ? msgs : 1};
  return b->p->nxfer++;
}

/* Node k's ranks' writes as batches of equal writes (consecutive ranks
 * with the same write size share one), at shipper s, ready with transfer x. */
static int rank_batches(builder *b, const writers_t *w, int k, int s, int x) {
  long r0 = (long)k * w->ppn, r1 = r0 + w->ppn;
  double size = -1;
  int count = 0;
  for (long r = r0; r < r1; r++) {
    if (w->bytes[r] <= 0) continue;
    int c = w->calls[r] >= 1 ? (int)(w->calls[r] + 0.5) : 1;
    double each = w->bytes[r] / c;
    if (count && each != size) {
      if (batch(b, s, size, count, x)) return -ENOMEM;
      count = 0;
    }
    size = each;
    count += c;
  }
  return count ? batch(b, s, size, count, x) : 0;
}

static int ranks_writing(const writers_t *w, int k) {
  int n = 0;
  for (long r = (long)k * w->ppn; r < (long)(k + 1) * w->ppn; r++) n += w->bytes[r] > 0;
  return n;
}

int path_build(const ferry_topo_machine *m, const writers_t *w, const int *gw, path_kind kind, path_plan *out) {
  memset(out, 0, sizeof *out);
  builder b = {m, out, malloc((size_t)ferry_topo_nodes(m) * sizeof(int)), 0, 0, 0};
  if (!b.ship_of) return -ENOMEM;
  for (int v = 0; v < ferry_topo_nodes(m); v++) b.ship_of[v] = -1;
  int rc = 0, n = ferry_topo_compute_nodes(m);
  for (int k = 0; k < n && rc == 0; k++) {
    int v = ferry_topo_compute_node(m, k), def = ferry_topo_default_gateway(m, v);
    double nb = writers_node_bytes(w, k);
    if (nb <= 0) continue;
    int g = kind == PATH_DIRECT || kind == PATH_NODE_REQUEST ? def : gw[k];
    int to = ferry_topo_gateway_node(m, g);
    int moved = g != def;
    if (kind == PATH_NODE_REQUEST) {
      int s = shipper(&b, v);
      rc = s < 0 ? -ENOMEM : batch(&b, s, nb, 1, -1);
    } else if (!moved && kind != PATH_FORWARD) {
      int s = shipper(&b, v);
      rc = s < 0 ? -ENOMEM : rank_batches(&b, w, k, s, -1);
    } else if (kind == PATH_FORWARD && v == to) {
      int s = shipper(&b, v); /* the forwarder's own node: no message */
      rc = s < 0 ? -ENOMEM : rank_batches(&b, w, k, s, -1);
    } else {
      /* the seed sends each rank's block (or the gathered node, coalesced);
       * ferry's collector one message of the node's pieces */
      int msgs = kind == PATH_SEED ? ranks_writing(w, k) : 1;
      int s = shipper(&b, to), x = s < 0 ? -1 : xfer(&b, v, to, nb, msgs);
      if (x < 0) rc = -ENOMEM;
      else if (kind == PATH_SEED_COALESCED) rc = batch(&b, s, nb, 1, x);
      else rc = rank_batches(&b, w, k, s, x);
    }
  }
  /* the same as flows: each shipper's writes through its gateway, each
   * transfer on its route */
  if (rc == 0) {
    out->flows = calloc((size_t)(out->nship + out->nxfer) + 1, sizeof *out->flows);
    if (!out->flows) rc = -ENOMEM;
  }
  if (rc == 0) {
    for (int s = 0; s < out->nship; s++) {
      int g = out->ship[s].gw;
      out->flows[s] = (ferry_topo_flow){out->ship[s].node, ferry_topo_gateway_node(m, g), g, 0, 0};
    }
    for (int q = 0; q < out->nbatch; q++) {
      out->flows[out->batch[q].ship].bytes += out->batch[q].bytes * out->batch[q].count;
      out->flows[out->batch[q].ship].msgs += out->batch[q].count;
    }
    for (int x = 0; x < out->nxfer; x++)
      out->flows[out->nship + x] =
          (ferry_topo_flow){out->xfer[x].src, out->xfer[x].dst, -1, out->xfer[x].bytes, out->xfer[x].msgs};
    out->nflows = (size_t)(out->nship + out->nxfer);
  }
  free(b.ship_of);
  if (rc) path_free(out);
  return rc;
}

void path_free(path_plan *p) {
  free(p->ship);
  free(p->batch);
  free(p->xfer);
  free(p->flows);
  memset(p, 0, sizeof *p);
}
