/*
 * The POSIX driver. Linux moves at most 0x7ffff000 bytes per read/write call,
 * and any call may be interrupted or come back short, so every transfer loops
 * until it is whole (or, for reads, hits end of file).
 */
#define _GNU_SOURCE
#include "driver/driver.h"
#include "driver/coherence.h"
#include "driver/faults.h"
#include "driver/path.h"
#include "driver/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FERRY_MAX_IO ((int64_t)0x7ffff000)

static int posix_open(const char *path, int flags, ferry_fd *out)
{
    int oflags = O_CLOEXEC;
    if ((flags & FERRY_OPEN_READ) && (flags & FERRY_OPEN_WRITE))
        oflags |= O_RDWR;
    else if (flags & FERRY_OPEN_WRITE)
        oflags |= O_WRONLY;
    else
        oflags |= O_RDONLY;
    if (flags & FERRY_OPEN_CREATE)
        oflags |= O_CREAT;
    if (flags & FERRY_OPEN_EXCL)
        oflags |= O_EXCL;
    int fd, listed = 0;
    for (;;) {
        fd = open(path, oflags, 0666);
        if (fd >= 0)
            break;
        int e = errno;
        if (e == EINTR)
            continue;
        /* a name another node created (after deleting the old file) may
         * be missing from this client's cache: list its directory once */
        if ((e == ENOENT || e == ESTALE) && !(oflags & O_CREAT) && !listed++ && ferry_coh_list_dir(path) == 0)
            continue;
        return -e;
    }
    out->fd = fd;
    out->drv = ferry_driver_posix();
    out->coh = NULL;
    out->watch_seconds = 0;
    out->watch_name = NULL;
    return 0;
}

static int posix_sync(ferry_fd *f);

static int posix_close(ferry_fd *f)
{
    /* where close returns before the data is out (GlusterFS flush-behind),
     * another node opening the file next would miss it */
    int synced = ferry_coh_sync_before_close(f) ? posix_sync(f) : 0;
    ferry_coh_detach(f);
    ferry_watch_begin(f, "close");
    int rc = close(f->fd);
    ferry_watch_end(f);
    f->fd = -1;
    /* EINTR on close leaves the descriptor closed on Linux: do not retry. */
    if (rc < 0 && errno != EINTR)
        return -errno;
    return synced;
}

/* A read of an open file that finds a piece of it gone (GlusterFS: a shard
 * another client's truncate removed and a write re-created) is an I/O
 * error of this client, not a missing file. */
static int read_errno(int e)
{
    return e == ENOENT || e == ESTALE ? EIO : e;
}

static int64_t pread_all(ferry_fd *f, void *buf, int64_t len, int64_t off)
{
    int64_t done = 0;
    int retried = 0;
    int64_t limit = ferry_coh_read_limit(f);
    if (off >= limit)
        return 0;
    if (len > limit - off)
        len = limit - off;
    ferry_coh_before_read(f, off, len);
    while (done < len) {
        int64_t want = len - done > FERRY_MAX_IO ? FERRY_MAX_IO : len - done;
        ssize_t n = ferry_fault_pread(f->fd, (char *)buf + done, (size_t)want, off + done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -read_errno(errno);
        }
        if (n == 0) {
            if (!retried++ && ferry_coh_retry_short(f, off + done))
                continue;
            break;
        }
        done += n;
    }
    return done;
}

static int64_t posix_pread(ferry_fd *f, void *buf, int64_t len, int64_t off)
{
    ferry_watch_begin(f, "read");
    int64_t done = pread_all(f, buf, len, off);
    ferry_watch_end(f);
    return done;
}

