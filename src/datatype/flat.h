/*
 * Flattened datatypes: every MPI datatype, in memory or in a file view, is
 * reduced once to a compact list of strided segments and cached on the type.
 * Everything above this layer moves bytes by iterating these lists, so no
 * strategy ever needs to know which MPI combiner built a type.
 */
#ifndef FERRY_DATATYPE_FLAT_H
#define FERRY_DATATYPE_FLAT_H

#include <mpi.h>
#include <stdint.h>

/* count blocks of len bytes, block k at off + k*stride (relative to the
 * buffer or view origin). A plain block has count 1, stride 0. */
typedef struct ferry_seg {
    int64_t off;
    int64_t len;
    int64_t count;
    int64_t stride;
} ferry_seg;

/* Properties that matter for file views (MPI-3.1 §13.3). */
enum {
    FERRY_FLAT_NEGATIVE = 1 << 0, /* a block starts below offset 0 */
    FERRY_FLAT_DECREASE = 1 << 1, /* block offsets are not monotonically nondecreasing */
    FERRY_FLAT_OVERLAP  = 1 << 2, /* two blocks overlap */
};

typedef struct ferry_flat {
    ferry_seg *segs;      /* in typemap order, adjacent blocks merged */
    int64_t nsegs;
    int64_t *prefix;      /* prefix[i] = data bytes before segs[i]; nsegs+1 entries */
    int64_t size;         /* data bytes in one instance (MPI_Type_size) */
    int64_t lb, extent;   /* MPI lb and extent, resized honoured */
    int64_t true_lb, true_extent;
    int64_t nblocks;      /* blocks after expanding every segment */
    int flags;            /* FERRY_FLAT_* */
    int contig;           /* one block starting at lb with len == extent == size */
    int refs;             /* owned by the cache and by every holder */
} ferry_flat;

/* Returns a new reference to the flattened form of t (cached on the type
 * until MPI_Type_free). Returns MPI_SUCCESS or an MPI error class
 * (MPI_ERR_TYPE for MPI_DATATYPE_NULL or an unsupported combiner,
 * MPI_ERR_NO_MEM). */
int ferry_flat_get(MPI_Datatype t, ferry_flat **out);
/* A flat for `size` contiguous bytes, not tied to any MPI type. */
ferry_flat *ferry_flat_bytes(int64_t size);
void ferry_flat_retain(ferry_flat *f);
void ferry_flat_release(ferry_flat *f);

/* Walks the blocks of `count` instances (instance i at base + i*extent) as a
 * stream of data bytes, starting `skip` data bytes in. count may be
 * FERRY_ITER_UNBOUNDED to tile a file view forever. Runs that touch are merged,
 * and each run is cut at `maxlen` bytes. Seeking is O(log nsegs). */
#define FERRY_ITER_UNBOUNDED INT64_MAX
typedef struct ferry_iter {
    const ferry_flat *f;
    int64_t base;
    int64_t count;
    int64_t inst;     /* current instance */
    int64_t seg;      /* current segment */
    int64_t blk;      /* current block within the segment */
    int64_t within;   /* bytes already consumed of the current block */
    int64_t remain;   /* data bytes left in the stream (INT64_MAX if unbounded) */
} ferry_iter;

void ferry_iter_init(ferry_iter *it, const ferry_flat *f, int64_t base,
                     int64_t count, int64_t skip);
/* Next run of at most maxlen bytes: returns 1 and sets *off and *len, or 0 at the
 * end of the stream. */
int ferry_iter_next(ferry_iter *it, int64_t maxlen, int64_t *off, int64_t *len);
/* Byte offset (relative to base) of the data byte `pos` of the stream;
 * pos must lie inside the stream. */
int64_t ferry_flat_offset_of(const ferry_flat *f, int64_t base, int64_t pos);

/* ---- Additions beyond the original contract ---------------------------- */

/* Notes on the representation (all guaranteed by ferry_flat_get):
 *  - every segment has len > 0 and count >= 1; count == 1 implies stride 0;
 *    count > 1 implies stride != len (a run of touching blocks is one block).
 *    stride may be zero or negative (repeated or descending blocks).
 *  - within one instance no two consecutive blocks (typemap order) touch, so
 *    nblocks is the number of maximal contiguous pieces of one instance.
 *  - offsets are relative to the type origin, exactly MPI typemap displacements.
 *  - FERRY_FLAT_NEGATIVE and FERRY_FLAT_DECREASE are exact, and so is
 *    FERRY_FLAT_OVERLAP when DECREASE is clear (every valid filetype). With
 *    DECREASE, OVERLAP is exact within a work budget linear in the segments
 *    (interleaved strided segments) and conservative (set) beyond it.
 *  - contig is 0 for zero-size types (there is no block).
 * Offsets beyond what int64 can hold make ferry_flat_get return MPI_ERR_TYPE;
 * more than FERRY_FLAT_MAX_SEGS segments return MPI_ERR_NO_MEM. */
#define FERRY_FLAT_MAX_SEGS ((int64_t)1 << 27)

/* ferry_iter_next: maxlen <= 0 means "no cap". Offsets returned by the
 * iterator and by ferry_flat_offset_of include base. */

/* Data bytes left in the iterator's stream (INT64_MAX when unbounded). */
static inline int64_t ferry_iter_remaining(const ferry_iter *it) { return it->remain; }

/* Debug dump of a flattened type to stderr. */
void ferry_flat_dump(const ferry_flat *f, const char *label);

#endif
