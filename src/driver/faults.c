/* Fault injection for tests; see faults.h for the FERRY_FAULT syntax. */
#define _GNU_SOURCE
#include "driver/faults.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FERRY_FAULTS
#error "faults.c belongs to the test library only (src/driver/CMakeLists.txt)"
#endif

/* This process's world rank as its launcher set it (Open MPI, Hydra, PMIx);
 * -1 when none says, and then only rank=-1 specs match. The driver knows
 * nothing of MPI, and the hook needs no MPI call. */
const char *const ferry_testlib_env_names[] = {"FERRY_FAULT", "FERRY_DECOUPLE_FAULT", NULL};

static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

enum { OP_READ = 1, OP_WRITE = 2, OP_TRUNCATE = 4 };
enum { ERR_EIO = 1, ERR_ENOSPC, ERR_EINTR, ERR_SHORT, ERR_GROW, ERR_HANG };

static struct {
    int parsed, active, ops, rank, me, err;
    long nth, times, every;
    long seen[OP_TRUNCATE + 1];
} spec;

static void parse(void)
{
    spec.parsed = 1;
    spec.me = launcher_rank();
    const char *env = getenv("FERRY_FAULT");
    if (!env || !*env)
        return;
    spec.ops = OP_READ | OP_WRITE;
    spec.rank = -1;
    spec.nth = 1;
    spec.times = 1;
    spec.every = 1;
    spec.err = ERR_EIO;
    char buf[256];
    strncpy(buf, env, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq++ = 0;
        if (!strcmp(tok, "op"))
            spec.ops = !strcmp(eq, "read")       ? OP_READ
                     : !strcmp(eq, "write")    ? OP_WRITE
                     : !strcmp(eq, "truncate") ? OP_TRUNCATE
                                               : OP_READ | OP_WRITE;
        else if (!strcmp(tok, "rank"))
            spec.rank = atoi(eq);
        else if (!strcmp(tok, "nth"))
            spec.nth = atol(eq);
        else if (!strcmp(tok, "times"))
            spec.times = atol(eq);
        else if (!strcmp(tok, "every"))
            spec.every = atol(eq) > 0 ? atol(eq) : 1;
        else if (!strcmp(tok, "err"))
            spec.err = !strcmp(eq, "ENOSPC") ? ERR_ENOSPC : !strcmp(eq, "EINTR") ? ERR_EINTR
                     : !strcmp(eq, "SHORT")  ? ERR_SHORT  : !strcmp(eq, "GROW") ? ERR_GROW
                     : !strcmp(eq, "HANG")   ? ERR_HANG   : ERR_EIO;
    }
    spec.active = 1;
}

/* Returns 0 to let the call through, or the fault to inject. */
static int should_fail(int op)
{
    if (!spec.parsed)
        parse();
    if (!spec.active || !(spec.ops & op) || (spec.rank >= 0 && spec.rank != spec.me))
        return 0;
    long n = ++spec.seen[op];
    if (n < spec.nth || (n - spec.nth) % spec.every)
        return 0;
    if (spec.times > 0 && (n - spec.nth) / spec.every >= spec.times)
        return 0;
    return spec.err;
}

static ssize_t inject(int f, size_t n)
{
    switch (f) {
    case ERR_ENOSPC: errno = ENOSPC; return -1;
    case ERR_EINTR: errno = EINTR; return -1;
    case ERR_SHORT: return (ssize_t)(n > 1 ? n / 2 : 0);
    case ERR_HANG:
        for (;;)
            sleep(3600);
    default: errno = EIO; return -1;
    }
}

ssize_t ferry_fault_pread(int fd, void *buf, size_t n, off_t off)
{
    int f = should_fail(OP_READ);
    if (f == ERR_SHORT && n > 1)
        return pread(fd, buf, n / 2, off);
    return f && f != ERR_GROW ? inject(f, n) : pread(fd, buf, n, off);
}

/* The write succeeded and the file system counted its growth wrongly: the
 * size now reaches GROW_BY past the write's end (what racing GlusterFS
 * shard clients do; driver/coherence.c). */
enum { GROW_BY = 4096 };

static ssize_t grown(int fd, ssize_t got, off_t off)
{
    struct stat st;
    if (got > 0 && fstat(fd, &st) == 0) {
        off_t end = off + got > st.st_size ? off + got : st.st_size;
        if (ftruncate(fd, end + GROW_BY) < 0)
            return -1;
    }
    return got;
}

ssize_t ferry_fault_pwrite(int fd, const void *buf, size_t n, off_t off)
{
    int f = should_fail(OP_WRITE);
    if (f == ERR_GROW)
        return grown(fd, pwrite(fd, buf, n, off), off);
    if (f == ERR_SHORT && n > 1)
        return pwrite(fd, buf, n / 2, off);
    return f ? inject(f, n) : pwrite(fd, buf, n, off);
}

ssize_t ferry_fault_preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    int f = should_fail(OP_READ);
    if (f == ERR_SHORT && cnt > 0 && iov[0].iov_len > 1)
        return pread(fd, iov[0].iov_base, iov[0].iov_len / 2, off);
    return f && f != ERR_GROW ? inject(f, iov[0].iov_len) : preadv(fd, iov, cnt, off);
}

ssize_t ferry_fault_pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    int f = should_fail(OP_WRITE);
    if (f == ERR_GROW)
        return grown(fd, pwritev(fd, iov, cnt, off), off);
    if (f == ERR_SHORT && cnt > 0 && iov[0].iov_len > 1)
        return pwrite(fd, iov[0].iov_base, iov[0].iov_len / 2, off);
    return f ? inject(f, iov[0].iov_len) : pwritev(fd, iov, cnt, off);
}

int ferry_fault_ftruncate(int fd, off_t size)
{
    int f = should_fail(OP_TRUNCATE);
    if (f == ERR_GROW)
        return ftruncate(fd, size + GROW_BY);
    if (f) {
        errno = f == ERR_ENOSPC ? ENOSPC : f == ERR_EINTR ? EINTR : EIO;
        return -1;
    }
    return ftruncate(fd, size);
}
