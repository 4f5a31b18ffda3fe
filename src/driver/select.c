/* Driver selection: ROMIO-style "fs:" prefixes choose a driver explicitly. */
#include "driver/driver.h"

#include <string.h>

const ferry_driver *ferry_driver_for(const char *path, const char **stripped)
{
    *stripped = path;
    const char *colon = strchr(path, ':');
    /* a one-letter prefix is a drive letter, not a file-system name */
    if (colon && colon - path > 1 && !memchr(path, '/', (size_t)(colon - path))) {
        static const char *const posix_names[] = {"ufs", "posix", "nfs", "lustre", "gpfs", "xfs", "tmpfs"};
        for (size_t i = 0; i < sizeof posix_names / sizeof *posix_names; i++)
            if ((size_t)(colon - path) == strlen(posix_names[i]) &&
                !strncmp(path, posix_names[i], (size_t)(colon - path))) {
                *stripped = colon + 1;
                return ferry_driver_posix();
            }
    }
    return ferry_driver_posix();
}
