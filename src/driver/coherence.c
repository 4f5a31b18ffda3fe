/*
 * What a client does to see other clients' writes (coherence.h). The
 * GlusterFS facts behind it, measured with plain POSIX between two FUSE
 * clients of one volume (docs/filesystems.md, "Consistency across nodes"):
 * stale bytes come from the reader's kernel page cache, which survives
 * close and open (fopen-keep-cache) and goes with POSIX_FADV_DONTNEED; a
 * stale size comes from md-cache and the shard translator's inode context,
 * which neither fsync, nor a forced stat, nor O_DIRECT reach, only a
 * READDIRPLUS of the directory (shard_readdir_cbk refreshes its context).
 */
#define _GNU_SOURCE
#include "driver/coherence.h"
#include "driver/faults.h"
#include "driver/path.h"
#include "driver/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct ferry_coherence {
    const char *path;
    int keeps_pages;
    ferry_size_refresh size_refresh;
    int close_behind;
    int size_race;
    int64_t cut_unit;
    int64_t whole_file_cache;
    /* read and written by the caller's thread, the nonblocking worker and
     * the aggregators' writer threads: atomics */
    int64_t floor;
    int64_t wend;
    int dirty;
    int atomic;
    /* a call holds the growth lock over all its writes (set and read by
     * the holding thread only) */
    int call_held;
    pthread_t holder;
    /* while the growth lock is held: the size found when it was taken and
     * how far the holder's writes reach (grow_end checks the one against
     * the other) */
    int holding;
    int64_t hold_size;
    int64_t hold_end;
};

int ferry_coh_attach(ferry_fd *fd, const char *path, const ferry_fs_info *fs)
{
    fd->coh = NULL;
    if (fs->coherent_cache || (!fs->keeps_pages && fs->size_refresh == FERRY_SIZE_FRESH && !fs->close_behind))
        return 0;
    ferry_coherence *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->path = path;
    c->keeps_pages = fs->keeps_pages;
    c->size_refresh = fs->size_refresh;
    c->close_behind = fs->close_behind;
    c->size_race = fs->size_race;
    c->cut_unit = fs->cut_unit;
    c->whole_file_cache = fs->whole_file_cache;
    fd->coh = c;
    return 0;
}

void ferry_coh_detach(ferry_fd *fd)
{
    free(fd->coh);
    fd->coh = NULL;
}

int ferry_coh_active(const ferry_fd *fd)
{
    return fd->coh != NULL;
}

void ferry_coh_drop(ferry_fd *fd, int64_t off, int64_t len)
{
    if (!fd->coh || !fd->coh->keeps_pages)
        return;
    /* the kernel drops only whole pages inside the range: widen it to the
     * pages it touches, or a piece sharing a page with its neighbour stays */
    int64_t page = sysconf(_SC_PAGESIZE), lo = off / page * page;
    int64_t hi = len > 0 ? (off + len + page - 1) / page * page : 0;
    posix_fadvise(fd->fd, (off_t)lo, (off_t)(len > 0 ? hi - lo : 0), POSIX_FADV_DONTNEED);
}

/* READDIRPLUS hands every entry's attributes, from the servers, to each
 * layer of the client on its way up (GlusterFS: shard_readdir_cbk marks
 * the shard context for refresh). md-cache keeps its own entry where this
 * client wrote the file itself (a newer change time than the listing's),
 * and only a setattr's reply replaces it: fchown to the same owner, which
 * any process may do on any descriptor and which changes nothing but the
 * change time. */
int ferry_coh_list_dir(const char *path)
{
    char dir[PATH_MAX];
    int rc = ferry_path_dir(path, dir, sizeof dir);
    if (rc < 0)
        return rc;
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    errno = 0;
    while (readdir(d))
        ;
    int err = errno;
    closedir(d);
    return -err;
}

/* Every call here that asks the servers is watched (driver/watch.h): a
 * refresh waits on a server that stopped answering as a write does. */
static int list_dir(const char *path, ferry_fd *fd)
{
    ferry_watch_begin(fd, "readdir");
    int err = -ferry_coh_list_dir(path);
    if (!err && fchown(fd->fd, (uid_t)-1, (gid_t)-1) < 0)
        err = errno;
    ferry_watch_end(fd);
    return -err;
}

