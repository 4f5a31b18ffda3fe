/* Synthetic files, nodes and patterns for the tests of auto's rules and of
 * learning: both feed the strategy layer the same shapes. */
#ifndef FERRY_TESTS_UNIT_STRATEGY_FIXTURE_H
#define FERRY_TESTS_UNIT_STRATEGY_FIXTURE_H

#include "core/file.h"
#include "core/hints.h"
#include "core/nodes.h"
#include "strategy/pattern.h"

#include <stdio.h>
#include <stdlib.h>

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)

/* a file of `size` ranks on a file system of class cls (learning keys its
 * store by the file system's name and mount, so both are set) */
static inline ferry_file *file_of(ferry_fs_class cls, int size)
{
    ferry_file *f = calloc(1, sizeof *f);
    f->size = size;
    f->fs.fs_class = cls;
    snprintf(f->fs.name, sizeof f->fs.name, "%s", cls == FERRY_FS_CLASS_LOCAL ? "tmpfs" : "fuse.glusterfs");
    snprintf(f->fs.mount, sizeof f->fs.mount, "/mnt/x");
    ferry_hints_defaults(&f->hints);
    return f;
}

/* size ranks, nnodes nodes of size/nnodes consecutive ranks */
static inline ferry_nodes nodes_of(int size, int nnodes)
{
    ferry_nodes n = {0};
    n.nnodes = nnodes;
    n.node_of = malloc((size_t)size * sizeof *n.node_of);
    for (int r = 0; r < size; r++)
        n.node_of[r] = r / (size / nnodes);
    n.node_size = size / nnodes;
    return n;
}

/* `ranks` ranks each with `runs` pieces of `piece` bytes over [0, extent);
 * span: each rank's own extent */
static inline ferry_pattern pat(int ranks, int64_t runs, int64_t piece, int64_t extent, int64_t span)
{
    ferry_pattern p = {0};
    p.lo = 0;
    p.hi = extent;
    p.active = ranks;
    p.runs = runs * ranks;
    p.bytes = runs * piece * ranks;
    p.max_rank_bytes = runs * piece;
    p.span_sum = span * ranks;
    return p;
}

#endif
