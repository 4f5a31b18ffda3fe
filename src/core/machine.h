/*
 * The machine model this run is placed on. FERRY_TOPOLOGY names a model from
 * the topology layer, optionally followed by @MAPFILE:
 *
 *   bgq:4x4x4x4x2               virtual: with FERRY_RANKS_PER_NODE=k, world
 *                               rank r sits on the model's compute node r / k
 *                               (block mapping in the model's order)
 *   bgq:4x4x4x4x2@/path/map     real: each rank looks its host name up in the
 *                               map (topology/hostmap.c), so ranks of one host
 *                               share its node
 *
 * Strategies ask here, never the environment.
 */
#ifndef FERRY_CORE_MACHINE_H
#define FERRY_CORE_MACHINE_H

#include <mpi.h>

#include "topology/topology.h"

/* The model, or NULL when FERRY_TOPOLOGY is unset or invalid (warned once). */
const ferry_topo_machine *ferry_machine(void);
/* This process's model node, or -1 (no model, or its host is not mapped). */
int ferry_machine_my_node(void);
/* 1 when nodes come from a host map (SPEC@MAP): real coordinates. */
int ferry_machine_mapped(void);
/* Collective over comm: out[r] = the model node of rank r of comm. Returns 0,
 * or -1 on every rank when there is no model or some rank has no node (out
 * may then be NULL on a rank that only takes part). */
int ferry_machine_comm_nodes(MPI_Comm comm, int *out);

#endif