static int forced_stat(ferry_fd *fd, int64_t *size)
{
    struct statx sx;
    ferry_watch_begin(fd, "statx");
    int rc = statx(fd->fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_SIZE, &sx);
    ferry_watch_end(fd);
    if (rc < 0)
        return -errno;
    *size = (int64_t)sx.stx_size;
    return 0;
}

static int watched_fstat(ferry_fd *fd, struct stat *st)
{
    ferry_watch_begin(fd, "fstat");
    int rc = fstat(fd->fd, st);
    ferry_watch_end(fd);
    return rc;
}

/* A file small enough for a whole-file client cache: only a lookup or a
 * listing brings its content (GlusterFS quick-read refreshes what it holds
 * from READDIRPLUS; measured: a drop and a forced stat still read the
 * bytes from before another client's write and fsync). */
static int small_enough(const ferry_coherence *c, int64_t size)
{
    return c->whole_file_cache > 0 && size >= 0 && size <= c->whole_file_cache;
}

int ferry_coh_refresh(ferry_fd *fd, int list)
{
    ferry_coherence *c = fd->coh;
    if (!c)
        return 0;
    int rc = 0, listed = list && c->size_refresh == FERRY_SIZE_LIST;
    if (listed)
        rc = list_dir(c->path, fd);
    int64_t size = -1;
    if (c->size_refresh != FERRY_SIZE_FRESH) {
        int r2 = forced_stat(fd, &size);
        if (!rc)
            rc = r2;
    } else if (c->whole_file_cache) {
        struct stat st;
        size = watched_fstat(fd, &st) < 0 ? -1 : st.st_size;
    }
    if (!listed && !rc && small_enough(c, size))
        rc = list_dir(c->path, fd);

    ferry_coh_drop(fd, 0, 0);
    return rc;
}

int ferry_coh_client_size(ferry_fd *fd, int64_t *size)
{
    if (fd->coh && fd->coh->size_refresh != FERRY_SIZE_FRESH)
        return forced_stat(fd, size);
    struct stat st;
    if (watched_fstat(fd, &st) < 0)
        return -errno;
    *size = st.st_size;
    return 0;
}

void ferry_coh_resized(ferry_fd *fd, int64_t size, int cut)
{
    ferry_coherence *c = fd->coh;
    if (!c)
        return;
    int64_t floor = __atomic_load_n(&c->floor, __ATOMIC_RELAXED);
    __atomic_store_n(&c->floor, cut || size > floor ? size : floor, __ATOMIC_RELAXED);
    /* what this descriptor wrote past a cut is gone from the file */
    int64_t wend = __atomic_load_n(&c->wend, __ATOMIC_RELAXED);
    while (cut && wend > size && !__atomic_compare_exchange_n(&c->wend, &wend, size, 1, __ATOMIC_RELAXED,
                                                              __ATOMIC_RELAXED))
        ;
}

int ferry_coh_outgrow_whole_file_cache(ferry_fd *fd, const ferry_fs_info *fs)
{
    if (fs->whole_file_cache <= 0)
        return 0;
    struct stat st;
    if (watched_fstat(fd, &st) < 0)
        return -errno;
    /* a sparse tail: no byte is stored */
    off_t want = (off_t)fs->whole_file_cache + 4096;
    if (st.st_size >= want)
        return 0;
    ferry_watch_begin(fd, "ftruncate");
    int rc = ftruncate(fd->fd, want) < 0 ? -errno : 0;
    ferry_watch_end(fd);
    return rc;
}

void ferry_coh_set_floor(ferry_fd *fd, int64_t floor)
{
    if (fd->coh)
        __atomic_store_n(&fd->coh->floor, floor, __ATOMIC_RELAXED);
}

int64_t ferry_coh_floor(const ferry_fd *fd)
{
    return fd->coh ? __atomic_load_n(&fd->coh->floor, __ATOMIC_RELAXED) : 0;
}

int64_t ferry_coh_written_end(const ferry_fd *fd)
{
    return fd->coh ? __atomic_load_n(&fd->coh->wend, __ATOMIC_RELAXED) : 0;
}

int ferry_coh_dirty(const ferry_fd *fd)
{
    return fd->coh ? __atomic_load_n(&fd->coh->dirty, __ATOMIC_RELAXED) : 0;
}

void ferry_coh_set_atomic(ferry_fd *fd, int on)
{
    if (fd->coh)
        __atomic_store_n(&fd->coh->atomic, !!on, __ATOMIC_RELAXED);
}

