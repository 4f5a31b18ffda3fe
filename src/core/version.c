#include "ferry.h"
#include "core/version.h"

#define FERRY_PUBLIC __attribute__((visibility("default")))

#ifndef FERRY_MPI_FLAVOR_NAME
#define FERRY_MPI_FLAVOR_NAME "unknown"
#endif
#ifndef FERRY_VERSION_NUMBER
#define FERRY_VERSION_NUMBER "0.0.0"
#endif

FERRY_PUBLIC const char *ferry_version(void)
{
    return "ferry " FERRY_VERSION_NUMBER " (" FERRY_MPI_FLAVOR_NAME ")";
}

const char *ferry_version_number(void)
{
    return FERRY_VERSION_NUMBER;
}

const char *ferry_version_flavor(void)
{
    return FERRY_MPI_FLAVOR_NAME;
}
