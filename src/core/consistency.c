/*
 * When ferry refreshes what a node's client cached (consistency.h). The
 * measurements behind each step are in docs/filesystems.md, "Consistency
 * across nodes".
 */
#include "core/consistency.h"
#include "core/errors.h"
#include "core/say.h"
#include "driver/coherence.h"

#include <errno.h>
#include <stdio.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Rank 0 only where the communicator is shared, and once a process: a
 * file system that keeps a fault no client call defeats is said once. */
static void say_undefeatable(ferry_file *f)
{
    static int said;
    int wrank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (!f->fs.truncate_stale || f->rank != 0 || (f->size == 1 && wrank != 0) ||
        __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    ferry_say(FERRY_NOTE,
              "%s: %s is a sharded GlusterFS volume: after another node truncates a file, pieces "
              "written again cannot be read from this node's client; ferry reports MPI_ERR_IO there "
              "(docs/filesystems.md)",
              f->filename, f->fs.name);
}

/* This client's size, refreshed by a directory listing when it is not the
 * agreed one: the layers a forced stat does not reach may hold it. */
static int size_matching(ferry_file *f, int64_t want, int64_t *size)
{
    int err = ferry_coh_client_size(&f->fd, size);
    if (!err && *size != want) {
        err = ferry_coh_refresh(&f->fd, 1);
        if (!err)
            err = ferry_coh_client_size(&f->fd, size);
    }
    return err;
}

int ferry_consist_open(ferry_file *f)
{
    int err = ferry_coh_attach(&f->fd, f->path, &f->fs);
    if (!err && ferry_coh_active(&f->fd) && !f->fs.one_client) {
        say_undefeatable(f);
        /* the kernel keeps pages across close and open (GlusterFS
         * fopen-keep-cache): another node's writes since are not in them */
        err = ferry_coh_refresh(&f->fd, 0);
    }
    int64_t size = 0;
    if (!err && ferry_coh_active(&f->fd))
        err = ferry_coh_client_size(&f->fd, &size);
    /* every rank has the same file system, so all or none take part */
    if (!ferry_coh_active(&f->fd) && !err)
        return MPI_SUCCESS;
    int64_t v[3] = {err ? ferry_errno_class(err) : MPI_SUCCESS, size, -size}, r[3] = {v[0], v[1], v[2]};
    if (f->size > 1)
        MPI_Allreduce(v, r, 3, MPI_INT64_T, MPI_MAX, f->comm);
    if (r[0] == MPI_SUCCESS && r[1] != -r[2]) {
        /* clients disagree: some hold an old size; a listing gives each
         * the servers' one */
        err = ferry_coh_refresh(&f->fd, 1);
        if (!err)
            err = ferry_coh_client_size(&f->fd, &size);
        v[0] = err ? ferry_errno_class(err) : MPI_SUCCESS;
        v[1] = size;
        if (f->size > 1)
            MPI_Allreduce(v, r, 2, MPI_INT64_T, MPI_MAX, f->comm);
    }
    if (err)
        return ferry_err_errno(err, "refreshing this node's view of the file at open");
    if (r[0] != MPI_SUCCESS)
        return ferry_err((int)r[0], "refreshing the view of the file failed on another rank");
    ferry_coh_set_floor(&f->fd, r[1]);
    f->settled_size = r[1];
    return MPI_SUCCESS;
}

/* Racing clients leave the size too large (GlusterFS shard adds each
 * client's idea of the growth) or, from a size they held too large, too
 * small: rank 0 learns the servers' size and sets the one the ranks' writes
 * give, cutting only what reads as zeros. The shard translator applies a
 * truncate as a change from the size the client holds, so the client's
 * size is refreshed first, also where the job has one client: measured on
 * the testbed, a cut to 6,360,024 from a held 5,800,024 left 9,540,029, and
 * a cut from a held size too large removed 24 bytes the ranks had written
 * (the shard's tail went with it). Rank 0 checks the size it set and, while
 * it is wrong, refreshes and sets it again. Collective; returns an errno. */
static int set_size_back(ferry_file *f, int64_t want)
{
    int err = 0;
    if (f->rank == 0 && !f->no_size_fixup) {
        int64_t have = -1;
        for (int tries = 0; !err && have != want && tries < 3; tries++) {
            err = ferry_coh_refresh(&f->fd, 1);
            if (!err)
                err = ferry_coh_client_size(&f->fd, &have);
            /* reads stop at the agreed size (driver/coherence.h): past it here */
            if (!err && tries == 0)
                ferry_coh_set_floor(&f->fd, have > want ? have : want);
            if (err || have == want)
                break;
            if (have > want && !ferry_coh_zeros(&f->fd, want, have, &err))
                break; /* another program's bytes past ours (or an error): theirs */
            err = f->fd.drv->truncate(&f->fd, want);
            if (!err)
                err = ferry_coh_client_size(&f->fd, &have);
        }
        if (!err && have < want)
            err = -EIO; /* the ranks' own bytes end past the size the servers keep */
    }
    if (f->size > 1)
        MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    return err;
}

/* Agrees on `code` and on how far the ranks wrote, then makes every rank's
 * client show the agreed size and no old pages. */
static int agree_and_refresh(ferry_file *f, int code, const char *elsewhere)
{
    int64_t floor = ferry_coh_floor(&f->fd);
    int64_t v[2] = {ferry_err_class(code), ferry_coh_written_end(&f->fd)}, r[2] = {v[0], v[1]};
    if (f->size > 1)
        MPI_Allreduce(v, r, 2, MPI_INT64_T, MPI_MAX, f->comm);
    if (code != MPI_SUCCESS)
        return code;
    if (r[0] != MPI_SUCCESS)
        return ferry_err((int)r[0], elsewhere);
    int64_t want = max64(floor, r[1]);
    int err = 0;
    if (f->fs.size_race && r[1] > f->settled_size)
        err = set_size_back(f, want);
    if (!err)
        f->settled_size = want;
    ferry_coh_set_floor(&f->fd, want);
    int64_t size;
    /* one client: its pages and size are the ranks' own (a refresh would
     * only make the kernel drop the pages, see set_size_back) */
    if (!err && !f->fs.one_client)
        err = ferry_coh_refresh(&f->fd, 0);
    if (!err && !f->fs.one_client)
        err = size_matching(f, want, &size);
    /* the size is set back on rank 0 only, so its failure is everybody's */
    return ferry_agree(f, err ? ferry_err_errno(err, "refreshing this node's view of the file") : MPI_SUCCESS,
                       "refreshing the view of the file failed on another rank");
}

int ferry_consist_sync(ferry_file *f, int code)
{
    if (!ferry_coh_active(&f->fd))
        return ferry_agree(f, code, "sync failed on another rank");
    return agree_and_refresh(f, code, "sync failed on another rank");
}

int ferry_consist_close(ferry_file *f)
{
    if (!ferry_coh_active(&f->fd))
        return MPI_SUCCESS;
    int err = ferry_coh_sync_before_close(&f->fd) ? f->fd.drv->sync(&f->fd) : 0;
    int64_t floor = ferry_coh_floor(&f->fd);
    int64_t v[2] = {err ? ferry_errno_class(err) : MPI_SUCCESS, ferry_coh_written_end(&f->fd)},
            r[2] = {v[0], v[1]};
    if (f->size > 1)
        MPI_Allreduce(v, r, 2, MPI_INT64_T, MPI_MAX, f->comm);
    if (r[0] == MPI_SUCCESS && f->fs.size_race && r[1] > f->settled_size && !(f->amode & MPI_MODE_RDONLY))
        err = set_size_back(f, max64(floor, r[1]));
    if (err)
        return ferry_err_errno(err, "close");
    return r[0] == MPI_SUCCESS ? MPI_SUCCESS : ferry_err((int)r[0], "close failed on another rank");
}

int ferry_consist_before_resize(ferry_file *f)
{
    if (!ferry_coh_active(&f->fd))
        return MPI_SUCCESS;
    /* a write this client holds back would land after the cut and grow the
     * file again */
    int err = ferry_coh_dirty(&f->fd) ? f->fd.drv->sync(&f->fd) : 0;
    if (!err && f->rank == 0)
        err = ferry_coh_refresh(&f->fd, 1);
    return err ? ferry_err_errno(err, "flushing this node's writes before the size change") : MPI_SUCCESS;
}

int ferry_consist_after_resize(ferry_file *f, int64_t size, int truncate)
{
    if (!ferry_coh_active(&f->fd))
        return MPI_SUCCESS;
    ferry_coh_resized(&f->fd, size, truncate);
    if (truncate || size > f->settled_size)
        f->settled_size = size;
    /* other clients hold the old size, larger or smaller */
    int err = ferry_coh_refresh(&f->fd, 1);
    return ferry_agree(f, err ? ferry_err_errno(err, "refreshing this node's view of the file") : MPI_SUCCESS,
                       "refreshing the view of the file failed on another rank");
}

void ferry_consist_after_aggregated_write(ferry_file *f, int64_t lo, int64_t hi, int64_t wend)
{
    if (!ferry_coh_active(&f->fd))
        return;
    if (wend > ferry_coh_floor(&f->fd))
        ferry_coh_set_floor(&f->fd, wend);
    if (hi > lo)
        ferry_coh_drop(&f->fd, lo, hi - lo);
}

void ferry_consist_before_size(ferry_file *f)
{
    if (f->atomic)
        ferry_coh_refresh(&f->fd, 1);
}

void ferry_consist_set_atomic(ferry_file *f, int on)
{
    ferry_coh_set_atomic(&f->fd, on);
}
