/*
 * ferry: a drop-in MPI-IO layer. Programs need no header to use it: every
 * MPI_File_* call goes through ferry once it is preloaded or linked before
 * the MPI library. This header declares ferry's own extensions.
 */
#ifndef FERRY_H
#define FERRY_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_VERSION_MAJOR 0
#define FERRY_VERSION_MINOR 1

/* Version string, e.g. "ferry 0.1.0 (openmpi)". */
const char *ferry_version(void);

/* ======================================================================
 * Decoupled I/O (docs/decoupled.md)
 *
 * A job launched with `ferry-run -np N -dp M` has N compute processes and M
 * data processes. A decoupled read ships an operation to the data
 * processes, which read the caller's part of the file next to the data,
 * apply the operation and send back only its result; a decoupled write
 * hands the data over and returns at once. With no data processes (-dp 0)
 * the same calls run locally, as traditional I/O.
 * ====================================================================== */

/* Groups. Call ferry_decouple_init() right after MPI_Init (collective over
 * MPI_COMM_WORLD). On a data process it serves requests until every compute
 * process has called MPI_Finalize (or ferry_decouple_finalize), then
 * returns; the program then skips its work and finalizes. MPI_COMM_WORLD
 * still holds both groups: compute code must use ferry_comm_local(). */
int ferry_decouple_init(void);
/* Compute side: ends this process's use of the data processes (waits for
 * its replies and hand-offs). MPI_Finalize does it when the program does
 * not. No-op on data processes. */
int ferry_decouple_finalize(void);
/* The group communicator: compute processes among themselves, or data
 * processes among themselves. MPI_COMM_NULL before ferry_decouple_init. */
MPI_Comm ferry_comm_local(void);
/* Inter-communicator between the two groups (MPI_COMM_NULL without data
 * processes). ferry's own traffic never travels on it. */
MPI_Comm ferry_comm_inter(void);
/* 1 on data processes, 0 on compute processes. */
int ferry_is_data_process(void);

/* Operations are plain integers, named by index: a function pointer is not
 * valid in another process, so every process registers user operations in
 * the same order and a request carries the index. */
typedef int ferry_op;
enum {
    FERRY_OP_NULL = 0, /* reads: nothing; writes: data written as given */
    FERRY_OP_SUM,      /* int32/int64 -> int64_t (wraps modulo 2^64); float/double -> double */
    FERRY_OP_MIN,      /* the element type; buffer untouched when nothing was read */
    FERRY_OP_MAX,      /* the element type; buffer untouched when nothing was read */
    FERRY_OP_COUNT,    /* int64_t: elements read */
    FERRY_OP_MEAN,     /* double (NaN when nothing was read) */
    FERRY_OP_VARIANCE  /* double: population variance, sum((x-mean)^2)/n */
};

/* Parameterised built-in operations (free with ferry_op_free).
 * histogram: int64_t[bins]; element x lands in bin ferry_hist_bin(x, ...)
 *   when that is in [0, bins) (NaN never lands).
 * lookup: the elements with lo <= x <= hi; threshold: those with x > t.
 *   Integers are compared exactly (bounds rounded inward). Result: a
 *   ferry_matches header, then up to max_matches ferry_match records, the
 *   first ones in file order; total counts every match.
 * topk: the k largest elements (NaN never), largest first, equal values in
 *   file order; same result layout, total = elements read. */
int ferry_op_histogram(int bins, double lo, double hi, ferry_op *op);
int ferry_op_lookup(double lo, double hi, MPI_Count max_matches, ferry_op *op);
int ferry_op_threshold(double t, MPI_Count max_matches, ferry_op *op);
int ferry_op_topk(int k, ferry_op *op);
int ferry_op_free(ferry_op *op);

/* The bin of a histogram: computed in double exactly like this on every
 * side, so counts are exact; a bin outside [0, bins) is not counted. */
static inline int64_t ferry_hist_bin(double x, int bins, double lo, double hi)
{
    double t = (x - lo) * ((double)bins / (hi - lo));
    return t >= 0 && t < (double)bins ? (int64_t)t : -1;
}

