/*
 * Internals of the datatype layer, shared by its .c files only.
 *
 *   mpicompat.c  envelope/contents/extent queries (MPI-4 `_c` forms or MPI-3)
 *   merge.c      growable segment lists: append with merging, replication
 *   flatten.c    one derived type -> segment list, per combiner
 *   array.c      subarray and darray computed from their parameters
 *   finish.c     segment list -> ferry_flat (prefix sums, flags, contig);
 *                its references (retain, release)
 *   flat.c       cache (attribute + named-type table), refcounts, entry point
 *   iter.c       the byte-stream iterator
 */
#ifndef FERRY_DATATYPE_FLAT_INTERNAL_H
#define FERRY_DATATYPE_FLAT_INTERNAL_H

#include "datatype/flat.h"

/* ---- mpicompat.c ------------------------------------------------------- */

/* Open MPI 4 has the MPI-1 *_INTEGER combiners and MPI_LB/MPI_UB only with its
 * MPI-1 compatibility switch (else the names are compile-time errors); MPICH
 * always has them. */
#if !defined(OPEN_MPI) || (defined(OMPI_ENABLE_MPI1_COMPAT) && OMPI_ENABLE_MPI1_COMPAT)
#define FERRY_HAVE_MPI1_NAMES 1
#endif

/* Arguments of one derived type, as returned by MPI_Type_get_contents[_c].
 * `large` is set when the type was built with a large-count constructor:
 * then counts and byte displacements live in cnts[] (MPI-4 layout). */
typedef struct ferry_dt_contents {
    int comb;
    int large;
    int64_t ni, na, nc, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *cnts;
    MPI_Datatype *types;
} ferry_dt_contents;

int ferry_dt_combiner(MPI_Datatype t, int *comb);
/* Combiners whose handles are predefined (never freed, never get attributes). */
int ferry_dt_is_predefined_combiner(int comb);
int ferry_dt_contents_get(MPI_Datatype t, ferry_dt_contents *c);
void ferry_dt_contents_free(ferry_dt_contents *c);
int ferry_dt_extents(MPI_Datatype t, int64_t *size, int64_t *lb, int64_t *extent,
                     int64_t *true_lb, int64_t *true_extent);

/* ---- merge.c ----------------------------------------------------------- */

typedef struct ferry_seglist {
    ferry_seg *v;
    int64_t n, cap;
} ferry_seglist;

/* Append count blocks of len bytes at off + k*stride, merging with the tail:
 * touching blocks become one, equal blocks at a regular step fuse into one
 * strided segment. O(1). Returns MPI_SUCCESS, MPI_ERR_NO_MEM or MPI_ERR_TYPE
 * (64-bit overflow). */
int ferry_sl_append(ferry_seglist *l, int64_t off, int64_t len, int64_t count,
                    int64_t stride);
/* Append n copies of src[0..nsrc), copy k shifted by disp + k*stride. One
 * segment when src is a single segment that tiles regularly. */
int ferry_sl_replicate(ferry_seglist *l, const ferry_seg *src, int64_t nsrc,
                       int64_t n, int64_t stride, int64_t disp);
void ferry_sl_free(ferry_seglist *l);
/* Replications finished by the steady-state shortcut (for tests). */
extern int64_t ferry_sl_extrapolations;

/* Checked 64-bit arithmetic: return 0 on overflow. */
static inline int ferry_mul64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline int ferry_add64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

/* ---- flatten.c / array.c ------------------------------------------------ */

/* Segments of one instance of derived type t (combiner not NAMED/F90); each
 * child type's flat comes from `child` (a new reference). */
typedef int ferry_flat_child_fn(MPI_Datatype t, ferry_flat **out);
int ferry_flatten_derived(MPI_Datatype t, ferry_flat_child_fn *child, ferry_seglist *out);
int ferry_flatten_subarray(const ferry_dt_contents *c, const ferry_flat *old,
                           ferry_seglist *out);
int ferry_flatten_darray(const ferry_dt_contents *c, const ferry_flat *old,
                         ferry_seglist *out);

/* ---- finish.c (ferry_flat_retain/release: flat.h) ------------------------ */

/* Build a ferry_flat (refs = 1) taking ownership of l's array. The data byte
 * count of l must equal size, else MPI_ERR_INTERN. */
int ferry_flat_finish(ferry_seglist *l, int64_t size, int64_t lb, int64_t extent,
                      int64_t true_lb, int64_t true_extent, ferry_flat **out);
int ferry_flat_compute_flags(const ferry_seg *s, int64_t n);

/* ---- flat.c ---------------------------------------------------------------- */

/* ferry_flat_get with the layer lock already held. `child`: t came from
 * MPI_Type_get_contents (on MPIs that return fresh copies there, caching on
 * it would be wasted work: it is about to be freed). */
int ferry_flat_get_locked(MPI_Datatype t, int child, ferry_flat **out);

#endif
