/*
 * User memory through a datatype as a stream of contiguous runs, and packing
 * to or unpacking from a contiguous buffer along it. The strategies move data
 * with it; the core's data representations stage a buffer with it.
 */
#ifndef FERRY_DATATYPE_MEMWALK_H
#define FERRY_DATATYPE_MEMWALK_H

#include <stdint.h>

#include "datatype/flat.h"

/* Walks the memory side as contiguous runs (absolute addresses). */
typedef struct ferry_mem_walk {
    char *buf;
    ferry_iter it;
    int64_t left;
    int contig;
    int64_t next; /* offset from buf, fast path */
} ferry_mem_walk;

void ferry_mem_walk_init(ferry_mem_walk *w, char *buf, ferry_flat *mem, int64_t count, int64_t skip);
int ferry_mem_walk_next(ferry_mem_walk *w, int64_t maxlen, char **addr, int64_t *len);

/* Copies between a contiguous buffer and the next n bytes of the memory
 * walk; returns the bytes copied, fewer than n where the walk ends first. */
int64_t ferry_mem_pack(ferry_mem_walk *mw, char *dst, int64_t n);
int64_t ferry_mem_unpack(ferry_mem_walk *mw, const char *src, int64_t n);

/* Packs `bytes` data bytes of count instances of type at buf, from data
 * byte `skip` on (typemap order), into out. MPI_SUCCESS, or the error of
 * flattening type. */
int ferry_mem_pack_type(const void *buf, int64_t count, MPI_Datatype type, int64_t skip, int64_t bytes,
                        char *out);

#endif
