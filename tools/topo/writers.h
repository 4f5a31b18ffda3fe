/* What each rank writes: --bytes-per-rank (and advise --pattern) take a
 * size, a spread, or a real run's record:
 *   SIZE               every rank writes SIZE
 *   SIZE:F%xK[@P%]     the ranks of F % of the nodes, contiguous in rank
 *                      order from P % (default 0), write K x SIZE; the
 *                      HACC-like uneven case is 1MiB:25%x4
 *   trace:FILE         per-rank bytes and write calls of a FERRY_TRACE log
 *   record:FILE        a FERRY_STATS_JSON file's totals, spread evenly
 * A run's ranks are laid over the machine's in proportion (machine rank i
 * writes what run rank floor(i x R / N) wrote: a spatial decomposition at
 * scale keeps its shape); the machine needs at least as many ranks. */
#ifndef FERRY_TOPO_WRITERS_H
#define FERRY_TOPO_WRITERS_H

#include <stddef.h>

enum { WR_UNIFORM, WR_HEAVY, WR_TRACE, WR_RECORD };

typedef struct {
  int kind;
  double size;                 /* the base bytes per rank (synthetic kinds) */
  double frac, factor, pos;    /* WR_HEAVY: fraction of nodes, factor, start */
  const char *path;            /* WR_TRACE, WR_RECORD: points into the text */
  char text[160];              /* as given */
} writers_spec;

typedef struct {
  long nranks;
  int ppn;
  double *bytes;   /* per rank */
  double *calls;   /* per rank: write calls (requests), 0 where bytes are 0 */
  double total;
  long run_ranks;  /* ranks of the run the spread comes from (0: synthetic) */
} writers_t;

int writers_parse(const char *text, writers_spec *w, char *err, size_t errlen);
/* Every rank of nodes x ppn; a synthetic rank writes in calls of at most
 * xfer bytes (<= 0: the base size, one call each for the light ranks). */
int writers_build(const writers_spec *w, int nodes, int ppn, double xfer, writers_t *out, char *err,
                  size_t errlen);
void writers_free(writers_t *w);
/* Node k's sums (ranks k x ppn ...). */
double writers_node_bytes(const writers_t *w, int k);
double writers_node_calls(const writers_t *w, int k);

#endif
