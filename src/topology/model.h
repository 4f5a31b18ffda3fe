/* Internals shared by the topology layer's files: the machine record every
 * model fills in, the per-model operations, and small helpers. */
#ifndef FERRY_TOPOLOGY_MODEL_H
#define FERRY_TOPOLOGY_MODEL_H

#include "topology/topology.h"

#include <stddef.h>
#include <stdint.h>

#define FERRY_TOPO_SPEC_MAX 256

/* Element count for an allocation: never zero, never negative. */
static inline size_t ferry_topo__sz(long n) { return n > 0 ? (size_t)n : 1; }

/* What differs between models. route() and distance() must agree
 * (distance == route length) and routes must be destination-based so that
 * all routes into one node form a tree (tests check both). */
struct ferry_topo_ops {
  int (*route)(const ferry_topo_machine *m, int a, int b, int *links);
  int (*distance)(const ferry_topo_machine *m, int a, int b);
  int (*coords)(const ferry_topo_machine *m, int node, int *c);
  int (*node_at)(const ferry_topo_machine *m, const int *c);
  int (*dim_size)(const ferry_topo_machine *m, int dim);
  int (*link_ends)(const ferry_topo_machine *m, int link, int *from, int *to);
  void (*link_name)(const ferry_topo_machine *m, int link, char *buf, size_t len);
  /* Optional fast path: distances from node to every gateway. */
  void (*gw_distances)(const ferry_topo_machine *m, int node, uint16_t *out);
  void (*destroy)(void *impl);
};

struct ferry_topo_machine {
  const struct ferry_topo_ops *ops;
  void *impl;
  ferry_topo_kind kind;
  char spec[FERRY_TOPO_SPEC_MAX];
  char desc[320];

  int nnodes, ndims;
  int nnet;            /* interconnect links are [0, nnet) */
  int nlinks;          /* nnet + ngw: exit links follow */
  double *link_bw;     /* nlinks entries */
  double exit_bw;
  double hop_latency;

  int ngw;
  int *gw_node;        /* ascending node ids */
  int *gw_group;       /* ascending, 0 .. ngroups-1 */
  int ngroups;
  const char *gw_noun, *group_noun; /* set by the model, else generic */
  int *gw_proxy;
  int *node_gw;        /* node -> gateway index, -1 when not a gateway */
  int *default_gw;     /* node -> default gateway, -1 for service nodes */
  unsigned char *service;
  int ncompute;
  int *compute;        /* ascending compute node ids */
};

/* Model builders: fill ops, impl, nnodes, ndims, nnet, hop_latency, exit_bw,
 * gw_node/ngw/gw_group, service flags and default_gw, desc. The common part
 * (link_bw for net links via link_bw_fn, exit links, compute list, proxies)
 * is done by ferry_topo__finish(). */
int ferry_topo__build_torus(ferry_topo_machine *m, const char *args, int bgq, char *err, size_t errlen);
int ferry_topo__build_dragonfly(ferry_topo_machine *m, const char *args, char *err, size_t errlen);
int ferry_topo__build_fattree(ferry_topo_machine *m, const char *args, char *err, size_t errlen);
int ferry_topo__build_flat(ferry_topo_machine *m, const char *args, char *err, size_t errlen);
int ferry_topo__build_cluster(ferry_topo_machine *m, const char *args, char *err, size_t errlen);

/* The ops of a model whose functions are named PREFIX_route, PREFIX_distance,
 * ... PREFIX_destroy; gw_distances is its fast path or NULL. */
#define FERRY_TOPO_OPS(prefix, gw_distances_fn)                                                    \
  {                                                                                                \
    .route = prefix##_route, .distance = prefix##_distance, .coords = prefix##_coords,             \
    .node_at = prefix##_node_at, .dim_size = prefix##_dim_size, .link_ends = prefix##_link_ends,   \
    .link_name = prefix##_link_name, .gw_distances = gw_distances_fn, .destroy = prefix##_destroy, \
  }

/* Allocates the gateway arrays (gw_node, gw_group) for ngw gateways. */
int ferry_topo__alloc_gateways(ferry_topo_machine *m, int ngw);
/* Allocates the per-node arrays (service, default_gw) once nnodes is known. */
int ferry_topo__alloc_nodes(ferry_topo_machine *m);
/* Allocates link_bw for nnet + ngw links; the exit links get exit_bw. */
int ferry_topo__alloc_links(ferry_topo_machine *m);
/* Completes a machine once the model has filled its part. */
int ferry_topo__finish(ferry_topo_machine *m, char *err, size_t errlen);

/* Spec option lists: "pos,key=value,key=value". */
typedef struct {
  char key[32];
  char val[128];
  int used;
} ferry_topo_opt;

