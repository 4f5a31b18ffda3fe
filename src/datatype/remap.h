/*
 * A datatype rebuilt with its predefined leaves replaced: how a view's
 * etype and filetype look in a file whose data representation gives the
 * predefined types other sizes. Constructors counting in elements (vector,
 * indexed, subarray, ...) then scale with the new leaf extents, as the
 * standard asks for portable types; byte displacements stay as given.
 */
#ifndef FERRY_DATATYPE_REMAP_H
#define FERRY_DATATYPE_REMAP_H

#include <mpi.h>

/* Returns the replacement for a predefined type (a new committed type the
 * caller of ferry_type_remap will not free, or the type itself), or
 * MPI_DATATYPE_NULL on error. */
typedef MPI_Datatype (*ferry_leaf_fn)(MPI_Datatype prim, void *arg);

/* *out = t rebuilt over leaf(prim) for every predefined leaf, committed, to
 * be freed by the caller; MPI_SUCCESS or an MPI error class. */
int ferry_type_remap(MPI_Datatype t, ferry_leaf_fn leaf, void *arg, MPI_Datatype *out);

#endif