static int64_t pwrite_all(ferry_fd *f, const void *buf, int64_t len, int64_t off)
{
    int64_t done = 0;
    while (done < len) {
        int64_t want = len - done > FERRY_MAX_IO ? FERRY_MAX_IO : len - done;
        ssize_t n = ferry_fault_pwrite(f->fd, (const char *)buf + done, (size_t)want, off + done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO; /* a write that moves nothing would loop forever */
        done += n;
    }
    ferry_coh_wrote(f, off, done);
    return done;
}

static int64_t posix_pwrite(ferry_fd *f, const void *buf, int64_t len, int64_t off)
{
    int held = ferry_coh_grow_begin(f);
    if (held < 0)
        return held;
    ferry_watch_begin(f, "write");
    int64_t done = pwrite_all(f, buf, len, off);
    ferry_watch_end(f);
    int rc = ferry_coh_grow_end(f, held);
    return done >= 0 && rc < 0 ? rc : done;
}

/* Vector transfers: the kernel may stop anywhere, so after a short call the
 * iovec list is advanced past what moved and the call repeated. Lists longer
 * than IOV_MAX, or larger than the single-call limit, are cut. */
typedef ssize_t (*vec_fn)(int, const struct iovec *, int, off_t);

static int64_t posix_vec(ferry_fd *f, const struct iovec *iov_in, int n, int64_t off,
                         vec_fn fn, int is_read)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (int64_t)iov_in[i].iov_len;
    if (is_read) {
        int64_t limit = ferry_coh_read_limit(f);
        if (off >= limit)
            return 0;
        if (total > limit - off)
            total = limit - off; /* the loop stops there */
    }
    struct iovec local[64];
    int64_t done = 0;
    int retried = 0;
    if (is_read)
        ferry_coh_before_read(f, off, total);
    int idx = 0;          /* first iovec not fully moved */
    size_t skip = 0;      /* bytes of iov_in[idx] already moved */
    while (done < total) {
        int k = 0;
        int64_t batch = 0;
        for (int i = idx; i < n && k < 64; i++) {
            size_t l = iov_in[i].iov_len - (i == idx ? skip : 0);
            if (l == 0)
                continue;
            if (batch + (int64_t)l > FERRY_MAX_IO) {
                if (k > 0)
                    break;
                l = (size_t)FERRY_MAX_IO;
            }
            if (batch + (int64_t)l > total - done)
                l = (size_t)(total - done - batch); /* a read stops at the limit */
            if (l == 0)
                break;
            local[k].iov_base = (char *)iov_in[i].iov_base + (i == idx ? skip : 0);
            local[k].iov_len = l;
            batch += (int64_t)l;
            k++;
        }
        /* one buffer goes through pread/pwrite: the kernel's single-buffer
         * path skips the iovec import and measurably beats preadv/pwritev
         * for small transfers */
        ssize_t got = k != 1 ? fn(f->fd, local, k, off + done)
                      : is_read ? ferry_fault_pread(f->fd, local[0].iov_base, local[0].iov_len, off + done)
                                : ferry_fault_pwrite(f->fd, local[0].iov_base, local[0].iov_len, off + done);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return is_read ? -read_errno(errno) : -errno;
        }
        if (got == 0) {
            if (is_read && !retried++ && ferry_coh_retry_short(f, off + done))
                continue;
            if (is_read)
                break;
            return -EIO;
        }
        done += got;
        /* advance idx/skip past `got` bytes */
        size_t adv = (size_t)got;
        while (adv > 0 && idx < n) {
            size_t left = iov_in[idx].iov_len - skip;
            if (adv < left) {
                skip += adv;
                adv = 0;
            } else {
                adv -= left;
                idx++;
                skip = 0;
            }
        }
    }
    if (!is_read)
        ferry_coh_wrote(f, off, done);
    return done;
}

static int64_t posix_preadv(ferry_fd *f, const struct iovec *iov, int n, int64_t off)
{
    ferry_watch_begin(f, "read");
    int64_t done = posix_vec(f, iov, n, off, ferry_fault_preadv, 1);
    ferry_watch_end(f);
    return done;
}

static int64_t posix_pwritev(ferry_fd *f, const struct iovec *iov, int n, int64_t off)
{
    int held = ferry_coh_grow_begin(f);
    if (held < 0)
        return held;
    ferry_watch_begin(f, "write");
    int64_t done = posix_vec(f, iov, n, off, (vec_fn)ferry_fault_pwritev, 0);
    ferry_watch_end(f);
    int rc = ferry_coh_grow_end(f, held);
    return done >= 0 && rc < 0 ? rc : done;
}

static int posix_size(ferry_fd *f, int64_t *size)
{
    struct stat st;
    ferry_watch_begin(f, "fstat");
    int rc = fstat(f->fd, &st);
    ferry_watch_end(f);
    if (rc < 0)
        return -errno;
    *size = st.st_size;
    /* where racing clients make sizes too large, the size is the agreed
     * one (coherence.h) */
    int64_t limit = ferry_coh_read_limit(f);
    if (limit != INT64_MAX) {
        *size = limit;
        return 0;
    }
    /* a client's size can lag behind other nodes' writes the ranks agreed
     * on, and behind its own that are still on their way */
    int64_t floor = ferry_coh_floor(f), wend = ferry_coh_written_end(f);
    if (*size < floor)
        *size = floor;
    if (*size < wend)
        *size = wend;
    return 0;
}

