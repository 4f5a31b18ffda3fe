#include "core/machine.h"
#include "core/nodes.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static ferry_topo_machine *machine;

static void load(void)
{
    const char *spec = getenv("FERRY_TOPOLOGY");
    if (!spec || !*spec)
        return;
    char err[200] = "";
    if (ferry_topo_create(spec, &machine, err, sizeof err) != 0) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "ferry: warning: FERRY_TOPOLOGY=%s ignored: %s\n", spec, err);
        machine = NULL;
    }
}

const ferry_topo_machine *ferry_machine(void)
{
    pthread_once(&once, load);
    return machine;
}

int ferry_machine_node_of(int world_rank)
{
    const ferry_topo_machine *m = ferry_machine();
    if (!m)
        return -1;
    int ppn = ferry_nodes_virtual_ppn();
    return ferry_topo_rank_node(m, world_rank, ppn > 0 ? ppn : 1);
}
