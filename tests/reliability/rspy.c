/*
 * A test-only spy preloaded after libferry (LD_PRELOAD=libferry.so:librspy.so).
 * It sits between any library and libc and knows nothing of ferry:
 *   - counts fsync/fdatasync per path: int rspy_fsyncs(const char *realpath);
 *   - rspy_fail_fsyncs(err, n) makes the next n fsync/fdatasync calls of this
 *     process fail with err (a disk that cannot flush);
 *   - RSPY_KILL="rank,nth": the nth pwrite/pwritev of that world rank raises
 *     SIGKILL, so a rank dies inside an I/O call of a collective.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAXP 256
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct { char path[PATH_MAX]; int n; } seen[MAXP];
static int nseen, fail_err, fail_left;

static void record(int fd)
{
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t l = readlink(link, path, sizeof path - 1);
    if (l < 0)
        return;
    path[l] = 0;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < nseen && strcmp(seen[i].path, path))
        i++;
    if (i == nseen && nseen < MAXP)
        strcpy(seen[nseen++].path, path);
    if (i < MAXP)
        seen[i].n++;
    pthread_mutex_unlock(&lock);
}

int rspy_fsyncs(const char *path)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (!strcmp(seen[i].path, path))
            n = seen[i].n;
    pthread_mutex_unlock(&lock);
    return n;
}

void rspy_fail_fsyncs(int err, int n)
{
    pthread_mutex_lock(&lock);
    fail_err = err;
    fail_left = n;
    pthread_mutex_unlock(&lock);
}

static int injected(void)
{
    pthread_mutex_lock(&lock);
    int e = fail_left > 0 ? fail_err : 0;
    if (e)
        fail_left--;
    pthread_mutex_unlock(&lock);
    return e;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int e = injected();
    if (e) {
        errno = e;
        return -1;
    }
    int rc = real(fd);
    if (rc == 0)
        record(fd);
    return rc;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int e = injected();
    if (e) {
        errno = e;
        return -1;
    }
    int rc = real(fd);
    if (rc == 0)
        record(fd);
    return rc;
}

static void maybe_die(void)
{
    static int parsed, rank = -1;
    static long nth, count;
    if (!parsed) {
        parsed = 1;
        const char *k = getenv("RSPY_KILL");
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        if (!r)
            r = getenv("PMI_RANK");
        if (k && r && atoi(k) == atoi(r)) {
            const char *c = strchr(k, ',');
            nth = c ? atol(c + 1) : 1;
            rank = atoi(r);
        }
    }
    if (rank >= 0 && __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST) == nth) {
        fprintf(stderr, "rspy: killing rank %d inside write call %ld\n", rank, nth);
        raise(SIGKILL);
    }
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    maybe_die();
    return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    return pwrite(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    static ssize_t (*real)(int, const struct iovec *, int, off_t);
    if (!real)
        real = (ssize_t(*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
    maybe_die();
    return real(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return pwritev(fd, iov, cnt, off);
}
