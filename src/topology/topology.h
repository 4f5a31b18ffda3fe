/* ferry topology layer: machine models, static routes, gateway assignment,
 * aggregator placement and a flow cost model.
 *
 * The layer knows nothing of MPI or of files. Its vocabulary:
 *   node    an endpoint, 0 .. ferry_topo_nodes()-1 (compute or service node);
 *   link    a directed channel, 0 .. ferry_topo_links()-1, with a bandwidth;
 *           the last ferry_topo_gateways() ids are the gateways' exit links
 *           (BG/Q bridge -> I/O node, LNET router -> storage network);
 *   gateway an index 0 .. ferry_topo_gateways()-1 naming a gateway node.
 *
 * A machine is immutable once built, so every function here may be called
 * from several threads at once on the same machine. Functions returning int
 * return 0 (or a count) on success and a negative errno value on failure. */
#ifndef FERRY_TOPOLOGY_H
#define FERRY_TOPOLOGY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_TOPO_MAX_DIMS 8     /* coordinates any model reports */
#define FERRY_TOPO_MAX_ROUTE 256  /* links in the longest route any model builds */

typedef struct ferry_topo_machine ferry_topo_machine;

typedef enum {
  FERRY_TOPO_TORUS = 0,   /* n-D torus/mesh, BG/Q presets */
  FERRY_TOPO_DRAGONFLY,   /* Cray XC / Aries-like */
  FERRY_TOPO_FATTREE,     /* k-ary, 2 or 3 levels, D-mod-k */
  FERRY_TOPO_FLAT,        /* one switch: the fall-back */
  FERRY_TOPO_CLUSTER      /* one switch, I/O nodes between it and storage (scripts/cluster.sh) */
} ferry_topo_kind;

/* ---- machines ---------------------------------------------------------- */

/* Builds a machine from a spec such as "bgq:512", "bgq:4x4x4x4x2",
 * "bgq:mira", "torus:8x8x8", "dragonfly:theta", "fattree:k=16,levels=3" or
 * "flat:64"; options follow commas (docs/topology.md lists them). On failure
 * *out is NULL and err (if given) holds a one-line reason. */
int ferry_topo_create(const char *spec, ferry_topo_machine **out, char *err, size_t errlen);
void ferry_topo_free(ferry_topo_machine *m);

const char *ferry_topo_spec(const ferry_topo_machine *m);     /* as given */
const char *ferry_topo_describe(const ferry_topo_machine *m); /* one line */
ferry_topo_kind ferry_topo_kind_of(const ferry_topo_machine *m);

int ferry_topo_nodes(const ferry_topo_machine *m);
/* Compute nodes are where ranks live; service nodes (LNET routers, fat-tree
 * I/O gateways) are not. BG/Q bridges are compute nodes. */
int ferry_topo_compute_nodes(const ferry_topo_machine *m);
int ferry_topo_compute_node(const ferry_topo_machine *m, int k); /* k-th, ascending */
int ferry_topo_is_service(const ferry_topo_machine *m, int node);
/* Block mapping of ranks onto compute nodes (BG/Q ABCDET order): -1 when
 * the rank falls off the machine. */
int ferry_topo_rank_node(const ferry_topo_machine *m, long rank, int ranks_per_node);

int ferry_topo_ndims(const ferry_topo_machine *m);
int ferry_topo_dim_size(const ferry_topo_machine *m, int dim);
int ferry_topo_coords(const ferry_topo_machine *m, int node, int *coords); /* returns ndims */
int ferry_topo_node_at(const ferry_topo_machine *m, const int *coords);    /* -1 if none */
/* The compute node of `host` in a host map's text (format in hostmap.c:
 * "hostname c0 c1 ..." or "hostname N" per line), or -1 with err set. */
int ferry_topo_hostmap_node(const ferry_topo_machine *m, const char *text, const char *host, char *err,
                            size_t errlen);

int ferry_topo_links(const ferry_topo_machine *m);
double ferry_topo_link_bandwidth(const ferry_topo_machine *m, int link); /* bytes/s */
/* Ends of a link as node ids (-1 for a router, switch or storage side).
 * Returns 1 if the link exists in the machine, 0 for an unused id (mesh
 * boundaries, unwired ports), negative on a bad id. */
