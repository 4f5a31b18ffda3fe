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

#ifdef __cplusplus
extern "C" {
#endif
/* Builds the platform and runs it; returns 0 and the simulated time. Call
 * at most once per process. */
int sim_engine_run(const sim_spec *s, double *t_sim);
#ifdef __cplusplus
}
#endif

#endif
