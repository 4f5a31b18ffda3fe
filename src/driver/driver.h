/*
 * Storage drivers: the only code that touches the file system. Every call
 * retries EINTR and short transfers, splits transfers above the kernel's
 * single-call limit, and reports failure as a negative errno. Nothing above
 * this layer sees a partial system call.
 */
#ifndef FERRY_DRIVER_DRIVER_H
#define FERRY_DRIVER_DRIVER_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "driver/fsinfo.h"

/* What a descriptor needs where client caches are not coherent (coherence.h). */
typedef struct ferry_coherence ferry_coherence;

typedef struct ferry_fd {
    int fd;
    const struct ferry_driver *drv;
    ferry_coherence *coh; /* NULL where the file system's caches are coherent */
    /* the watchdog's (watch.h): how long one system call on it may wait
     * (0: as long as the file system makes it), and the file's name for
     * the message; set by the opener, 0 and NULL after open */
    int watch_seconds;
    const char *watch_name;
} ferry_fd;

enum { FERRY_OPEN_READ = 1, FERRY_OPEN_WRITE = 2, FERRY_OPEN_CREATE = 4, FERRY_OPEN_EXCL = 8 };

typedef struct ferry_driver {
    const char *name;
    int (*open)(const char *path, int flags, ferry_fd *out);
    int (*close)(ferry_fd *f);
    /* Full transfers: return bytes moved (a read stops short only at EOF) or -errno.
     * A read that stops short below the size the ranks agreed on refreshes
     * the client's idea of the size and goes on (coherence.h). */
    int64_t (*pread)(ferry_fd *f, void *buf, int64_t len, int64_t off);
    int64_t (*pwrite)(ferry_fd *f, const void *buf, int64_t len, int64_t off);
    int64_t (*preadv)(ferry_fd *f, const struct iovec *iov, int n, int64_t off);
    int64_t (*pwritev)(ferry_fd *f, const struct iovec *iov, int n, int64_t off);
    /* The size as this client sees it, and never below what the ranks
     * agreed on or what this descriptor wrote (coherence.h). */
    int (*size)(ferry_fd *f, int64_t *size);
    int (*truncate)(ferry_fd *f, int64_t size);
    int (*allocate)(ferry_fd *f, int64_t size);
    int (*sync)(ferry_fd *f);
    /* Byte-range lock, blocking; len 0 means to end of file. Where caches
     * are not coherent, taking one drops the cached pages it covers and
     * releasing one syncs what this descriptor wrote first, as NFS does. */
    int (*lock)(ferry_fd *f, int64_t off, int64_t len, int exclusive);
    int (*unlock)(ferry_fd *f, int64_t off, int64_t len);
    int (*remove)(const char *path);
    int (*sync_dir)(const char *path); /* make a create durable */
} ferry_driver;

const ferry_driver *ferry_driver_posix(void);
/* The driver for a path: honours "ufs:"-style prefixes (and
 * ROMIO_FSTYPE_FORCE) and returns the path with the prefix stripped; NULL
 * when the prefix names a file system ferry has no driver for. */
const ferry_driver *ferry_driver_for(const char *path, const char **stripped);

#endif
