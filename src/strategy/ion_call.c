/*
 * One collective call between compute ranks and I/O-node servers, run by
 * both sides alike (ionode.h). The file each side holds is its own, on its
 * own communicator; for the call it takes part as a member of the merged
 * one: a copy of it with that communicator, the compute ranks' hints and
 * file system facts (so that every rank plans the same domains and
 * rounds), and a node map in which each server is a node of its own and
 * the compute ranks one more, so that two-phase's one aggregator per node
 * are the servers.
 */
#include "strategy/ionode.h"
#include "core/errors.h"
#include "driver/coherence.h"

#include <stdlib.h>
#include <string.h>

int ferry_ion_link_nodes(ferry_ion_link *l)
{
    int size, rank;
    MPI_Comm_size(l->merged, &size);
    MPI_Comm_rank(l->merged, &rank);
    ferry_nodes *n = &l->nodes;
    memset(n, 0, sizeof *n);
    n->node_of = malloc((size_t)size * sizeof *n->node_of);
    int ok = n->node_of != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, l->merged);
    if (!all) {
        free(n->node_of);
        n->node_of = NULL;
        return -1;
    }
    for (int r = 0; r < size; r++)
        n->node_of[r] = r < l->nservers ? r : l->nservers;
    n->nnodes = l->nservers + 1;
    n->my_node = n->node_of[rank];
    n->node_comm = MPI_COMM_NULL;
    n->node_size = 1;
    return 0;
}

int ferry_ion_call(ferry_file *f, ferry_ion_link *l, ferry_ion_file *h, const ferry_ion_cmd *cmd,
                   const ferry_xfer *x, const ferry_runs *runs, int64_t *done, int64_t *wend)
{
    *done = 0;
    ferry_file p = *f;
    p.comm = l->merged;
    MPI_Comm_rank(l->merged, &p.rank);
    MPI_Comm_size(l->merged, &p.size);
    p.hints = h->hints;
    strcpy(p.hints.cb_config_list, "*:1");
    p.hints.aggregator_placement = FERRY_PLACE_SPREAD;
    p.fs = h->fs;
    int server = p.rank < l->nservers;
    int dir = cmd->kind == FERRY_ION_WRITE;
    ferry_tp_memo *memo = &h->memo[dir];
    if (!cmd->memo_valid)
        memo->valid = 0;
    /* what other clients wrote since is not in this server's client cache */
    if (server && ferry_coh_active(&p.fd)) {
        ferry_coh_set_floor(&p.fd, cmd->floor);
        /* a read needs the size too; a write only pages it may read back
         * to fill a domain's holes */
        if (!dir)
            ferry_coh_refresh(&p.fd, 0);
        else if (cmd->pat.hi > cmd->pat.lo)
            ferry_coh_drop(&p.fd, cmd->pat.lo, cmd->pat.hi - cmd->pat.lo);
    }
    int code = ferry_twophase(&p, x, runs, &cmd->pat, &l->nodes, l->nservers, memo, done);
    if (server && dir && code == MPI_SUCCESS) {
        int err = p.fd.drv->sync(&p.fd);
        if (err)
            code = ferry_err_errno(err, p.filename);
    }
    /* the servers' failures are every rank's */
    int64_t in[2] = {ferry_err_class(code), server ? ferry_coh_written_end(&p.fd) : 0}, out[2];
    MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, l->merged);
    f->fd = p.fd;
    f->stats = p.stats;
    f->cb_nodes_used = p.cb_nodes_used;
    *wend = out[1];
    if (code == MPI_SUCCESS && out[0] != MPI_SUCCESS) {
        memo->valid = 0;
        *done = 0;
        return ferry_err((int)out[0], dir ? "a collective write failed on an I/O node's aggregator"
                                          : "a collective read failed on an I/O node's aggregator");
    }
    if (code != MPI_SUCCESS)
        memo->valid = 0;
    return code;
}

void ferry_ion_unlink(ferry_ion_link *l)
{
    if (l->merged != MPI_COMM_NULL)
        MPI_Comm_free(&l->merged);
    if (l->inter != MPI_COMM_NULL)
        MPI_Comm_disconnect(&l->inter);
    free(l->nodes.node_of);
    l->nodes.node_of = NULL;
}

void ferry_ion_file_free(ferry_ion_file *h)
{
    ferry_tp_memo_free(&h->memo[0]);
    ferry_tp_memo_free(&h->memo[1]);
}