int ferry_topo_link_ends(const ferry_topo_machine *m, int link, int *from, int *to);
void ferry_topo_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len);
double ferry_topo_hop_latency(const ferry_topo_machine *m); /* seconds per link */

/* ---- routes ------------------------------------------------------------ */

/* The deterministic route a -> b as link ids; links[] must have room for
 * FERRY_TOPO_MAX_ROUTE entries. Returns the number of links (0 when a == b). */
int ferry_topo_route(const ferry_topo_machine *m, int a, int b, int *links);
int ferry_topo_distance(const ferry_topo_machine *m, int a, int b); /* == route length */
/* The tree every static route into dst forms: parent_link[v] is the first
 * link of route(v, dst) (-1 for dst), depth[v] its length. Either may be NULL. */
int ferry_topo_route_tree(const ferry_topo_machine *m, int dst, int *parent_link, int *depth);

/* ---- gateways ---------------------------------------------------------- */

int ferry_topo_gateways(const ferry_topo_machine *m);
int ferry_topo_gateway_node(const ferry_topo_machine *m, int gw);
int ferry_topo_gateway_of_node(const ferry_topo_machine *m, int node); /* -1 if not one */
int ferry_topo_gateway_exit_link(const ferry_topo_machine *m, int gw);
int ferry_topo_gateway_group(const ferry_topo_machine *m, int gw); /* ION / FGR group */
/* Gateway groups: 1 + the largest ferry_topo_gateway_group (BG/Q: I/O nodes,
 * two bridges each). */
int ferry_topo_gateway_groups(const ferry_topo_machine *m);
/* What the model calls its gateways and their groups, for messages:
 * "bridge" / "I/O node" on BG/Q, "gateway" / "gateway group" elsewhere. */
const char *ferry_topo_gateway_noun(const ferry_topo_machine *m);
const char *ferry_topo_group_noun(const ferry_topo_machine *m);
/* The compute node that hosts the forwarder for a gateway: the gateway
 * itself when it is a compute node, else its nearest compute node. */
int ferry_topo_gateway_proxy(const ferry_topo_machine *m, int gw);
/* The static balanced assignment: the gateway a node uses by default. */
int ferry_topo_default_gateway(const ferry_topo_machine *m, int node);

/* ---- costs ------------------------------------------------------------- */

typedef struct {
  double hop_latency;  /* seconds per link; <= 0 => machine's */
  double msg_cost;     /* seconds a receiver spends per message; 0 => off */
  int fair_share;      /* also run the max-min fair-share estimate */
  int max_epochs;      /* fair share: rate recomputations; <= 0 => 100000 */
  /* A gateway group (BG/Q: the I/O node two bridges share) as one shared
   * resource behind its gateways' exit links: the bytes it passes on per
   * second and the seconds its one server spends on each request (message
   * of a flow with a gateway). 0 => unlimited / off. */
  double group_bw;
  double group_msg_cost;
} ferry_topo_cost_params;

/* ---- assignment -------------------------------------------------------- */

typedef enum {
  FERRY_TOPO_ASSIGN_DEFAULT = 0, /* static balanced (BG/Q: own bridge) */
  FERRY_TOPO_ASSIGN_ROUTE_AWARE, /* the seed's route- and load-aware walk */
  FERRY_TOPO_ASSIGN_REFINED,     /* route-aware-flat + max-link-load local search */
  FERRY_TOPO_ASSIGN_ROUTE_AWARE_FLAT, /* ferry's earlier walk: one average,
                                         no deeper retry, any route */
  FERRY_TOPO_ASSIGN_LOAD_AWARE   /* local search from the default on the
                                    bytes (and requests) each link, gateway
                                    and gateway group carries */
} ferry_topo_assign_algo;

