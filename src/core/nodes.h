/*
 * Nodes: the one place that decides which ranks share a node. Real nodes come
 * from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); FERRY_RANKS_PER_NODE=k makes
 * each k consecutive world ranks a virtual node, so node-level strategies can
 * be tested and measured on one host. Everything node-aware asks here.
 */
#ifndef FERRY_CORE_NODES_H
#define FERRY_CORE_NODES_H

#include <mpi.h>

typedef struct ferry_nodes {
    int nnodes;
    int *node_of;     /* rank in comm -> dense node index (order of first appearance) */
    int my_node;
    MPI_Comm node_comm; /* the ranks of comm on my node */
    int node_rank, node_size;
    int one_host; /* the nodes are FERRY_RANKS_PER_NODE groups: one host, one link */
} ferry_nodes;

/* Collective over comm. owner: the program communicator's cache of a
 * file's (f->dups), whose layout is its own at MPI_THREAD_MULTIPLE; NULL:
 * the group's. */
int ferry_nodes_build(MPI_Comm comm, const void *owner, ferry_nodes *out);
void ferry_nodes_free(ferry_nodes *n);
/* Collective over comm: a layout with a node communicator of its own (not
 * the cache's), for a thread whose collectives run beside the caller's. */
int ferry_nodes_build_own(MPI_Comm comm, ferry_nodes *out);
void ferry_nodes_free_own(ferry_nodes *n);
/* Collective over the owner's group: the layouts kept for owner (a
 * program communicator's cache going away) are freed. */
void ferry_nodes_forget(const void *owner);
/* Collective over comm: how many nodes it spans (owner: as for build). */
int ferry_nodes_count(MPI_Comm comm, const void *owner);
/* FERRY_RANKS_PER_NODE, or 0 when nodes are real. */
int ferry_nodes_virtual_ppn(void);

#endif
