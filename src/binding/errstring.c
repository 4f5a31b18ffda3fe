/*
 * MPI_Error_string for ferry's error codes. ferry keeps the text of every code
 * it makes (core/errors.c), because MPICH 4.0 garbles the strings of codes
 * added to a predefined class; any other code goes to the MPI library's own
 * function. Interposed under both names, like the MPI_File_* functions, so
 * profilers and Fortran bindings that call PMPI_Error_string see the same.
 */
#define _GNU_SOURCE
#include "binding/bind.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*error_string_fn)(int, char *, int *);

static error_string_fn next_error_string(void)
{
    /* the library after ferry in the search order: the MPI library */
    static error_string_fn next;
    if (!next)
        next = (error_string_fn)dlsym(RTLD_NEXT, "PMPI_Error_string");
    return next;
}

FERRY_BIND(int, MPI_Error_string, (int errorcode, char *string, int *resultlen), (errorcode, string, resultlen))
{
    if (string && resultlen && ferry_err_text(errorcode, string, MPI_MAX_ERROR_STRING)) {
        *resultlen = (int)strlen(string);
        return MPI_SUCCESS;
    }
    error_string_fn next = next_error_string();
    if (next)
        return next(errorcode, string, resultlen);
    /* not reachable when ferry is loaded in front of an MPI library */
    if (string && resultlen)
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "MPI error code %d", errorcode);
    return MPI_ERR_ARG;
}
