/* Completing batches of ferry's own requests. */
#ifndef FERRY_CORE_WAIT_H
#define FERRY_CORE_WAIT_H

#include <mpi.h>

/* MPI_Waitall without statuses. */
int ferry_waitall(int n, MPI_Request *reqs);

#endif
