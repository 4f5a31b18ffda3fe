/*
 * The shared file pointer where the MPI library cannot make a window across
 * the file's ranks (Open MPI over TCP between nodes: its osc/rdma component
 * is chosen and fails every flavour, docs/reliability.md): an 8-byte value
 * in a hidden file beside the data file, read and rewritten under an
 * exclusive byte-range lock, as ROMIO keeps it. The driver's lock makes
 * that safe where client caches are not coherent (taking the lock drops the
 * client's cached page, releasing it syncs the new value first), and the
 * file is grown, sparse, past any client cache of whole small files, which
 * no lock reaches; so this needs only locks that every node honours
 * (ferry_fs_info.coherent_locks).
 *
 * Rank 0 creates the file at open, every rank keeps a descriptor, and rank 0
 * removes it once the close has been agreed on every rank.
 */
#define _GNU_SOURCE
#include "core/errors.h"
#include "core/file.h"
#include "core/shared_fp_file.h"
#include "driver/coherence.h"
#include "driver/path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ferry_shfp_file {
    ferry_fd fd;
    char path[PATH_MAX];
};

/* "<dir>/.<name>.ferry-shfp-<token>": hidden, next to the file, unique to
 * this open (the token is rank 0's). */
static int hidden_name(const char *path, uint64_t token, char *out, size_t cap)
{
    char dir[PATH_MAX];
    int rc = ferry_path_dir(path, dir, sizeof dir);
    if (rc < 0)
        return rc;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int n = snprintf(out, cap, "%s/.%s.ferry-shfp-%016llx", dir, base, (unsigned long long)token);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

static int64_t put_value(ferry_fd *fd, int64_t v)
{
    return fd->drv->pwrite(fd, &v, sizeof v, 0);
}

int ferry_shfp_file_open(ferry_file *f, int64_t initial)
{
    struct ferry_shfp_file *s = calloc(1, sizeof *s);
    int err = s ? 0 : -ENOMEM;
    if (s)
        s->fd.fd = -1;
    int64_t msg[2] = {0, 0};
    if (f->rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        static unsigned counter;
        msg[1] = (int64_t)(((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_nsec << 8) ^ (uint64_t)ts.tv_sec ^
                           __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
        if (!err)
            err = hidden_name(f->path, (uint64_t)msg[1], s->path, sizeof s->path);
        if (!err)
            err = f->fd.drv->open(s->path, FERRY_OPEN_READ | FERRY_OPEN_WRITE | FERRY_OPEN_CREATE | FERRY_OPEN_EXCL,
                                  &s->fd);
        if (!err) {
            int64_t w = put_value(&s->fd, initial);
            err = w < 0 ? (int)w : w != (int64_t)sizeof initial ? -EIO : 0;
        }
        /* a client cache of whole small files would answer the locked
         * read from before another node's update */
        if (!err)
            err = ferry_coh_outgrow_whole_file_cache(&s->fd, &f->fs);
        if (!err)
            err = s->fd.drv->sync(&s->fd);
        msg[0] = err;
    }
    MPI_Bcast(msg, 2, MPI_INT64_T, 0, f->comm);
    if (f->rank != 0 && !msg[0] && !err) {
        err = hidden_name(f->path, (uint64_t)msg[1], s->path, sizeof s->path);
        if (!err)
            err = f->fd.drv->open(s->path, FERRY_OPEN_READ | FERRY_OPEN_WRITE, &s->fd);
    }
    /* reads of the value that come back short refresh this client's size */
    if (!err && !msg[0])
        err = ferry_coh_attach(&s->fd, s->path, &f->fs);
    if (!err && !msg[0])
        ferry_coh_set_floor(&s->fd, sizeof(int64_t));
    int code = ferry_agree(f, msg[0] ? ferry_err_errno((int)-msg[0], "creating the shared file pointer's file")
                              : err ? ferry_err_errno(-err, "opening the shared file pointer's file")
                                    : MPI_SUCCESS,
                           "the shared file pointer's file failed on another rank");
    if (code != MPI_SUCCESS) {
        if (s && s->fd.fd >= 0)
            s->fd.drv->close(&s->fd);
        if (f->rank == 0 && s && !msg[0])
            f->fd.drv->remove(s->path);
        free(s);
        return code;
    }
    f->shfp_file = s;
    return MPI_SUCCESS;
}

int ferry_shfp_file_fetch_add(ferry_file *f, int64_t delta, int64_t *old)
{
    struct ferry_shfp_file *s = f->shfp_file;
    ferry_fd *fd = &s->fd;
    int rc = fd->drv->lock(fd, 0, sizeof(int64_t), delta != 0);
    if (rc < 0)
        return ferry_err_errno(-rc, "locking the shared file pointer");
    int64_t v = 0, got = fd->drv->pread(fd, &v, sizeof v, 0);
    if (got >= 0 && got != (int64_t)sizeof v)
        got = -EIO;
    if (got >= 0 && delta)
        got = put_value(fd, v + delta);
    /* the unlock syncs the new value where caches are not coherent */
    int u = fd->drv->unlock(fd, 0, sizeof(int64_t));
    if (got < 0)
        return ferry_err_errno((int)-got, "the shared file pointer");
    if (u < 0)
        return ferry_err_errno(-u, "unlocking the shared file pointer");
    *old = v;
    return MPI_SUCCESS;
}

int ferry_shfp_file_set(ferry_file *f, int64_t value)
{
    ferry_fd *fd = &f->shfp_file->fd;
    int rc = fd->drv->lock(fd, 0, sizeof(int64_t), 1);
    if (rc < 0)
        return ferry_err_errno(-rc, "locking the shared file pointer");
    int64_t w = put_value(fd, value);
    int u = fd->drv->unlock(fd, 0, sizeof(int64_t));
    if (w < 0)
        return ferry_err_errno((int)-w, "the shared file pointer");
    return u < 0 ? ferry_err_errno(-u, "unlocking the shared file pointer") : MPI_SUCCESS;
}

void ferry_shfp_file_close(ferry_file *f)
{
    struct ferry_shfp_file *s = f->shfp_file;
    if (!s)
        return;
    if (s->fd.fd >= 0)
        s->fd.drv->close(&s->fd);
    if (f->rank != 0) {
        free(s);
        f->shfp_file = NULL;
    }
}

void ferry_shfp_file_remove(ferry_file *f)
{
    struct ferry_shfp_file *s = f->shfp_file;
    if (!s)
        return;
    if (f->rank == 0)
        f->fd.drv->remove(s->path);
    free(s);
    f->shfp_file = NULL;
}
