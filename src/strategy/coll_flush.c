/*
 * Flushes a collective write needs where the file system's client caches
 * are not coherent between processes (coll_flush.h).
 */
#include "strategy/coll_flush.h"
#include "core/consistency.h"
#include "core/errors.h"
#include "driver/coherence.h"

/* Where the file system's client caches are not coherent between processes
 * (GlusterFS: write-behind acknowledges a write before the bricks have it,
 * and another process's read, or the size a read is cut at, need not see
 * it), bytes an aggregator wrote for another rank are not yet there for the
 * process that reads them next: another aggregator, or the rank itself
 * independently. MPI lets a rank read its own bytes after its own write,
 * whichever process moved them. So after every rank's writes have returned
 * (the outcome allreduce), each rank that wrote for others flushes, and the
 * call returns when all have: then the bricks hold every byte and the size.
 * One fsync per aggregator and one allreduce per collective write, on such
 * file systems only (docs/filesystems.md: measured cost). */
int ferry_coll_flush_for_others(ferry_file *f, int wrote, const ferry_runs *mine, double start, int64_t *max_ns)
{
    double t0 = ferry_now();
    int err = wrote ? f->fd.drv->sync(&f->fd) : 0;
    int code = err ? ferry_err_errno(err, f->filename) : MPI_SUCCESS;
    /* the call's time so far rides along (the flush is part of what it
     * cost); how far the ranks wrote came with the outcome */
    int64_t in[2] = {ferry_err_class(code), (int64_t)((ferry_now() - start) * 1e9)}, out[2] = {in[0], in[1]};
    if (f->size > 1)
        MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, f->comm);
    ferry_stats_phase(&f->stats, FERRY_PHASE_SYNC, t0);
    *max_ns = out[1];
    if (code != MPI_SUCCESS)
        return code;
    if (out[0] != MPI_SUCCESS)
        return ferry_err((int)out[0], "flushing a collective write failed on another rank");
    /* pages this rank's client cached of the bytes it asked for are older
     * than what its aggregator wrote (the size was raised after the outcome) */
    ferry_consist_after_aggregated_write(f, mine->n ? mine->lo : 0, mine->n ? mine->hi : 0, 0);
    return MPI_SUCCESS;
}

/* Before a trial of an aggregated write where client caches are not
 * coherent: what this rank wrote earlier (the option kept, independent, does
 * not flush) is flushed off the trial's clock. The trial ends in
 * flush_for_others, which would flush it too, and an option was judged by
 * the flush of another's writes: FLASH-IO on the sharded testbed learned
 * "independent 4x faster than two-phase" where two-phase forced was the
 * fastest (bench/results/learn.md, "Earlier writes flushed before a trial").
 * Collective: every rank learns the outcome, and the ranks' clocks start
 * again together. */
int ferry_coll_flush_before_trial(ferry_file *f, int code, double *start)
{
    /* where the driver does not track writes since a sync, one is assumed */
    int dirty = !ferry_coh_active(&f->fd) || ferry_coh_dirty(&f->fd);
    int err = code == MPI_SUCCESS && dirty ? f->fd.drv->sync(&f->fd) : 0;
    if (err)
        code = ferry_err_errno(err, f->filename);
    int in = ferry_err_class(code), out = in;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, f->comm);
    *start = ferry_now();
    if (code == MPI_SUCCESS && out != MPI_SUCCESS)
        code = ferry_err(out, "flushing before a trial failed on another rank");
    return code;
}
