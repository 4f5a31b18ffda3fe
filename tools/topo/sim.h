/* ferry-topo's SimGrid back end: a set of flows on a machine model run as
 * simulated communications with flow-level contention (SimGrid's CM02
 * max-min sharing, no TCP corrections), plus a per-request service cost at
 * each receiver.
 *
 * Each flow {src, dst, gw, bytes, msgs} becomes msgs concurrent messages of
 * bytes/msgs from src over the static route to dst and then, when gw >= 0,
 * over gw's exit link (BG/Q: bridge -> I/O node). Each message, once
 * delivered, costs msg_cost seconds of the receiver's (the gateway's, or
 * dst's when gw < 0) one service queue: a work-conserving server, so a
 * gateway's requests add up (they are not max'ed with the transfer time).
 * A machine is built once per run: SimGrid allows one engine per process,
 * so sim_run() runs the engine in a child process. */
#ifndef FERRY_TOPO_SIM_H
#define FERRY_TOPO_SIM_H

#include <stddef.h>

#include "topology/topology.h"

typedef struct {
  double msg_cost;     /* seconds of receiver service per message; 0 => none */
  double hop_latency;  /* seconds per link; <= 0 => the machine's */
  int split;           /* 1: one SimGrid communication per message; 0 (the
                          default): a flow's messages, identical in route,
                          size and start, as one communication with msgs
                          times the share, serviced as msgs requests on
                          delivery (the same max-min allocation, msgs times
                          fewer communications) */
} sim_params;

typedef struct {
  double t_sim;        /* simulated completion time, seconds */
  double wall;         /* wall seconds the simulation took (engine only) */
  long nflows;         /* sender endpoints (SimGrid hosts) */
  long nmsgs;          /* SimGrid communications */
  long nlinks;         /* SimGrid links created (links some flow uses) */
} sim_result;

int sim_run(const ferry_topo_machine *m, const ferry_topo_flow *flows, size_t nflows, const sim_params *p,
            sim_result *out, char *err, size_t errlen);

/* ---- between sim_run.c and sim_engine.cpp ---- */
typedef struct {
  size_t nflows;
  const size_t *route_off;   /* nflows + 1 */
  const int *route;          /* dense link indices */
  const int *msgs;           /* per flow */
  const double *msg_bytes;   /* per flow */
  const int *sink;           /* per flow: receiver index */
  int nsinks;
  int nlinks;
  const double *link_bw;     /* per dense link, bytes/s */
  double latency;            /* every message's: the longest route's network
                                hops x hop latency (the floor's term) */
  double msg_cost;
  int split;
} sim_spec;

/* ---- I/O paths: shipped writes, one at a time per node ----------------
 *
 * BG/Q ships a compute node's writes to its I/O node one at a time: one
 * daemon per node, the node kernel holding one lock across request, RDMA
 * pulls of at most `pull` bytes and reply. A shipper is such a node: it
 * writes its batches in order (its own data first, then data other nodes
 * sent it by MPI, as it arrives), each write crossing the route to its
 * gateway, the gateway's exit link and the group's link (when group_bw),
 * then costing msg_cost of its group's one server. Transfers are MPI sends
 * (all at once at the start) whose arrival hands their batches to the
 * receiving shipper. */
typedef struct {
  int ship;            /* the shipper that writes it */
  double bytes;        /* of each write */
  int count;           /* writes */
  int xfer;            /* -1: ready at the start; else the transfer bringing it */
} sim_batch;

typedef struct {
  int src, dst;        /* nodes */
  double bytes;        /* all its messages */
  int msgs;            /* messages: its share of the links */
} sim_xfer;

typedef struct {
  int node, gw;        /* a shipper: its node and the gateway it writes through */
} sim_shipper;

typedef struct {
  int nship;
  const sim_shipper *ship;
  int nbatch;
  const sim_batch *batch; /* each shipper's own batches in the order given */
  int nxfer;
  const sim_xfer *xfer;
  double pull;         /* bytes per RDMA pull (BG/Q sysiod: 1 MiB) */
  double msg_cost;     /* seconds per request at its group's server; 0 => none */
  double group_bw;     /* bytes/s a gateway group passes on; 0 => unlimited */
  double hop_latency;  /* <= 0 => the machine's */
  const char *label;   /* progress lines name it */
  double wall_before;  /* seconds the command ran before this plan: progress counts from its start */
} sim_plan;

/* Runs a plan on SimGrid in a child process. Progress goes to stderr every
 * 10 s once the command (wall_before plus this run) passes 10 s of wall time. */
int sim_paths_run(const ferry_topo_machine *m, const sim_plan *p, sim_result *out, char *err, size_t errlen);

/* ---- between sim_paths.c and sim_engine.cpp ---- */
typedef struct {
  int nship;
  const size_t *ship_off;      /* nship + 1 into ship_route */
  const int *ship_route;       /* dense links */
  const int *ship_sink;        /* group server index */
  const double *ship_lat;      /* one-way latency of the shipper's route */
  int nbatch;
  const sim_batch *batch;
  int nxfer;
  const size_t *xfer_off;
  const int *xfer_route;
  const double *xfer_bytes;
  const int *xfer_msgs;
  const double *xfer_lat;
  int nsinks;
  int nlinks;
  const double *link_bw;
  double pull;
  double msg_cost;
  long nwrites;                /* for progress */
  const char *label;
  double wall_before;
} sim_path_spec;

#ifdef __cplusplus
extern "C" {
#endif
/* Builds the platform and runs it; returns 0 and the simulated time. Call
 * at most once per process. */
int sim_engine_run(const sim_spec *s, double *t_sim);
int sim_engine_paths(const sim_path_spec *s, double *t_sim);
#ifdef __cplusplus
}
#endif

/* Runs fn(arg, &t) in a child process (SimGrid allows one engine per
 * process) and returns its time; wall gets the elapsed seconds. */
int sim_in_child(int (*fn)(const void *arg, double *t), const void *arg, double *t, double *wall, char *err,
                 size_t errlen);

#endif