static void raise_to(int64_t *at, int64_t v)
{
    int64_t cur = __atomic_load_n(at, __ATOMIC_RELAXED);
    while (v > cur && !__atomic_compare_exchange_n(at, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void ferry_coh_wrote(ferry_fd *fd, int64_t off, int64_t n)
{
    ferry_coherence *c = fd->coh;
    if (!c || n <= 0)
        return;
    __atomic_store_n(&c->dirty, 1, __ATOMIC_RELAXED);
    int64_t end = off + n;
    raise_to(&c->wend, end);
    if (__atomic_load_n(&c->holding, __ATOMIC_RELAXED))
        raise_to(&c->hold_end, end);
}

void ferry_coh_synced(ferry_fd *fd)
{
    if (fd->coh)
        __atomic_store_n(&fd->coh->dirty, 0, __ATOMIC_RELAXED);
}

void ferry_coh_before_read(ferry_fd *fd, int64_t off, int64_t len)
{
    ferry_coherence *c = fd->coh;
    if (!c || !__atomic_load_n(&c->atomic, __ATOMIC_RELAXED))
        return;
    struct stat st;
    if (c->whole_file_cache && watched_fstat(fd, &st) == 0 && small_enough(c, st.st_size))
        list_dir(c->path, fd);
    ferry_coh_drop(fd, off, len);
}

static int cut(ferry_fd *fd, int64_t size)
{
    int rc;
    ferry_watch_begin(fd, "ftruncate");
    do {
        rc = ferry_fault_ftruncate(fd->fd, size);
    } while (rc < 0 && errno == EINTR);
    rc = rc < 0 ? -errno : 0;
    ferry_watch_end(fd);
    return rc;
}

/* Where a cut to a multiple of the file system's block empties the block
 * below it (ferry_fs_info.cut_unit), a cut below the file's end ends one
 * byte short and writes that byte back, which grows the file to the size
 * asked. Every caller has dropped this client's pages first (a refresh, or
 * the settling's drop), so the byte read is the servers'. */
int ferry_coh_cut(ferry_fd *fd, int64_t size)
{
    int64_t unit = fd->coh ? fd->coh->cut_unit : 0;
    char last;
    ssize_t got = 0;
    if (unit > 0 && size > 0 && size % unit == 0) {
        ferry_watch_begin(fd, "read");
        do {
            got = ferry_fault_pread(fd->fd, &last, 1, (off_t)(size - 1));
        } while (got < 0 && errno == EINTR);
        ferry_watch_end(fd);
        if (got < 0)
            return -errno;
    }
    /* nothing at size - 1: the cut grows the file, which empties nothing */
    if (got != 1)
        return cut(fd, size);
    int rc = cut(fd, size - 1);
    if (rc)
        return rc;
    ssize_t put;
    ferry_watch_begin(fd, "write");
    do {
        put = ferry_fault_pwrite(fd->fd, &last, 1, (off_t)(size - 1));
    } while (put < 0 && errno == EINTR);
    rc = put == 1 ? 0 : put < 0 ? -errno : -EIO;
    ferry_watch_end(fd);
    return rc;
}

int64_t ferry_coh_read_limit(const ferry_fd *fd)
{
    ferry_coherence *c = fd->coh;
    if (!c || !c->size_race || __atomic_load_n(&c->atomic, __ATOMIC_RELAXED))
        return INT64_MAX;
    int64_t floor = __atomic_load_n(&c->floor, __ATOMIC_RELAXED), wend = __atomic_load_n(&c->wend, __ATOMIC_RELAXED);
    return floor > wend ? floor : wend;
}

int ferry_coh_retry_short(ferry_fd *fd, int64_t at)
{
    ferry_coherence *c = fd->coh;
    if (!c || c->size_refresh == FERRY_SIZE_FRESH)
        return 0;
    if (!__atomic_load_n(&c->atomic, __ATOMIC_RELAXED) && at >= __atomic_load_n(&c->floor, __ATOMIC_RELAXED))
        return 0;
    ferry_coh_refresh(fd, 1);
    return 1;
}

/* Far past any file: the byte whose lock every growing write takes. */
#define GROW_SENTINEL ((off_t)1 << 62)

static int grow_lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = GROW_SENTINEL, .l_len = 1};
    int rc;
    do {
        rc = fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &fl);
    } while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : 0;
}

