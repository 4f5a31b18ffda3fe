/* Paths as the drivers need them. */
#include "driver/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int ferry_path_read(const char *path, size_t max, char **buf, size_t *len, unsigned *mode)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        if (mode)
            *mode = (unsigned)st.st_mode;
        close(fd);
        return -EINVAL;
    }
    if (mode)
        *mode = (unsigned)st.st_mode;
    /* st_size is a guess only: /proc files say 0 */
    size_t cap = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1, n = 0;
    if (cap < 4096)
        cap = max + 1 < 4096 ? max + 1 : 4096;
    char *b = malloc(cap + 1);
    if (!b) {
        close(fd);
        return -ENOMEM;
    }
    while (n <= max) {
        if (n == cap) {
            size_t nc = cap * 2 < max + 1 ? cap * 2 : max + 1;
            char *nb = realloc(b, nc + 1);
            if (!nb) {
                free(b);
                close(fd);
                return -ENOMEM;
            }
            b = nb;
            cap = nc;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return n > max ? -EFBIG : 0;
}
