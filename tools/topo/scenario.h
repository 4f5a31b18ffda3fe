/* The I/O patterns ferry-topo costs: every rank writes bytes_per_rank at
 * offset rank * bytes_per_rank, either independently through a gateway
 * assignment or collectively through two-phase aggregators. */
#ifndef FERRY_TOPO_SCENARIO_H
#define FERRY_TOPO_SCENARIO_H

#include "sim.h"
#include "topology/topology.h"

typedef struct {
  const ferry_topo_machine *m;
  int ppn;
  double bytes_per_rank;
  int coalesce;       /* one message per node instead of one per rank */
  int naggs;          /* two-phase aggregators; 0 => min(nodes, 8 x gateways) */
  double cb_buffer;
  double gw_mem;
  int mem_cap;        /* < 0 => the seed's rule */
  int slack;
  ferry_topo_cost_params cost;
  int simulate;       /* also run each row's flows on SimGrid */
  sim_params sim;
} scen_cfg;

typedef struct {
  char name[40];
  double avg_hops;
  int max_hops;
  double max_link_load;
  char max_link[96];
  double hop_bytes;
  double max_gw_msgs, max_gw_bytes;
  double t_model, t_fair, t_links;
  double transit_msgs;
  int moved;
  long refine_moves;
  int naggs;
  int mem_cap;
  double secs;        /* CPU time of assignment/placement + evaluation */
  double t_sim;       /* SimGrid's time (two-phase: the phases' sum), or -1 */
} scen_row;

/* The seed's memory cap: nodes a forwarder may take on. */
int scen_mem_cap(const scen_cfg *c);
int scen_naggs(const scen_cfg *c);

/* Independent I/O through an assignment. gw (ncompute entries) and mt,
 * when not NULL, receive the assignment and the metrics (caller frees). */
int scen_independent(const scen_cfg *c, ferry_topo_assign_algo algo, scen_row *row, int *gw,
                     ferry_topo_metrics *mt);
/* Two-phase collective I/O with the given aggregator placement. */
int scen_collective(const scen_cfg *c, ferry_topo_agg_method method, scen_row *row);
/* Fills a row from metrics (independent rows, replay). */
void scen_row_from_metrics(const ferry_topo_machine *m, const ferry_topo_metrics *mt, scen_row *row);

#endif
