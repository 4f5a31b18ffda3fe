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
 * writes (bench/learn_flush.sh measures that).
 *
 * With SLOWIO_CLOCK=bytes, libferry's clock (CLOCK_MONOTONIC read from
 * libferry) is no clock: it reads a counter of the bytes the process wrote
 * and the bytes its fsyncs flushed, one nanosecond each, and nothing else
 * moves it. Whatever ferry measures is then what it wrote and flushed while
 * the clock ran, the same on a quiet or a loaded host, with or without
 * sanitizers: a test states counts, not times. The rest of the process (MPI)
 * keeps the real clock.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

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
static long long ticks; /* SLOWIO_CLOCK=bytes: bytes written, plus bytes flushed */

static void wrote(ssize_t n)
{
    if (n > 0) {
        __atomic_add_fetch(&dirty, (long long)n, __ATOMIC_RELAXED);
        __atomic_add_fetch(&ticks, (long long)n, __ATOMIC_RELAXED);
    }
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
    int rc = f(fd);
    __atomic_add_fetch(&ticks, d, __ATOMIC_RELAXED);
    return rc;
}

/* The callers nearest this function, through the unwinder (libgcc_s):
 * frames[0] is clock_gettime here. */
struct frames {
    void *pc[4];
    int n;
};

static _Unwind_Reason_Code one_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct frames *f = arg;
    f->pc[f->n++] = (void *)_Unwind_GetIP(ctx);
    return f->n < 4 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* Whether libferry called: one of the callers nearest this function is in
 * it (a sanitizer's interceptor of clock_gettime may sit between). */
static int from_ferry(void)
{
    struct frames f = {.n = 0};
    _Unwind_Backtrace(one_frame, &f);
    int yes = 0;
    for (int i = 1; i < f.n && !yes; i++) {
        Dl_info di;
        yes = dladdr(f.pc[i], &di) && di.dli_fname && strstr(di.dli_fname, "/libferry.so");
    }
    return yes;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*f)(clockid_t, struct timespec *);
    if (!f)
        f = (int (*)(clockid_t, struct timespec *))next("clock_gettime");
    static int counting = -1;
    if (counting < 0) {
        const char *c = getenv("SLOWIO_CLOCK");
        counting = c && !strcmp(c, "bytes");
    }
    if (counting && id == CLOCK_MONOTONIC && from_ferry()) {
        long long t = __atomic_load_n(&ticks, __ATOMIC_RELAXED);
        ts->tv_sec = (time_t)(t / 1000000000);
        ts->tv_nsec = (long)(t % 1000000000);
        return 0;
    }
    return f(id, ts);
}
