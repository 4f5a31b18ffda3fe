#include "core/amode.h"
#include "driver/driver.h"

#include <mpi.h>
#include <stddef.h>

int ferry_amode_check(int amode, const char **why)
{
    const int known = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE |
                      MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                      MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    int access = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (amode & ~known) {
        *why = "amode has bits that are not MPI_MODE_* flags";
        return MPI_ERR_AMODE;
    }
    if (access != 1) {
        *why = "amode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR";
        return MPI_ERR_AMODE;
    }
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) {
        *why = "MPI_MODE_CREATE and MPI_MODE_EXCL are not allowed with MPI_MODE_RDONLY";
        return MPI_ERR_AMODE;
    }
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) {
        *why = "MPI_MODE_SEQUENTIAL is not allowed with MPI_MODE_RDWR";
        return MPI_ERR_AMODE;
    }
    *why = NULL;
    return MPI_SUCCESS;
}

int ferry_amode_open_flags(int amode)
{
    int flags = 0;
    if (amode & (MPI_MODE_RDONLY | MPI_MODE_RDWR))
        flags |= FERRY_OPEN_READ;
    if (amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR))
        flags |= FERRY_OPEN_WRITE;
    if (amode & MPI_MODE_CREATE)
        flags |= FERRY_OPEN_CREATE;
    if (amode & MPI_MODE_EXCL)
        flags |= FERRY_OPEN_EXCL;
    return flags;
}
