/*
 * The two groups. MPI_COMM_WORLD cannot shrink under a preloaded library,
 * so it keeps every process, and the groups are communicators beside it:
 * the program's compute code runs on ferry_comm_local(), and requests travel
 * on a private duplicate of the inter-communicator. Starting and ending
 * them is start.c's.
 */
#include "core/errors.h"
#include "core/nodes.h"
#include "decouple/decouple.h"

#include <stdlib.h>

dc_world dc_w = {.local = MPI_COMM_NULL, .inter = MPI_COMM_NULL, .proto = MPI_COMM_NULL,
                 .peers = MPI_COMM_NULL, .home = -1};

/* Tag of the leaders' handshake on MPI_COMM_WORLD. */
#define DC_HANDSHAKE_TAG 27181

/* Splits the world by the placement; fills dc_w. */
int dc_groups_build(int wsize, int ndata)
{
    int *node_of = NULL, *is_data = calloc((size_t)wsize, sizeof *is_data);
    int *home = calloc((size_t)wsize, sizeof *home);
    if (!is_data || !home) {
        free(is_data);
        free(home);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory placing data processes");
    }
    ferry_nodes nodes = {0};
    if (ndata > 0) {
        if (ferry_nodes_build(MPI_COMM_WORLD, NULL, &nodes) != MPI_SUCCESS) {
            free(is_data);
            free(home);
            return ferry_err(MPI_ERR_NO_MEM, "out of memory placing data processes");
        }
        node_of = nodes.node_of;
        dc_w.whole_nodes = dc_place(wsize, node_of, ndata, is_data);
        dc_homes(wsize, node_of, is_data, home);
    }
    dc_w.is_data = is_data[dc_w.wrank];
    MPI_Comm_split(MPI_COMM_WORLD, dc_w.is_data, dc_w.wrank, &dc_w.local);
    if (ndata > 0) {
        /* the other group's leader: its lowest world rank */
        int leader = 0;
        while (is_data[leader] == dc_w.is_data)
            leader++;
        MPI_Intercomm_create(dc_w.local, 0, MPI_COMM_WORLD, leader, DC_HANDSHAKE_TAG, &dc_w.inter);
        MPI_Comm_dup(dc_w.inter, &dc_w.proto);
        MPI_Comm_set_errhandler(dc_w.proto, MPI_ERRORS_RETURN);
        MPI_Comm_dup(dc_w.local, &dc_w.peers);
        MPI_Comm_set_errhandler(dc_w.peers, MPI_ERRORS_RETURN);
        dc_w.home_of = malloc((size_t)(wsize - ndata) * sizeof *dc_w.home_of);
        int me = -1;
        for (int r = 0, c = 0, d = 0; r < wsize; r++) {
            if (is_data[r]) {
                if (r == dc_w.wrank)
                    me = d;
                d++;
            } else {
                if (dc_w.home_of)
                    dc_w.home_of[c] = home[r];
                c++;
            }
        }
        if (dc_w.is_data) {
            dc_w.mine = calloc((size_t)(wsize - ndata), 1);
            for (int r = 0, c = 0; r < wsize; r++) {
                if (is_data[r])
                    continue;
                if (home[r] == me) {
                    dc_w.nclients++;
                    if (dc_w.mine)
                        dc_w.mine[c] = 1;
                }
                c++;
            }
        } else {
            dc_w.home = home[dc_w.wrank];
        }
        ferry_nodes_free(&nodes);
    }
    free(is_data);
    free(home);
    return MPI_SUCCESS;
}

FERRY_PUBLIC MPI_Comm ferry_comm_local(void)
{
    return dc_w.local;
}

FERRY_PUBLIC MPI_Comm ferry_comm_inter(void)
{
    return dc_w.inter;
}

FERRY_PUBLIC int ferry_is_data_process(void)
{
    return dc_w.is_data;
}
