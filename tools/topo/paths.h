/* The I/O paths ferry-topo simulates (docs/topology.md, "I/O paths"):
 *   direct           every rank ships its own writes through its node's
 *                    default bridge (BG/Q's default independent I/O);
 *   seed             the seed's: a moved node's ranks send their blocks by
 *                    MPI to the same cores of the new bridge node, which
 *                    write them after their own, one request per block;
 *                    unmoved nodes ship directly;
 *   seed-coalesced   the same, a moved node's ranks gathered on its core 0
 *                    and sent as one buffer, written as one request;
 *   forward          ferry's forward strategy: every node's collector sends
 *                    its ranks' pieces in one message to the forwarder on its
 *                    gateway node, which writes each piece as its own request;
 *   node-request     what-if: every node's data as one request through its
 *                    default bridge (neither the seed nor ferry does this).
 * A plan is the shippers, their batches and the MPI transfers for the
 * SimGrid engine, and the same as flows for the floor. */
#ifndef FERRY_TOPO_PATHS_H
#define FERRY_TOPO_PATHS_H

#include <stddef.h>

#include "sim.h"
#include "topology/topology.h"
#include "writers.h"

typedef enum { PATH_DIRECT, PATH_SEED, PATH_SEED_COALESCED, PATH_FORWARD, PATH_NODE_REQUEST } path_kind;

typedef struct {
  sim_shipper *ship;
  int nship;
  sim_batch *batch;
  int nbatch;
  sim_xfer *xfer;
  int nxfer;
  ferry_topo_flow *flows; /* one per shipper (its writes), one per transfer */
  size_t nflows;
} path_plan;

const char *path_name(path_kind k);
/* gw: the gateway of each compute node (index k, node ferry_topo_compute_node(k)). */
int path_build(const ferry_topo_machine *m, const writers_t *w, const int *gw, path_kind kind, path_plan *out);
void path_free(path_plan *p);

#endif
