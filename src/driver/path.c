/* Paths as the drivers need them. */
#include "driver/path.h"

#include <errno.h>
#include <string.h>

int ferry_path_dir(const char *path, char *dir, size_t cap)
{
    size_t n = strlen(path);
    if (n >= cap)
        return -ENAMETOOLONG;
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    return 0;
}