typedef struct {
  int nnodes;              /* participating nodes; 0 => all compute nodes */
  const int *nodes;        /* distinct node ids (ignored when nnodes == 0) */
  const double *node_bytes;/* bytes each participating node sends; NULL => 1 */
  int mem_cap;             /* max nodes moved onto one gateway; <= 0: none */
  double mem_cap_bytes;    /* refined, load-aware: max node_bytes moved onto
                              one gateway (buffers there); <= 0: none */
  int slack;               /* refinement: hops allowed beyond the default
                              distance; < 0 => 2 */
  long max_moves;          /* refinement move budget; <= 0 => nnodes */
  /* load-aware: requests each node sends through its default gateway and
   * through any other (a path that coalesces moved nodes sends fewer);
   * NULL => no requests counted / the same as node_msgs */
  const double *node_msgs;
  const double *moved_msgs;
  /* load-aware: group capacity and per-request cost; NULL => links only */
  const ferry_topo_cost_params *cost;
} ferry_topo_assign_params;

typedef struct {
  int moved;               /* nodes not on their default gateway at the end */
  long refine_moves;       /* local-search moves applied */
  double max_link_time_before; /* refinement: max bytes/bw before and after */
  double max_link_time_after;
} ferry_topo_assign_stats;

/* gw_out[i] receives the gateway index of the i-th participating node
 * (of the i-th compute node when p->nnodes == 0). p and st may be NULL. */
int ferry_topo_assign(const ferry_topo_machine *m, ferry_topo_assign_algo algo,
                      const ferry_topo_assign_params *p, int *gw_out,
                      ferry_topo_assign_stats *st);
const char *ferry_topo_assign_name(ferry_topo_assign_algo algo);
int ferry_topo_assign_parse(const char *name, ferry_topo_assign_algo *algo);

/* ---- aggregator placement (two-phase I/O) ------------------------------ */

typedef enum {
  FERRY_TOPO_AGG_FIRST_RANK = 0, /* ROMIO: first rank of evenly spaced nodes */
  FERRY_TOPO_AGG_BRIDGE_RING,    /* ROMIO GPFSMPIO_BRIDGERINGAGG */
  FERRY_TOPO_AGG_TOPOLOGY        /* TAPIOCA cost model */
} ferry_topo_agg_method;

typedef struct {
  int node;
  double bytes;
} ferry_topo_sender;

typedef struct {
  int nnodes;           /* candidate nodes in rank order; 0 => compute nodes */
  const int *nodes;
  const int *node_gw;   /* gateway each machine node writes through, indexed
                           by node id; NULL => the default assignment */
  int ring_hops;        /* bridge ring: first distance used; <= 0 => 1 */
  double latency;       /* TAPIOCA L, seconds per hop; <= 0 => machine's */
  double bandwidth;     /* TAPIOCA B, bytes/s; <= 0 => machine's link bw */
} ferry_topo_agg_params;

/* Domain j's senders are senders[dom_off[j] .. dom_off[j+1]-1]; agg_node[j]
 * receives the node chosen to aggregate domain j. */
int ferry_topo_place_aggregators(const ferry_topo_machine *m, ferry_topo_agg_method method,
                                 int ndomains, const size_t *dom_off,
                                 const ferry_topo_sender *senders,
                                 const ferry_topo_agg_params *p, int *agg_node);
const char *ferry_topo_agg_name(ferry_topo_agg_method method);
int ferry_topo_agg_parse(const char *name, ferry_topo_agg_method *method);

/* ---- flows and the cost model ------------------------------------------ */

typedef struct {
  int src, dst;   /* nodes */
  int gw;         /* gateway whose exit link the flow also crosses, or -1 */
  double bytes;
  double msgs;    /* messages; also the flow's weight in fair sharing */
} ferry_topo_flow;

/* The resource a time is bound by. ties: links, then receivers, then
 * group bytes, then group requests. */
typedef enum {
  FERRY_TOPO_BIND_NONE = 0,
  FERRY_TOPO_BIND_LINK,        /* id: a network link */
  FERRY_TOPO_BIND_EXIT,        /* id: a gateway (its exit link) */
  FERRY_TOPO_BIND_RECEIVER,    /* id: a node (messages x msg_cost) */
  FERRY_TOPO_BIND_GROUP_BYTES, /* id: a gateway group (bytes / group_bw) */
  FERRY_TOPO_BIND_GROUP_MSGS   /* id: a gateway group (requests x group_msg_cost) */
} ferry_topo_bind_kind;

typedef struct {
  ferry_topo_bind_kind kind;
  int id;
  double load;      /* bytes, or messages for RECEIVER / GROUP_MSGS */
  double capacity;  /* bytes/s, or messages/s */
  double time;      /* load / capacity */
} ferry_topo_binding;