#define FERRY_TOPO_MAX_OPTS 24
typedef struct {
  char pos[128];               /* the first item when it has no '=' */
  int nopts;
  ferry_topo_opt opts[FERRY_TOPO_MAX_OPTS];
} ferry_topo_optlist;

int ferry_topo__parse_opts(const char *args, ferry_topo_optlist *ol, char *err, size_t errlen);
const char *ferry_topo__opt(ferry_topo_optlist *ol, const char *key);
int ferry_topo__opt_int(ferry_topo_optlist *ol, const char *key, int def, int lo, int hi, int *out,
                        char *err, size_t errlen);
int ferry_topo__opt_double(ferry_topo_optlist *ol, const char *key, double def, int *out_set,
                           double *out, char *err, size_t errlen);
/* Fails naming the first option no model code asked for. */
int ferry_topo__opts_all_used(const ferry_topo_optlist *ol, char *err, size_t errlen);
/* Every builder's start: the spec's options read into ol, then a zeroed impl
 * of impl_size bytes, ops and kind installed in m. */
int ferry_topo__start(ferry_topo_machine *m, ferry_topo_kind kind, const struct ferry_topo_ops *ops,
                      size_t impl_size, const char *args, ferry_topo_optlist *ol, char *err, size_t errlen);

void ferry_topo__seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Default gateways by contiguous blocks of compute nodes: the k-th compute
 * node gets gateway floor(k * ngw / ncompute). */
void ferry_topo__default_blocks(ferry_topo_machine *m);

/* Gateway candidate lists: for each participating node, the gateways no
 * farther than limit[i] hops, sorted by (distance, index). CSR layout. */
typedef struct {
  int n;
  size_t *off;     /* n + 1 */
  int *gw;
  uint16_t *dist;
} ferry_topo_cands;

int ferry_topo__cands_build(const ferry_topo_machine *m, int n, const int *nodes,
                            const int *limit, ferry_topo_cands *c);
void ferry_topo__cands_free(ferry_topo_cands *c);
/* Distances from node to every gateway (out has ngw entries). */
void ferry_topo__gw_distances(const ferry_topo_machine *m, int node, uint16_t *out);

/* Resolves the participating node list of an assignment or placement call:
 * either the caller's or the compute nodes. */
int ferry_topo__participants(const ferry_topo_machine *m, int n, const int *nodes,
                             const int **out, int *nout);

/* Route-aware greedy and local search on an existing assignment. */
/* Both take candidate lists built with a limit of at least the default
 * distance (route-aware) or default distance + slack (refine); entries
 * beyond a node's own limit are ignored. */
int ferry_topo__assign_route_aware(const ferry_topo_machine *m, int n, const int *nodes,
                                   const int *def, int mem_cap, const ferry_topo_cands *c,
                                   int *gw_out, int *moved);
/* The seed's walk as published: groups, per-bridge capped route trees that
 * avoid other bridges, level-synchronous round robin with retries. */
int ferry_topo__assign_seed(const ferry_topo_machine *m, int n, const int *nodes, const int *def, int mem_cap,
                            int *gw_out, int *moved);
/* What the local search (refine.c) balances: bytes per node on links, and
 * for load-aware the gateway groups' capacity and request server. */
typedef struct {
  const double *w;          /* bytes per participating node */
  const double *rq, *rqm;   /* requests on the default / another gateway; rq NULL => none */
  double group_bw;          /* > 0: each group passes this many bytes/s */
  double group_msg_cost;    /* > 0: seconds per request at a group's server */
  int mem_cap, slack;
  double mem_cap_bytes;     /* > 0: bytes moved onto one gateway at most */
  long max_moves;           /* <= 0 => n */
} ferry_topo__search;
int ferry_topo__refine(const ferry_topo_machine *m, int n, const int *nodes, const int *def,
                       const ferry_topo__search *sp, const ferry_topo_cands *c, int *gw,
                       ferry_topo_assign_stats *st);
/* Largest bytes/bandwidth over links and hop-bytes of an assignment. */
int ferry_topo__peak(const ferry_topo_machine *m, int n, const int *nodes, const double *w, const int *gw,
                     double *peak, double *hop_bytes);
/* Hop limit for node i: default distance (+ slack), -1 for gateway nodes,
 * which never move. */
int ferry_topo__limits(const ferry_topo_machine *m, int n, const int *nodes, const int *def,
                       int slack, int *limit);

/* Weighted max-min fair-share completion time of a flow set (CSR routes). */
double ferry_topo__fair_share(int nlinks, const double *bw, size_t nflows, const size_t *route_off,
                              const int *route_links, const double *bytes, const double *weight,
                              int max_epochs, int *epochs);

#endif
