/*
 * ferry's duplicates of program communicators, kept between opens. Every
 * open file runs its collectives on a communicator of its own, so they
 * never meet the program's traffic; duplicating one per open costs a
 * collective (a context id) each time, so closed files give theirs back and
 * the next open on the same program communicator takes it again.
 */
#ifndef FERRY_CORE_DUPS_H
#define FERRY_CORE_DUPS_H

#include <mpi.h>

typedef struct ferry_dups ferry_dups;

/* The cache of `comm` (an attribute on it, made on first use; local), or
 * NULL when memory or the attribute is not to be had. */
ferry_dups *ferry_dups_of(MPI_Comm comm);

/* The entry the next open on the communicator takes. Opens and closes on a
 * communicator are collective, so every rank picks the same one; the open
 * still agrees on it before use. -1 with no cache or no memory. */
int ferry_dups_pick(ferry_dups *d);

/* The agreed entry's communicator, duplicated now if the entry has none
 * (collective over comm, and agreed: all ranks fail alike). With idx < 0
 * (the ranks picked differently) or no cache, a duplicate of the file's own
 * (collective). */
int ferry_dups_take(ferry_dups *d, MPI_Comm comm, int idx, MPI_Comm *out);

/* At close (collective): the entry is free again; a few stay duplicated for
 * the next opens, the rest are freed. idx < 0: *dup is freed. */
void ferry_dups_give(ferry_dups *d, int idx, MPI_Comm *dup);

/* A pointer the shared file pointer keeps per program communicator
 * (shared_fp.c, at MPI_THREAD_MULTIPLE): NULL until it sets it, and its
 * owner's to free. */
void **ferry_dups_shfp_slot(ferry_dups *d);

#endif
