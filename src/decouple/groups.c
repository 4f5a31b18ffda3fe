/*
 * The two groups. MPI_COMM_WORLD cannot shrink under a preloaded library,
 * so it keeps every process, and the groups are communicators beside it:
 * the program's compute code runs on ferry_comm_local(), and requests travel
 * on a private duplicate of the inter-communicator.
 *
 * Shutdown rides on MPI_Finalize: an attribute on MPI_COMM_SELF is deleted
 * before anything else is torn down (MPI-3.1 8.7.1), and its callback says
 * goodbye to the data processes while communication still works.
 */
#include "core/errors.h"
#include "core/nodes.h"
#include "decouple/decouple.h"

#include <stdio.h>
#include <stdlib.h>

dc_world dc_w = {.local = MPI_COMM_NULL, .inter = MPI_COMM_NULL, .proto = MPI_COMM_NULL,
                 .peers = MPI_COMM_NULL, .home = -1};

/* Tag of the leaders' handshake on MPI_COMM_WORLD. */
#define DC_HANDSHAKE_TAG 27181

static int on_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm;
    (void)key;
    (void)val;
    (void)extra;
    if (dc_w.ready && !dc_w.is_data && dc_w.ndata > 0) {
        ferry_decouple_finalize();
        /* Neither Open MPI 4 nor MPICH 4 finalizes reliably once a process of
         * the job has died (both can wait for it forever). The program has
         * had its errors; end the job, once every compute process is here. */
        int lost = dc_link_dead(), any = 0;
        MPI_Allreduce(&lost, &any, 1, MPI_INT, MPI_MAX, dc_w.peers);
        if (any) {
            int r = 0;
            MPI_Comm_rank(dc_w.peers, &r);
            if (r == 0)
                fprintf(stderr, "ferry: a data process died during the run; ending the job (MPI cannot "
                                "finalize after a process failure)\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    dc_ops_release();
    free(dc_w.home_of);
    free(dc_w.mine);
    dc_w.home_of = NULL;
    dc_w.mine = NULL;
    if (dc_w.proto != MPI_COMM_NULL)
        MPI_Comm_free(&dc_w.proto);
    if (dc_w.peers != MPI_COMM_NULL)
        MPI_Comm_free(&dc_w.peers);
    return MPI_SUCCESS;
}

static void hook_finalize(void)
{
    int key;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &key, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
}

/* Splits the world by the placement; fills dc_w. */
static int build_groups(int wsize, int ndata)
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
        if (ferry_nodes_build(MPI_COMM_WORLD, &nodes) != MPI_SUCCESS) {
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

FERRY_PUBLIC int ferry_decouple_init(void)
{
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return MPI_ERR_OTHER;
    if (dc_w.ready)
        return MPI_SUCCESS;
    const dc_config *cfg = dc_cfg();
    int wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &dc_w.wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int ndata = cfg->data_procs;
    if (ndata >= wsize)
        return ferry_err(MPI_ERR_ARG, "FERRY_DATA_PROCS leaves no compute process");
    int rc = build_groups(wsize, ndata);
    if (rc != MPI_SUCCESS)
        return rc;
    dc_w.ndata = ndata;
    dc_w.ncompute = wsize - ndata;
    dc_w.ready = 1;
    hook_finalize();
    if (dc_w.is_data)
        return dc_serve();
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_decouple_finalize(void)
{
    if (!dc_w.ready || dc_w.is_data || dc_w.finished)
        return MPI_SUCCESS;
    dc_w.finished = 1;
    if (dc_w.ndata == 0)
        return MPI_SUCCESS;
    dc_requests_drain(1);
    int rc = dc_flush_sends();
    dc_msg *m = calloc(1, sizeof *m);
    if (!m)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory saying goodbye to the data processes");
    m->kind = DC_BYE;
    int rc2 = dc_send_owned((char *)m, sizeof *m);
    int rc3 = dc_flush_sends();
    return rc != MPI_SUCCESS ? rc : rc2 != MPI_SUCCESS ? rc2 : rc3;
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
