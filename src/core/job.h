/*
 * Facts of the whole job, which a file's communicator alone cannot give:
 * whether every process sees files through one mount table. MPI's rules
 * (sync-barrier-sync, close-then-open) bind every file handle of the job,
 * and another handle may be on another communicator, so a file can count
 * on one client only when the whole job shares it.
 */
#ifndef FERRY_CORE_JOB_H
#define FERRY_CORE_JOB_H

#include <mpi.h>

/* Collective over MPI_COMM_WORLD, right after MPI_Init (ferry's MPI_Init and
 * MPI_Init_thread call it): one allreduce. */
void ferry_job_init(void);

/* 1 when every process of MPI_COMM_WORLD sees one mount table (one host,
 * one mount namespace) and comm holds none but them. 0 when not, or when
 * unknown: MPI was initialised without ferry's MPI_Init (Open MPI's Fortran
 * calls PMPI_Init), or the view could not be read. */
int ferry_job_one_view(MPI_Comm comm);

#endif
