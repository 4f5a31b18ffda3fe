/*
 * Helpers for the decoupled-I/O tests: checks that name what failed, the
 * data every test writes (a pure function of the element's index), and the
 * file offsets of a view, computed here independently of ferry.
 */
#ifndef FERRY_TEST_DTEST_H
#define FERRY_TEST_DTEST_H

#include <ferry.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int d_rank, d_size, d_fail;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            d_fail++;                                                           \
            fprintf(stderr, "FAIL rank %d %s:%d: ", d_rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
        }                                                                       \
    } while (0)

static inline const char *d_class_name(int code)
{
    static char buf[64];
    int c = code;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &c);
#define N(x) if (c == x) return #x;
    N(MPI_SUCCESS) N(MPI_ERR_FILE) N(MPI_ERR_NO_SUCH_FILE) N(MPI_ERR_IO) N(MPI_ERR_OP) N(MPI_ERR_TYPE)
    N(MPI_ERR_ARG) N(MPI_ERR_OTHER) N(MPI_ERR_ACCESS) N(MPI_ERR_READ_ONLY) N(MPI_ERR_NO_SPACE) N(MPI_ERR_COUNT)
    N(MPI_ERR_AMODE) N(MPI_ERR_COMM) N(MPI_ERR_BUFFER) N(MPI_ERR_INTERN)
#undef N
    snprintf(buf, sizeof buf, "class %d", c);
    return buf;
}

static inline int d_class(int code)
{
    int c = code;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &c);
    return c;
}

/* After MPI_Init (and any ferry_op_register): starts decoupled I/O. A data
 * process serves inside it and finalizes, and 0 comes back; a compute
 * process gets 1, its communicator in *comm, d_rank and d_size set. */
static inline int d_start(MPI_Comm *comm)
{
    if (ferry_decouple_init() != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (ferry_is_data_process()) {
        MPI_Finalize();
        return 0;
    }
    *comm = ferry_comm_local();
    MPI_Comm_rank(*comm, &d_rank);
    MPI_Comm_size(*comm, &d_size);
    return 1;
}

static inline void d_path(char *out, size_t cap, const char *name)
{
    const char *dir = getenv("FERRY_TEST_TMP");
    snprintf(out, cap, "%s/%s", dir ? dir : "/tmp", name);
}

static inline uint64_t d_hash(uint64_t k)
{
    k += 0x9e3779b97f4a7c15ull;
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebull;
    return k ^ (k >> 31);
}

/* Element k of the test files; every 997th is the maximum, so top-k sees ties. */
static inline int32_t d_i32(int64_t k) { return k % 997 == 5 ? 1000000 : (int32_t)(d_hash(k) % 2000001) - 1000000; }
static inline int64_t d_i64(int64_t k) { return k % 997 == 5 ? INT64_C(1) << 55 : (int64_t)(d_hash(k) >> 8) - (INT64_C(1) << 55); }
static inline float d_f32(int64_t k) { return k % 997 == 5 ? 1000.0f : (float)((int64_t)(d_hash(k) % 2000001) - 1000000) / 1000.0f; }
static inline double d_f64(int64_t k) { return k % 997 == 5 ? 1000.0 : (double)((int64_t)(d_hash(k) % 2000000001) - 1000000000) / 1e6; }

#endif