int ferry_coh_grow_begin(ferry_fd *fd)
{
    ferry_coherence *c = fd->coh;
    if (!c || !c->size_race || !__atomic_load_n(&c->atomic, __ATOMIC_RELAXED))
        return 0;
    if (c->call_held && pthread_equal(c->holder, pthread_self()))
        return 0; /* the whole call holds it */
    /* Every write, not only those past the size this process sees: the
     * shard translator measures growth from its own idea of the size,
     * which can lag behind the kernel's and md-cache's (measured: sizes
     * 2 % too large when only writes past the kernel's size were held). */
    int64_t have;
    int rc = grow_lock(fd->fd, F_WRLCK);
    if (rc < 0)
        return rc;
    /* the growth this client reports is measured from the size it holds */
    rc = list_dir(c->path, fd);
    if (!rc)
        rc = forced_stat(fd, &have);

    if (rc < 0) {
        grow_lock(fd->fd, F_UNLCK);
        return rc;
    }
    c->hold_size = have;
    __atomic_store_n(&c->hold_end, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->holding, 1, __ATOMIC_RELAXED);
    return 1;
}

int ferry_coh_zeros(ferry_fd *fd, int64_t from, int64_t to, int *err)
{
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!buf) {
        *err = -ENOMEM;
        return 0;
    }
    int zeros = 1;
    for (int64_t at = from; zeros && at < to;) {
        size_t want = to - at < CHUNK ? (size_t)(to - at) : CHUNK;
        ferry_watch_begin(fd, "read");
        ssize_t got = pread(fd->fd, buf, want, (off_t)at);
        ferry_watch_end(fd);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            *err = got < 0 ? -errno : 0;
            break; /* the end came early: nothing there to keep */
        }
        for (ssize_t i = 0; i < got && zeros; i++)
            zeros = buf[i] == 0;
        at += got;
    }
    free(buf);
    return zeros && !*err;
}

/* Still under the lock, with the holder's writes synced: the size must be
 * the one found at begin, or the end of these writes where they reach
 * past it. Two writes in flight at once right after a refresh can each
 * measure their growth from the size before the other (likely, from
 * GlusterFS's shard.c: the second's base-file refresh lands after the
 * first's growth), which leaves the size too large; seen on the cluster in
 * 2 % of atomic mode's size checks. What lies past the right size reads as
 * zeros and is cut; a size short of these writes is set to their end. */
static int settle_growth(ferry_fd *fd)
{
    ferry_coherence *c = fd->coh;
    int64_t end = __atomic_load_n(&c->hold_end, __ATOMIC_RELAXED), want = c->hold_size > end ? c->hold_size : end;
    if (end == 0)
        return 0;
    int64_t have = 0;
    int rc = list_dir(c->path, fd);
    if (!rc)
        rc = forced_stat(fd, &have);
    if (rc < 0 || have == want)
        return rc;
    ferry_coh_drop(fd, 0, 0);
    int err = 0;
    if (have < end)
        want = end;
    else if (have < want || !ferry_coh_zeros(fd, want, have, &err))
        return err; /* another writer's bytes (or a size set smaller meanwhile): theirs */
    return ferry_coh_cut(fd, want);
}

int ferry_coh_grow_end(ferry_fd *fd, int held)
{
    if (held <= 0)
        return 0;
    /* write-behind hands the write to the shard translator, which reports
     * the growth, only when flushed: before the next grower starts */
    int rc;
    ferry_watch_begin(fd, "fsync");
    do {
        rc = fsync(fd->fd);
    } while (rc < 0 && errno == EINTR);
    int err = rc < 0 ? -errno : 0;
    ferry_watch_end(fd);
    __atomic_store_n(&fd->coh->holding, 0, __ATOMIC_RELAXED);
    if (!err)
        ferry_coh_synced(fd);
    if (!err)
        err = settle_growth(fd);
    int u = grow_lock(fd->fd, F_UNLCK);
    return err ? err : u;
}

int ferry_coh_call_grow_begin(ferry_fd *fd)
{
    int held = ferry_coh_grow_begin(fd);
    if (held > 0) {
        fd->coh->holder = pthread_self();
        fd->coh->call_held = 1;
    }
    return held;
}

int ferry_coh_call_grow_end(ferry_fd *fd, int held)
{
    if (held > 0)
        fd->coh->call_held = 0;
    return ferry_coh_grow_end(fd, held);
}

int ferry_coh_sync_before_close(const ferry_fd *fd)
{
    return fd->coh && fd->coh->close_behind && __atomic_load_n(&fd->coh->dirty, __ATOMIC_RELAXED);
}
