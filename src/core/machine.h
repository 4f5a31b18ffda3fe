/*
 * The machine model this run is placed on. FERRY_TOPOLOGY names a model from
 * the topology layer (e.g. "bgq:4x4x4x4x2"); with FERRY_RANKS_PER_NODE=k,
 * world rank r sits on the model's compute node r / k in the model's
 * default mapping order. Strategies ask here, never the environment.
 */
#ifndef FERRY_CORE_MACHINE_H
#define FERRY_CORE_MACHINE_H

#include "topology/topology.h"

/* The model, or NULL when FERRY_TOPOLOGY is unset or invalid (warned once). */
const ferry_topo_machine *ferry_machine(void);
/* The model node of a world rank, or -1. */
int ferry_machine_node_of(int world_rank);

#endif
