/* Paths as the drivers need them. */
#ifndef FERRY_DRIVER_PATH_H
#define FERRY_DRIVER_PATH_H

#include <stddef.h>

/* The directory holding path ("." for a bare name, "/" for a file in the
 * root): where a file about to be created lives. Returns 0, or
 * -ENAMETOOLONG when it does not fit in cap. */
int ferry_path_dir(const char *path, char *dir, size_t cap);

/* Reads the regular file `path` whole, up to max bytes, into *buf
 * (malloc'd, terminated) and *len. The open never waits (O_NONBLOCK: a FIFO
 * without a writer, a device), and anything but a regular file is refused
 * before a byte is read (-EINVAL, *mode says what it is). Returns 0;
 * -EFBIG when the file holds more than max bytes (*buf then holds the first
 * max + 1); or -errno (*buf NULL). */
int ferry_path_read(const char *path, size_t max, char **buf, size_t *len, unsigned *mode);

#endif