typedef union ferry_value {
    int32_t i32;
    int64_t i64;
    float f;
    double d;
} ferry_value;
typedef struct ferry_match {
    MPI_Offset offset;  /* file byte offset of the element's first byte */
    ferry_value value;
} ferry_match;
typedef struct ferry_matches {
    int64_t total;      /* lookup: matches found; topk: elements read */
    int64_t n;          /* records that follow */
} ferry_matches;
static inline ferry_match *ferry_matches_at(ferry_matches *m) { return (ferry_match *)(void *)(m + 1); }

/* User operations. fn sees n elements of `type` packed back to back (type
 * is MPI_INT32_T, MPI_INT64_T, MPI_FLOAT or MPI_DOUBLE for those element
 * types, else a contiguous type of the caller's datatype size). On a read
 * fn folds them into `state` (state_size bytes, zeroed at the start); the
 * result is the final state. On a write fn may rewrite the elements in place
 * before they are stored (state is scratch). combine folds one partial state
 * into another, so the data processes can split a read and return one
 * result; with combine NULL a read is never split. fn returns MPI_SUCCESS or
 * an MPI error class, which reaches the caller. Register on every process,
 * in the same order, before ferry_decouple_init (before MPI_Init when
 * serving happens inside MPI_Init). */
typedef int ferry_op_fn(void *state, void *elems, MPI_Count n, MPI_Datatype type);
typedef void ferry_op_combine_fn(void *into, const void *from);
int ferry_op_register(const char *name, ferry_op_fn *fn, ferry_op_combine_fn *combine,
                      int state_size, ferry_op *op);
/* Bytes a read with op over elements of datatype writes into its buffer. */
int ferry_op_result_size(ferry_op op, MPI_Datatype datatype, MPI_Count *bytes);

/* Decoupled files. Open, set_view, sync and close are collective over the
 * open's communicator (a compute communicator); the rest is independent.
 * Every call returns an MPI error code; none aborts. */
typedef struct ferry_dfile_s *ferry_dfile;
#define FERRY_DFILE_NULL ((ferry_dfile)0)

int ferry_decouple_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, ferry_dfile *dfh);
/* Waits for every write of this process to reach the file; reports the
 * first write error. */
int ferry_decouple_close(ferry_dfile *dfh);
int ferry_decouple_set_view(ferry_dfile dfh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                            const char *datarep, MPI_Info info);
int ferry_decouple_seek(ferry_dfile dfh, MPI_Offset offset, int whence);
int ferry_decouple_get_position(ferry_dfile dfh, MPI_Offset *offset);
/* Reads count elements of datatype at the individual file pointer, under
 * the view, and stores op's result (not the data) in result. The status
 * counts the bytes read. */
int ferry_decouple_read(ferry_dfile dfh, void *result, MPI_Count count, MPI_Datatype datatype, ferry_op op,
                        MPI_Status *status);
/* Hands count elements of datatype over for writing at the individual file
 * pointer (op: FERRY_OP_NULL or a user transform) and returns at once; buf
 * may be reused. Write errors come back from sync or close. */
int ferry_decouple_write(ferry_dfile dfh, const void *buf, MPI_Count count, MPI_Datatype datatype, ferry_op op,
                         MPI_Status *status);
/* Nonblocking forms: complete with MPI_Wait/MPI_Test. result must stay valid
 * until then. */
int ferry_decouple_iread(ferry_dfile dfh, void *result, MPI_Count count, MPI_Datatype datatype, ferry_op op,
                         MPI_Request *request);
int ferry_decouple_iwrite(ferry_dfile dfh, const void *buf, MPI_Count count, MPI_Datatype datatype, ferry_op op,
                          MPI_Request *request);
/* Collective: every write handed over so far is in the file (and synced). */
int ferry_decouple_sync(ferry_dfile dfh);

/* Bytes this process received from and sent to data processes, every
 * message counted (results, protocol, heartbeats, written data). */
void ferry_decouple_traffic(int64_t *received, int64_t *sent);

#ifdef __cplusplus
}
#endif

#endif
