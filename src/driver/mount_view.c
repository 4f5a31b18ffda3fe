/* One number for the mount table this process sees (mount_view.h): the
 * boot id names the kernel (hosts differ; an emulated node shares it), the
 * mount namespace's inode names the table within that kernel. */
#include "driver/mount_view.h"
#include "util/fnv.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t ferry_mount_view_id(void)
{
    char boot[64];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, boot, sizeof boot) : -1;
    if (fd >= 0)
        close(fd);
    struct stat ns;
    if (n <= 0 || stat("/proc/self/ns/mnt", &ns) != 0)
        return 0;
    uint64_t h = ferry_fnv(FERRY_FNV_INIT, boot, (size_t)n);
    h = ferry_fnv(h, &ns.st_dev, sizeof ns.st_dev);
    h = ferry_fnv(h, &ns.st_ino, sizeof ns.st_ino);
    return h ? h : 1;
}
