/* Test support for the datatype layer: an MPI_Pack oracle independent of
 * ferry's code, and full checks of a ferry_flat against it. */
#ifndef FERRY_TESTS_DT_ORACLE_H
#define FERRY_TESTS_DT_ORACLE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "datatype/flat.h"

extern int dt_failures;
extern int dt_mpi_inconsistent; /* types whose MPI pack contradicts MPI's extent */
extern char dt_context[256]; /* printed with every failure (case name, seed) */

#define DT_CHECK(cond, ...)                                                          \
    do {                                                                             \
        if (!(cond)) {                                                               \
            dt_failures++;                                                           \
            fprintf(stderr, "FAIL %s:%d [%s] %s: ", __FILE__, __LINE__, dt_context,  \
                    #cond);                                                          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
        }                                                                            \
    } while (0)

/* Source offset (relative to the buffer origin) of every data byte MPI_Pack
 * produces for `count` instances of t. Returns the number of bytes, or -1
 * when the type is too large to test this way. *out is malloc'ed. */
int64_t dt_oracle(MPI_Datatype t, int64_t count, int64_t **out);

/* Everything about f that the oracle can decide, for `count` instances:
 * stream bytes (unbounded cuts, random maxlen cuts, random skips), run
 * maximality, offset_of, unbounded tiling, nblocks, flags, contig, bounds. */
void dt_check_type(MPI_Datatype t, const char *name, unsigned seed);

/* Small deterministic PRNG for tests. */
static inline uint64_t dt_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline int64_t dt_range(uint64_t *s, int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(dt_rand(s) % (uint64_t)(hi - lo + 1));
}

int dt_finish(const char *test);

#endif
