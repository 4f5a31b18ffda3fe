/*
 * A test shim, preloaded after libferry: on one rank (SLOWIO_RANK, the
 * world rank as the launcher gives it), every pread/pwrite/preadv/pwritev
 * sleeps a random 0..SLOWIO_US microseconds first, so that rank's view of
 * how long a call took differs wildly from the others'. Learning must
 * still take the same option on every rank.
 *
 * With SLOWIO_WIN_US, every rank's MPI_Win_allocate_shared (local
 * aggregation's node window, made once per open) sleeps that long first:
 * work done once, which learning must not charge to the option's calls.
 *
 * With SLOWIO_SYNC_NS, every rank's fsync sleeps that many nanoseconds per
 * byte the process wrote since its last fsync: a file system whose flush
 * costs what is dirty, where a trial must not be charged another option's
 * writes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

static int slow = -1;
static unsigned seed;
static long max_us;

static void maybe_sleep(void)
{
    if (slow < 0) {
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        if (!r)
            r = getenv("PMI_RANK");
        const char *want = getenv("SLOWIO_RANK"), *us = getenv("SLOWIO_US");
        slow = r && want && atoi(r) == atoi(want);
        max_us = us ? atol(us) : 20000;
        seed = (unsigned)getpid();
    }
    if (slow && max_us > 0)
        usleep((useconds_t)(rand_r(&seed) % max_us));
}

typedef ssize_t (*rw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*rwv_fn)(int, const struct iovec *, int, off_t);

static long long dirty; /* bytes written since the last fsync */

static void wrote(ssize_t n)
{
    if (n > 0)
        __atomic_add_fetch(&dirty, (long long)n, __ATOMIC_RELAXED);
}

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t o)
{
    static rw_fn f;
    if (!f)
        f = (rw_fn)next("pwrite");
    maybe_sleep();
    ssize_t r = f(fd, (void *)b, n, o);
    wrote(r);
    return r;
}

ssize_t pread(int fd, void *b, size_t n, off_t o)
{
    static rw_fn f;
    if (!f)
        f = (rw_fn)next("pread");
    maybe_sleep();
    return f(fd, b, n, o);
}

ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o)
{
    static rwv_fn f;
    if (!f)
        f = (rwv_fn)next("pwritev");
    maybe_sleep();
    ssize_t r = f(fd, v, c, o);
    wrote(r);
    return r;
}

ssize_t preadv(int fd, const struct iovec *v, int c, off_t o)
{
    static rwv_fn f;
    if (!f)
        f = (rwv_fn)next("preadv");
    maybe_sleep();
    return f(fd, v, c, o);
}

typedef int (*win_fn)(MPI_Aint, int, MPI_Info, MPI_Comm, void *, MPI_Win *);

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win)
{
    static win_fn f;
    if (!f)
        f = (win_fn)next("MPI_Win_allocate_shared");
    const char *us = getenv("SLOWIO_WIN_US");
    if (us && atol(us) > 0)
        usleep((useconds_t)atol(us));
    return f(size, disp_unit, info, comm, base, win);
}

int fsync(int fd)
{
    static int (*f)(int);
    if (!f)
        f = (int (*)(int))next("fsync");
    const char *ns = getenv("SLOWIO_SYNC_NS");
    long long d = __atomic_exchange_n(&dirty, 0, __ATOMIC_RELAXED);
    if (ns && atol(ns) > 0 && d > 0)
        usleep((useconds_t)(d * atol(ns) / 1000));
    return f(fd);
}
