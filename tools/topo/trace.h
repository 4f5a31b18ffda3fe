/* The FERRY_TRACE message log (docs/trace-format.md): one JSON object, a
 * JSON array of objects, or JSON lines with one object per line. The
 * FERRY_STATS_JSON record (docs/hints.md) is read too: a file's totals,
 * which stand for its writes spread evenly over its ranks when the file
 * holds no trace writes. */
#ifndef FERRY_TOPO_TRACE_H
#define FERRY_TOPO_TRACE_H

#include <stddef.h>

typedef struct {
  long src, dst;
  double bytes;
} trace_msg;

typedef struct {
  long rank;
  double bytes;
  double calls;        /* write calls behind the bytes ("calls", else 1) */
} trace_write;

/* One FERRY_STATS_JSON record: what one file's ranks wrote, in total. */
typedef struct {
  long ranks, nodes;   /* nodes 0 when the record has none */
  double bytes;        /* counters.bytes_written */
  double calls;        /* counters.ind_writes + coll_writes */
} trace_record;

typedef struct {
  long ranks;          /* largest "ranks" given, else 1 + largest rank used */
  long declared;       /* largest "ranks" given, 0 if none */
  long maxrank;        /* largest rank a record uses, -1 if none */
  int ranks_per_node;  /* 0 when no object gave one */
  long *node_of;       /* rank -> model node from objects' "rank"/"node", -1 unknown */
  long capnodes;       /* entries of node_of */
  trace_msg *msgs;
  size_t nmsgs, capmsgs;
  trace_write *writes;
  size_t nwrites, capwrites;
  trace_record *records;
  size_t nrecords, caprecords;
  int nobjects;
} trace_t;

/* The records as trace writes: each record's bytes and calls spread evenly
 * over its ranks (a rank's share of calls at least 1 when it wrote); sets
 * ranks and, when every record agrees, ranks_per_node from its nodes.
 * Does nothing when the trace has writes of its own. */
int trace_records_as_writes(trace_t *t, char *err, size_t errlen);

int trace_read(const char *text, size_t len, trace_t *t, char *err, size_t errlen);
int trace_read_file(const char *path, trace_t *t, char *err, size_t errlen);
void trace_free(trace_t *t);

#endif
