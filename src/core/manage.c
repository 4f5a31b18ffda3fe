#include "core/manage.h"
#include "core/consistency.h"
#include "core/strategies.h"
#include "core/errors.h"
#include "core/say.h"
#include "core/watchdog.h"

/* One allreduce checks that a value agrees and carries any local error. */
static int agree_value(ferry_file *f, int64_t value, int local, int *differs)
{
    int64_t v[3] = {ferry_err_class(local), value, -value}, r[3];
    MPI_Allreduce(v, r, 3, MPI_INT64_T, MPI_MAX, f->comm);
    *differs = r[1] != -r[2];
    return (int)r[0];
}

/* Rank 0 applies a size change; the others learn its outcome. */
static int size_change(ferry_file *f, MPI_Offset size, int truncate, const char *differs_msg)
{
    int local = ferry_strategies.flush(f);
    if (local != MPI_SUCCESS)
        ;
    else if (size < 0)
        local = ferry_err(MPI_ERR_ARG, "size is negative");
    else if (f->amode & MPI_MODE_RDONLY)
        local = ferry_err(MPI_ERR_READ_ONLY, "file is opened MPI_MODE_RDONLY");
    else if (f->amode & MPI_MODE_SEQUENTIAL)
        local = ferry_err(MPI_ERR_UNSUPPORTED_OPERATION, "size cannot change on an MPI_MODE_SEQUENTIAL file");
    else
        local = ferry_consist_before_resize(f);
    int differs = 0;
    int all = agree_value(f, size, local, &differs);
    if (local != MPI_SUCCESS)
        return local;
    if (all != MPI_SUCCESS)
        return ferry_err(all, "the size change failed on another rank");
    if (differs)
        return ferry_err(MPI_ERR_ARG, differs_msg);
    int err = 0;
    if (f->rank == 0) {
        double t0 = ferry_now();
        err = truncate ? f->fd.drv->truncate(&f->fd, size) : f->fd.drv->allocate(&f->fd, size);
        ferry_stats_phase(&f->stats, FERRY_PHASE_WRITE, t0);
    }
    if (f->size > 1)
        MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    if (err)
        return ferry_err_errno(err, f->filename);
    return ferry_consist_after_resize(f, size, truncate);
}

int ferry_file_set_size(ferry_file *f, MPI_Offset size)
{
    return size_change(f, size, 1, "set_size was given different sizes on different ranks");
}

int ferry_file_preallocate(ferry_file *f, MPI_Offset size)
{
    return size_change(f, size, 0, "preallocate was given different sizes on different ranks");
}

int ferry_file_get_size(ferry_file *f, MPI_Offset *size)
{
    int64_t s = 0;
    int fwd = ferry_strategies.flush(f);
    if (fwd != MPI_SUCCESS)
        return fwd;
    ferry_consist_before_size(f);
    int err = f->fd.drv->size(&f->fd, &s);
    if (err)
        return ferry_err_errno(err, f->filename);
    *size = s;
    return MPI_SUCCESS;
}

int ferry_file_sync(ferry_file *f)
{
    double t0 = ferry_now();
    int fwd = ferry_strategies.flush(f);
    int err = (f->amode & MPI_MODE_RDONLY) ? 0 : f->fd.drv->sync(&f->fd);
    /* the second half of sync-barrier-sync: what other nodes flushed must
     * show here, whatever this node's client cached */
    int code = ferry_consist_sync(f, fwd ? fwd : err ? ferry_err_errno(err, f->filename) : MPI_SUCCESS);
    ferry_stats_phase(&f->stats, FERRY_PHASE_SYNC, t0);
    return code;
}

int ferry_file_set_atomicity(ferry_file *f, int flag)
{
    int differs = 0;
    int all = agree_value(f, flag ? 1 : 0, MPI_SUCCESS, &differs);
    if (all != MPI_SUCCESS)
        return ferry_err(all, "set_atomicity failed on another rank");
    if (differs)
        return ferry_err(MPI_ERR_ARG, "set_atomicity was given different flags on different ranks");
    f->atomic = flag ? 1 : 0;
    ferry_consist_set_atomic(f, f->atomic);
    return MPI_SUCCESS;
}

void ferry_file_hints_in_effect(const ferry_file *f, ferry_hints *out)
{
    *out = f->hints;
    if (f->cb_nodes_used > 0 && out->cb_nodes != f->cb_nodes_used) {
        char n[16];
        snprintf(n, sizeof n, "%d", f->cb_nodes_used);
        ferry_hints_set(out, "cb_nodes", n, NULL);
    }
    if (out->striping_factor > 0 && !ferry_fs_stripes(&f->fs))
        ferry_hints_set(out, "striping_factor", "0", NULL);
    if (out->direct_read)
        ferry_hints_set(out, "direct_read", "false", NULL);
    if (out->direct_write)
        ferry_hints_set(out, "direct_write", "false", NULL);
}

int ferry_file_get_info(const ferry_file *f, MPI_Info *info)
{
    ferry_hints h;
    ferry_file_hints_in_effect(f, &h);
    int rc = ferry_hints_to_info(&h, info);
    if (rc == MPI_SUCCESS && !ferry_fs_stripes(&f->fs))
        MPI_Info_delete(*info, "striping_factor");
    return rc;
}

int ferry_file_set_info(ferry_file *f, MPI_Info info)
{
    ferry_hint_warnings w = {0};
    ferry_hints h = f->hints;
    ferry_hints_apply_info(&h, info, &w);
    ferry_hints_apply_env(&h, f->filename, &w);
    int differs = 0;
    int all = agree_value(f, (int64_t)(ferry_hints_digest(&h) >> 2), MPI_SUCCESS, &differs);
    if (differs)
        ferry_hints_agree(&h, f->comm, &w);
    if (f->rank == 0)
        for (int i = 0; i < w.n; i++)
            ferry_say(FERRY_WARN, "%s: %s", f->filename, w.msg[i]);
    f->hints = h;
    ferry_watchdog_watch(&f->fd, f->filename, h.io_timeout);
    return all == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(all, "set_info failed on another rank");
}
