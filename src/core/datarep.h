/* Data representations registered with MPI_Register_datarep. */
#ifndef FERRY_CORE_DATAREP_H
#define FERRY_CORE_DATAREP_H

#include <mpi.h>

typedef struct ferry_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    void *read_fn;   /* MPI_Datarep_conversion_function(_c) */
    void *write_fn;
    MPI_Datarep_extent_function *extent_fn;
    void *state;
    int large;       /* registered through MPI_Register_datarep_c */
} ferry_datarep;

int ferry_datarep_register(const char *name, void *read_fn, void *write_fn,
                           MPI_Datarep_extent_function *extent_fn, void *state, int large);
const ferry_datarep *ferry_datarep_find(const char *name);

#endif
