#include "ferry.h"

#define FERRY_PUBLIC __attribute__((visibility("default")))

#ifndef FERRY_MPI_FLAVOR_NAME
#define FERRY_MPI_FLAVOR_NAME "unknown"
#endif

FERRY_PUBLIC const char *ferry_version(void)
{
    return "ferry 0.1.0 (" FERRY_MPI_FLAVOR_NAME ")";
}
