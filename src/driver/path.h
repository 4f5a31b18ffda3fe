/* Paths as the drivers need them. */
#ifndef FERRY_DRIVER_PATH_H
#define FERRY_DRIVER_PATH_H

#include <stddef.h>

/* The directory holding path ("." for a bare name, "/" for a file in the
 * root): where a file about to be created lives. Returns 0, or
 * -ENAMETOOLONG when it does not fit in cap. */
int ferry_path_dir(const char *path, char *dir, size_t cap);

#endif
