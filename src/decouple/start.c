/*
 * Starting and ending decoupled I/O: ferry_decouple_init builds the groups
 * and sends data processes into the serving loop; ferry_decouple_finalize
 * says goodbye to them.
 *
 * Shutdown rides on MPI_Finalize: an attribute on MPI_COMM_SELF is deleted
 * before anything else is torn down (MPI-3.1 8.7.1), and its callback says
 * goodbye to the data processes while communication still works.
 */
#include "core/errors.h"
#include "core/say.h"
#include "decouple/decouple.h"

#include <stdio.h>
#include <stdlib.h>

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
                ferry_say(FERRY_INFO, "a data process died during the run; ending the job (MPI cannot "
                                      "finalize after a process failure)");
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
    int rc = dc_groups_build(wsize, ndata);
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