static int posix_truncate(ferry_fd *f, int64_t size)
{
    ferry_watch_begin(f, "ftruncate");
    int rc = ferry_coh_cut(f, size);
    ferry_watch_end(f);
    return rc;
}

static int posix_allocate(ferry_fd *f, int64_t size)
{
    int64_t cur;
    int rc = posix_size(f, &cur);
    if (rc < 0 || cur >= size)
        return rc;
    ferry_watch_begin(f, "fallocate");
    rc = posix_fallocate(f->fd, 0, size);
    ferry_watch_end(f);
    if (rc == EOPNOTSUPP || rc == EINVAL) {
        /* no fallocate here (e.g. some tmpfs/NFS): write zeros past the end */
        static const char zeros[65536];
        for (int64_t at = cur; at < size;) {
            int64_t n = size - at < (int64_t)sizeof zeros ? size - at : (int64_t)sizeof zeros;
            int64_t w = posix_pwrite(f, zeros, n, at);
            if (w < 0)
                return (int)w;
            at += w;
        }
        return 0;
    }
    return -rc;
}

static int posix_sync(ferry_fd *f)
{
    int rc;
    ferry_watch_begin(f, "fsync");
    do {
        rc = fsync(f->fd);
    } while (rc < 0 && errno == EINTR);
    int e = errno;
    ferry_watch_end(f);
    if (rc < 0)
        return -e;
    ferry_coh_synced(f);
    return 0;
}

static int posix_lock(ferry_fd *f, int64_t off, int64_t len, int exclusive)
{
    struct flock fl = {.l_type = (short)(exclusive ? F_WRLCK : F_RDLCK),
                       .l_whence = SEEK_SET, .l_start = off, .l_len = len};
    int rc;
    do {
        rc = fcntl(f->fd, F_SETLKW, &fl);
    } while (rc < 0 && errno == EINTR);
    /* A read-only descriptor cannot take a write lock, nor a write-only one a
     * read lock; fall back to the lock the descriptor allows. */
    if (rc < 0 && errno == EBADF) {
        fl.l_type = (short)(fl.l_type == F_WRLCK ? F_RDLCK : F_WRLCK);
        do {
            rc = fcntl(f->fd, F_SETLKW, &fl);
        } while (rc < 0 && errno == EINTR);
    }
    if (rc < 0)
        return -errno;
    /* what another client wrote under this lock before is on the servers
     * (its unlock synced it); pages this client cached before are not */
    ferry_coh_drop(f, off, len);
    return 0;
}

static int posix_unlock(ferry_fd *f, int64_t off, int64_t len)
{
    /* the next holder, on another client, must find the bytes on the servers */
    int synced = ferry_coh_dirty(f) ? posix_sync(f) : 0;
    struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = off, .l_len = len};
    if (fcntl(f->fd, F_SETLK, &fl) < 0)
        return -errno;
    return synced;
}

static int posix_remove(const char *path)
{
    return unlink(path) < 0 ? -errno : 0;
}

static int posix_sync_dir(const char *path)
{
    char dir[4096];
    int rc0 = ferry_path_dir(path, dir, sizeof dir);
    if (rc0 < 0)
        return rc0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd);
    int err = rc < 0 ? -errno : 0;
    close(fd);
    /* some file systems refuse fsync on directories; durability is then theirs */
    return err == -EINVAL ? 0 : err;
}

static const ferry_driver posix_driver = {
    .name = "posix",
    .open = posix_open,
    .close = posix_close,
    .pread = posix_pread,
    .pwrite = posix_pwrite,
    .preadv = posix_preadv,
    .pwritev = posix_pwritev,
    .size = posix_size,
    .truncate = posix_truncate,
    .allocate = posix_allocate,
    .sync = posix_sync,
    .lock = posix_lock,
    .unlock = posix_unlock,
    .remove = posix_remove,
    .sync_dir = posix_sync_dir,
};

const ferry_driver *ferry_driver_posix(void)
{
    return &posix_driver;
}
