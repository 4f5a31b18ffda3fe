/*
 * Operations applied next to the data. A request names its operation with
 * a small wire record (kind, user index, parameters); each side resolves it
 * against its own tables, so nothing process-specific ever travels. Every
 * operation folds elements into a fixed-size state, and two states of
 * disjoint parts of the stream combine into the state of both: that is what
 * lets the data processes split a read and still return one result.
 *
 * This module knows nothing of MPI communication or files: positions are
 * stream bytes, and finish() turns them into file offsets through a callback.
 */
#ifndef FERRY_DECOUPLE_OPS_H
#define FERRY_DECOUPLE_OPS_H

#include <mpi.h>
#include <stdint.h>

#include "ferry.h"

typedef enum { DC_ELEM_RAW = 0, DC_ELEM_I32, DC_ELEM_I64, DC_ELEM_F32, DC_ELEM_F64 } dc_elem;

enum {
    DC_K_NULL = 0, DC_K_SUM, DC_K_MIN, DC_K_MAX, DC_K_COUNT, DC_K_MEAN, DC_K_VARIANCE,
    DC_K_HIST, DC_K_LOOKUP, DC_K_TOPK, DC_K_USER, DC_K_END
};

/* An operation as it travels. */
typedef struct dc_opwire {
    int32_t kind;
    int32_t user;       /* DC_K_USER: registration index */
    uint32_t namehash;  /* DC_K_USER: the name, so different registrations are caught */
    int32_t ival;       /* histogram bins, top-k k, lookup: 1 = threshold */
    int64_t cap;        /* lookup: records kept */
    double a, b;        /* histogram lo, hi; lookup lo, hi; threshold in a */
} dc_opwire;

typedef struct dc_user {
    char name[64];
    uint32_t hash;
    ferry_op_fn *fn;
    ferry_op_combine_fn *combine;
    int state_size;
} dc_user;

/* An operation resolved on the side that runs it. */
typedef struct dc_op {
    dc_opwire w;
    dc_elem elem;
    int64_t esize;
    int64_t state_size;
    const dc_user *user;
    MPI_Datatype utype;   /* what a user function is told the elements are */
    double scale;         /* histogram: bins / (hi - lo) */
    int64_t imin, imax;   /* lookup on integers: inclusive bounds */
    int none;             /* lookup: no element can match */
} dc_op;

/* Element type of a datatype: one of the four numeric ones, or RAW (any
 * other type, as opaque instances of its size). */
int dc_elem_of(MPI_Datatype t, dc_elem *elem, int64_t *esize);

/* Resolves w for elements of (elem, esize). MPI_SUCCESS, or MPI_ERR_OP /
 * MPI_ERR_TYPE / MPI_ERR_ARG with *why set to a static message. */
int dc_op_resolve(const dc_opwire *w, dc_elem elem, int64_t esize, dc_op *op, const char **why);
void dc_op_init(const dc_op *op, void *state);
/* Folds n elements at stream position pos0 (bytes) into state; data may be
 * scribbled on. Returns MPI_SUCCESS or an error class. */
int dc_op_update(const dc_op *op, void *state, void *data, int64_t n, int64_t pos0);
void dc_op_combine(const dc_op *op, void *into, const void *from);
int dc_op_splittable(const dc_op *op);
/* Bytes of the result in the caller's buffer, at most. */
int64_t dc_op_result_size(const dc_op *op);
/* Maps a stream position to a file byte offset. */
typedef int64_t (*dc_locate_fn)(void *ctx, int64_t pos);
/* Writes the result of state into out; returns the bytes written (0 when
 * there is nothing to report, e.g. the minimum of no elements). */
int64_t dc_op_finish(const dc_op *op, const void *state, dc_locate_fn locate, void *ctx, void *out);
/* Writes: lets a user operation rewrite n elements in place. */
int dc_op_transform(const dc_op *op, void *data, int64_t n);

/* Compute side: the wire form of a handle (MPI_ERR_OP when unknown). */
int dc_op_wire(ferry_op op, dc_opwire *w);
/* The registration table (ops_user.c). */
const dc_user *dc_user_get(int index);
MPI_Datatype dc_raw_type(int64_t esize);
/* Frees the types dc_raw_type made (at finalize). */
void dc_ops_release(void);

#endif
