/*
 * Driver selection from ROMIO-style "fs:" prefixes. A prefix that names a
 * file system ferry reaches through POSIX selects the POSIX driver and is
 * stripped. A prefix ROMIO knows but ferry has no driver for (pvfs2:,
 * daos:, ...) selects none: the open fails with MPI_ERR_IO, as ROMIO fails
 * for a driver it was built without. Any other "word:" is part of the file
 * name (newer ROMIO does the same). ROMIO_FSTYPE_FORCE gives its prefix to
 * every name that has none of its own.
 */
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>

static const char *const posix_names[] = {"ufs", "posix", "nfs", "lustre", "gpfs", "xfs", "tmpfs"};
static const char *const other_names[] = {"pvfs2", "panfs", "daos", "testfs", "ime", "quobyte", "piofs",
                                          "pfs",   "sfs",   "hfs",  "bgl",    "bg",  "gridftp", "zoidfs"};

/* 1 if the n bytes at s are one of names */
static int named(const char *s, size_t n, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (n == strlen(names[i]) && !strncmp(s, names[i], n))
            return 1;
    return 0;
}

/* The prefix's length (before its colon) if path starts with a ROMIO
 * prefix, known to ferry or not; else 0. A one-letter prefix is a drive
 * letter, not a file system. */
static size_t prefix_len(const char *path)
{
    const char *colon = strchr(path, ':');
    if (!colon || colon - path <= 1 || memchr(path, '/', (size_t)(colon - path)))
        return 0;
    size_t n = (size_t)(colon - path);
    return named(path, n, posix_names, sizeof posix_names / sizeof *posix_names) ||
                   named(path, n, other_names, sizeof other_names / sizeof *other_names)
               ? n
               : 0;
}

const ferry_driver *ferry_driver_for(const char *path, const char **stripped)
{
    *stripped = path;
    size_t n = prefix_len(path);
    const char *fs = path;
    if (n) {
        *stripped = path + n + 1;
    } else {
        const char *force = getenv("ROMIO_FSTYPE_FORCE");
        if (!force || !*force)
            return ferry_driver_posix();
        fs = force;
        n = strcspn(force, ":");
    }
    return named(fs, n, posix_names, sizeof posix_names / sizeof *posix_names) ? ferry_driver_posix() : NULL;
}
