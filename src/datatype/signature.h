/*
 * Type signatures: the sequence of predefined types a datatype's data
 * stream is made of, which is what a data representation converts. Kept
 * compact: runs of one predefined type, and repeats of a sub-signature, so a
 * vector of a million structs costs what one struct costs. Built on use: a
 * single-child combiner costs one envelope query whatever its counts (its
 * element count is a size ratio), so only struct members add work, and
 * nothing needs caching.
 */
#ifndef FERRY_DATATYPE_SIGNATURE_H
#define FERRY_DATATYPE_SIGNATURE_H

#include <mpi.h>
#include <stdint.h>

typedef struct ferry_sig ferry_sig;

/* One entry: `count` of the predefined type `prim`, or (prim is
 * MPI_DATATYPE_NULL) `count` repeats of `sub`. */
typedef struct ferry_sig_item {
    MPI_Datatype prim;
    int64_t count;
    ferry_sig *sub;
} ferry_sig_item;

struct ferry_sig {
    ferry_sig_item *items;
    int64_t n;
    int refs;
};

/* A new reference to t's signature. Pair types (MPI_DOUBLE_INT, ...) come
 * out as their members. MPI_SUCCESS, MPI_ERR_TYPE or MPI_ERR_NO_MEM. */
int ferry_sig_get(MPI_Datatype t, ferry_sig **out);
void ferry_sig_release(ferry_sig *s);

/* Calls fn on every run of `reps` instances of s, in stream order, until fn
 * returns nonzero; returns that value (0 when the walk completed). */
typedef int (*ferry_sig_fn)(MPI_Datatype prim, int64_t count, void *arg);
int ferry_sig_walk(const ferry_sig *s, int64_t reps, ferry_sig_fn fn, void *arg);

/* The predefined members of a named pair type (MPI_FLOAT_INT ...): returns 2
 * and fills a, b; 0 for any other type. */
int ferry_sig_pair(MPI_Datatype t, MPI_Datatype *a, MPI_Datatype *b);

#endif
