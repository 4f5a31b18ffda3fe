/*
 * Which MPI library the process runs. libferry is built for one ABI (Open
 * MPI's or MPICH's: handles are pointers in one and integers in the other),
 * so the build preloaded into a program of the other ABI would pass
 * garbage handles and crash ("Invalid communicator", a segfault). ferry
 * asks the running library for its version (MPI_Get_library_version takes
 * no handle and may be called before MPI_Init) and stops at once, with one
 * line naming what it found and the build to use.
 */
#ifndef FERRY_CORE_MPI_LIB_H
#define FERRY_CORE_MPI_LIB_H

/* Returns when the running MPI library is of this build's ABI; otherwise
 * prints one line (from world rank 0, as the launcher numbers it) and exits
 * with status 1. Checked once per process; call it before any MPI call
 * that takes a handle. */
void ferry_mpi_lib_check(void);

#endif
