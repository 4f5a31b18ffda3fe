#ifndef FERRY_DATATYPE_USABLE_H
#define FERRY_DATATYPE_USABLE_H

#include <mpi.h>

/* 1 if t is a named (predefined) type: never freed, always usable. */
int ferry_dt_is_named(MPI_Datatype t);

/* 1 if t may carry data: named, or committed. comm's error handler is
 * switched to return for the check and restored. */
int ferry_dt_committed(MPI_Datatype t, MPI_Comm comm);

#endif
