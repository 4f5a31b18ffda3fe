#include "core/nodes.h"

#include <stdlib.h>

int ferry_nodes_virtual_ppn(void)
{
    const char *e = getenv("FERRY_RANKS_PER_NODE");
    int k = e ? atoi(e) : 0;
    return k > 0 ? k : 0;
}

/* A key naming my node, equal on every rank of comm that shares it: the
 * lowest rank of comm on that node. */
static int node_key(MPI_Comm comm, MPI_Comm *node_comm)
{
    int rank, wrank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int ppn = ferry_nodes_virtual_ppn();
    if (ppn > 0)
        MPI_Comm_split(comm, wrank / ppn, rank, node_comm);
    else
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node_comm);
    int key = rank;
    MPI_Allreduce(&rank, &key, 1, MPI_INT, MPI_MIN, *node_comm);
    return key;
}

int ferry_nodes_build(MPI_Comm comm, ferry_nodes *out)
{
    int size;
    MPI_Comm_size(comm, &size);
    out->node_comm = MPI_COMM_NULL;
    out->node_of = malloc((size_t)size * sizeof *out->node_of);
    int *keys = malloc((size_t)size * sizeof *keys);
    int *dense = malloc((size_t)size * sizeof *dense);
    int key = node_key(comm, &out->node_comm);
    if (!out->node_of || !keys || !dense) {
        free(keys);
        free(dense);
        free(out->node_of);
        out->node_of = NULL;
        return MPI_ERR_NO_MEM;
    }
    MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, comm);
    /* Keys are ranks of comm; number nodes in order of first appearance. */
    for (int i = 0; i < size; i++)
        dense[i] = -1;
    int n = 0;
    for (int i = 0; i < size; i++) {
        if (dense[keys[i]] < 0)
            dense[keys[i]] = n++;
        out->node_of[i] = dense[keys[i]];
    }
    free(keys);
    free(dense);
    int rank;
    MPI_Comm_rank(comm, &rank);
    out->nnodes = n;
    out->my_node = out->node_of[rank];
    MPI_Comm_rank(out->node_comm, &out->node_rank);
    MPI_Comm_size(out->node_comm, &out->node_size);
    return MPI_SUCCESS;
}

void ferry_nodes_free(ferry_nodes *n)
{
    if (n->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&n->node_comm);
    free(n->node_of);
    n->node_of = NULL;
}

int ferry_nodes_count(MPI_Comm comm)
{
    ferry_nodes n;
    if (ferry_nodes_build(comm, &n) != MPI_SUCCESS)
        return 1;
    int c = n.nnodes;
    ferry_nodes_free(&n);
    return c;
}
