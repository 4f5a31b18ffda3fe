#include "exe_dir.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

const char *ferry_beside_exe(const char *rel, char *buf, size_t len)
{
    char exe[PATH_MAX];
    /* the program itself, with the links that lead to it resolved
     * (PREFIX/bin/ferry-tune.openmpi -> PREFIX/openmpi/bin/ferry-tune) */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    size_t dl = (size_t)(slash - exe) + 1, rl = strlen(rel);
    if (dl + rl + 1 > len)
        return NULL;
    memcpy(buf, exe, dl);
    memcpy(buf + dl, rel, rl + 1);
    return buf;
}
