/* The FERRY_TRACE message log (docs/trace-format.md): one JSON object, a
 * JSON array of objects, or JSON lines with one object per line. */
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
} trace_write;

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
  int nobjects;
} trace_t;

int trace_read(const char *text, size_t len, trace_t *t, char *err, size_t errlen);
int trace_read_file(const char *path, trace_t *t, char *err, size_t errlen);
void trace_free(trace_t *t);

#endif
