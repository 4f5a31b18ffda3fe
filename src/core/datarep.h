/*
 * Data representations: "native" (and "internal", the same here) move the
 * memory bytes as they are; "external32" and representations registered with
 * MPI_Register_datarep give every predefined type its own size and bytes in
 * the file. A view in such a representation is kept entirely in file-side
 * terms (etype size, filetype layout), and each transfer is staged through
 * a buffer of file-side bytes, converted on the way in and out.
 */
#ifndef FERRY_CORE_DATAREP_H
#define FERRY_CORE_DATAREP_H

#include <mpi.h>
#include <stdint.h>

typedef struct ferry_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    void *read_fn;   /* MPI_Datarep_conversion_function(_c); NULL: no conversion */
    void *write_fn;
    MPI_Datarep_extent_function *extent_fn;
    void *state;
    int large;       /* registered through MPI_Register_datarep_c */
} ferry_datarep;

int ferry_datarep_register(const char *name, void *read_fn, void *write_fn,
                           MPI_Datarep_extent_function *extent_fn, void *state, int large);
const ferry_datarep *ferry_datarep_find(const char *name);

/* A representation as the data path uses it. */
typedef enum { FERRY_REP_NATIVE = 0, FERRY_REP_EXTERNAL32, FERRY_REP_USER } ferry_rep_kind;
typedef struct ferry_rep {
    ferry_rep_kind kind;
    const ferry_datarep *user;
} ferry_rep;

/* MPI_SUCCESS, or MPI_ERR_UNSUPPORTED_DATAREP for a name nobody defined. */
int ferry_rep_lookup(const char *name, ferry_rep *out);
/* File-side bytes of `count` instances of t. */
int ferry_rep_size(const ferry_rep *r, MPI_Datatype t, int64_t count, int64_t *bytes);
/* t as laid out in the file: *out is t itself (*made = 0) when every
 * predefined type keeps its size, else a new committed type the caller frees. */
int ferry_rep_file_type(const ferry_rep *r, MPI_Datatype t, MPI_Datatype *out, int *made);

/* ---- external32 (external32.c) ------------------------------------------- */

/* Size of a predefined type in external32 (MPI-3.1 Table 13.2); pair types
 * are the sum of their members. */
int64_t ferry_ext32_size(MPI_Datatype prim);
/* count elements between native memory and big-endian external32 bytes. */
void ferry_ext32_encode(MPI_Datatype prim, int64_t count, const char *native, char *file);
void ferry_ext32_decode(MPI_Datatype prim, int64_t count, const char *file, char *native);

#endif
