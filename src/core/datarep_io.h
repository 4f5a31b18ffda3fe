/* Staging of transfers through views in non-native data representations
 * (datarep_io.c), the hook io.c calls around the strategies. */
#ifndef FERRY_CORE_DATAREP_IO_H
#define FERRY_CORE_DATAREP_IO_H

#include "core/datarep.h"
#include "core/call.h"
#include "core/strategies.h"

typedef struct ferry_stage {
    int active;
    ferry_rep rep;
    MPI_Datatype type;    /* the caller's buffer: type, count, base, layout */
    int64_t count;
    char *buf;
    ferry_flat *mem;      /* the caller's reference, handed over by x */
    int64_t native_bytes;
    char *file;           /* the file-side bytes */
    int64_t file_bytes;
    ferry_flat *bytes_flat;
} ferry_stage;

/* For a non-native view: converts a write's data into file-side bytes and
 * points x at them (x->bytes becomes the file-side count); does nothing for
 * native views. Returns MPI_SUCCESS or an error code. */
int ferry_datarep_stage(ferry_file *f, const ferry_call *c, ferry_xfer *x, ferry_stage *st);
/* After the transfer: converts what a read brought in, frees the stage and
 * returns the bytes moved in the caller's (memory-side) terms. A conversion
 * error is stored in *code unless it already holds one. */
int64_t ferry_datarep_unstage(ferry_stage *st, int is_write, int64_t done, int *code);

#endif
