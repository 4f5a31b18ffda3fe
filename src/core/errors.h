/*
 * Errors: every failure leaves ferry as a standard MPI error class, carried
 * in an error code whose MPI_Error_string says what went wrong, and passes
 * through the file's error handler.
 */
#ifndef FERRY_CORE_ERRORS_H
#define FERRY_CORE_ERRORS_H

#include <mpi.h>

struct ferry_file;

/* An error code of class cls whose MPI_Error_string is "ferry: msg" (one
 * code per distinct class and text; msg is copied). */
int ferry_err(int cls, const char *msg);
/* The MPI class for a (positive or negative) errno value. */
int ferry_errno_class(int err);
/* An error code for a failed system call on the file at path (NULL: none):
 * "ferry: <strerror>: <path>". */
int ferry_err_errno(int err, const char *path);
/* 1 if code is one of ferry's: its text (terminated, at most len bytes) in
 * buf; MPI_Error_string answers from here. */
int ferry_err_text(int code, char *buf, int len);
/* The class of a code (MPI_SUCCESS stays MPI_SUCCESS). */
int ferry_err_class(int code);

/* Passes code (if not MPI_SUCCESS) through f's handler, or through the handler
 * set on MPI_FILE_NULL when f is NULL, and returns it. */
int ferry_raise(struct ferry_file *f, int code, const char *fn);

/* Collective over f's communicator: every rank leaves with an error of the
 * same class if any rank brought one (`elsewhere` explains it to the others). */
int ferry_agree(struct ferry_file *f, int code, const char *elsewhere);

/* File error handlers created by MPI_File_create_errhandler. */
int ferry_errh_create(MPI_File_errhandler_function *fn, MPI_Errhandler *out);
/* 1 if eh may be attached to a file. */
int ferry_errh_valid(MPI_Errhandler eh);
MPI_Errhandler ferry_errh_null_file(void);
void ferry_errh_set_null_file(MPI_Errhandler eh);

#endif