/* "link A+ (0,0,0,0,0)->(1,0,0,0,0)", "bridge 3 (node 98) -> I/O node 1",
 * "I/O node 1 (2 bridges): requests", ... */
void ferry_topo_binding_name(const ferry_topo_machine *m, const ferry_topo_binding *b, char *buf, size_t len);

typedef struct {
  size_t nflows;
  double total_bytes, total_msgs;
  double hop_bytes;        /* sum of bytes x network hops (exit link excluded) */
  double avg_hops;         /* hop_bytes / total_bytes */
  int max_hops;
  int nlinks;
  double *link_bytes;      /* per link, nlinks entries (owned) */
  int max_link;            /* link with the largest bytes/bandwidth, -1 if idle */
  double max_link_load;    /* its bytes */
  int ngw;
  double *gw_bytes, *gw_msgs;  /* arriving at each gateway (owned) */
  double max_gw_bytes, max_gw_msgs;
  int max_gw_bytes_gw, max_gw_msgs_gw;
  double transit_bytes, transit_msgs; /* routed through a gateway node that
                                         is not the flow's destination */
  double t_links;          /* max over links of bytes / bandwidth */
  double t_latency;        /* longest route x hop latency */
  double t_msgs;           /* busiest receiver's messages x msg_cost */
  int ngroups;
  double *group_bytes, *group_msgs; /* through each gateway group (owned) */
  double t_group_bytes;    /* max over groups of bytes / group_bw (0: unlimited) */
  double t_group_msgs;     /* max over groups of requests x group_msg_cost */
  double t_model;          /* max(t_links, t_msgs, t_group_bytes, t_group_msgs)
                              + t_latency: the floor */
  ferry_topo_binding bind; /* the resource that sets the floor */
  double t_fair;           /* max-min fair-share completion + t_latency, or -1 */
  int fair_epochs;         /* rate recomputations the estimate took */
} ferry_topo_metrics;

int ferry_topo_evaluate(const ferry_topo_machine *m, const ferry_topo_flow *flows, size_t nflows,
                        const ferry_topo_cost_params *cp, ferry_topo_metrics *out);
void ferry_topo_metrics_free(ferry_topo_metrics *mt);

/* ---- advice ------------------------------------------------------------ */

/* Which gateway assignment to use for a set of writers: default, the
 * seed's route-aware walk and load-aware are costed with
 * ferry_topo_evaluate on the same flows (each node's bytes and requests to
 * its gateway, a moved node's requests from moved_msgs), and a reassignment
 * is advised only when its floor is at least min_gain below the default's. */
#define FERRY_TOPO_ADVICE_CANDIDATES 3
typedef struct {
  ferry_topo_assign_algo algo;
  double t_model;          /* the floor, seconds */
  int moved;
  ferry_topo_binding bind; /* what sets it */
  double max_gw_bytes;     /* the busiest gateway's bytes */
  double mean_gw_bytes;    /* bytes over all gateways: what perfect balance gives each */
} ferry_topo_choice;

typedef struct {
  ferry_topo_choice cand[FERRY_TOPO_ADVICE_CANDIDATES]; /* default, route-aware, load-aware */
  int best;                /* index of the advised candidate */
  double gain;             /* 1 - its t_model / the default's */
  double imbalance;        /* default's busiest gateway bytes / the mean */
  char why[96];            /* one line: which and why */
} ferry_topo_advice;

/* p: the writers as for ferry_topo_assign (node_bytes, node_msgs,
 * moved_msgs, cost, mem_cap, slack); min_gain <= 0 => 0.02. gw_out
 * receives the advised assignment (may be NULL). */
int ferry_topo_advise(const ferry_topo_machine *m, const ferry_topo_assign_params *p, double min_gain,
                      int *gw_out, ferry_topo_advice *adv);

/* ---- presets ----------------------------------------------------------- */

typedef struct {
  const char *spec;
  const char *note;   /* provenance: verified / assumed */
} ferry_topo_preset;

/* Returns the number of presets; *list points at a static table. */
int ferry_topo_presets(const ferry_topo_preset **list);

#ifdef __cplusplus
}
#endif
#endif
