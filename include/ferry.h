/*
 * ferry: a drop-in MPI-IO layer. Programs need no header to use it: every
 * MPI_File_* call goes through ferry once it is preloaded or linked before
 * the MPI library. This header declares ferry's own extensions.
 */
#ifndef FERRY_H
#define FERRY_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_VERSION_MAJOR 0
#define FERRY_VERSION_MINOR 1

/* Version string, e.g. "ferry 0.1.0 (openmpi)". */
const char *ferry_version(void);

#ifdef __cplusplus
}
#endif

#endif
