/*
 * Auto: which collective strategy a call should take, from its global
 * pattern. Aggregation pays for itself only when it turns many small pieces
 * into fewer large writes; pieces that are already large, or too far apart to
 * merge, go straight to the file from each rank.
 */
#include "strategy/auto.h"

#include <stdio.h>

/* the page cache's unit on the machines ferry runs on (x86-64, aarch64's
 * default): a constant, so that every rank's rule gives one answer */
enum { PAGE = 4096 };
/* below this, interleaved pieces on one host still merge (ferry_auto_choose) */
enum { ONE_HOST_BIG = 1 << 20 };

static void human(char *out, size_t cap, int64_t b)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(out, cap, "%lld MiB", (long long)(b >> 20));
    else if (b >= 1024)
        snprintf(out, cap, "%lld KiB", (long long)(b >> 10));
    else
        snprintf(out, cap, "%lld B", (long long)b);
}

/* Every request to a network or parallel file system is a round trip
 * (driver/fsinfo.h); the page-cache rules do not hold there. */
static int is_remote(const ferry_file *f)
{
    return f->fs.fs_class == FERRY_FS_CLASS_NETWORK || f->fs.fs_class == FERRY_FS_CLASS_PARALLEL;
}

/* A piece this large is already a good system call. On the GlusterFS
 * testbed 206 KiB pieces (HACC-IO) went faster independent than through
 * two-phase (181 vs 119 MiB/s Open MPI, 110 vs 82 MPICH), where one FUSE
 * request carries 128 KiB. A stripe unit the file system or the hints give
 * raises the bar to a whole stripe. */
static int64_t big_piece(const ferry_file *f)
{
    int64_t big = is_remote(f) ? (int64_t)128 << 10 : (int64_t)256 << 10;
    int64_t su = f->fs.stripe_src == FERRY_STRIPE_FS || f->fs.stripe_src == FERRY_STRIPE_HINT ? f->fs.stripe_unit : 0;
    if (f->hints.striping_unit > su)
        su = f->hints.striping_unit;
    return su > big ? su : big;
}

int ferry_auto_local_collapses(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, char *reason,
                               size_t cap)
{
    int nn = nodes ? nodes->nnodes : 1;
    int64_t extent = p->hi > p->lo ? p->hi - p->lo : 1;
    int64_t avg = p->runs ? p->bytes / p->runs : 0;
    if (!is_remote(f) || nn < 2 || p->span_sum <= extent || avg >= big_piece(f))
        return 0;
    char a[32];
    human(a, sizeof a, avg);
    snprintf(reason, cap, "twophase: local would write %s pieces interleaved over %d nodes one round trip each", a,
             nn);
    return 1;
}

int ferry_auto_rules_out(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, int s)
{
    char why[FERRY_REASON_LEN];
    int64_t extent = p->hi > p->lo ? p->hi - p->lo : 1;
    int64_t avg = p->runs ? p->bytes / p->runs : 0;
    /* small interleaved pieces, each its own round trip to a network file
     * system, measured 0.02-0.3x of aggregation (docs/collective.md) */
    if (s == FERRY_COLL_INDEPENDENT)
        return is_remote(f) && p->span_sum > extent && avg < 64 * 1024;
    if (s == FERRY_COLL_LOCAL)
        return ferry_auto_local_collapses(f, p, nodes, why, sizeof why);
    return 0;
}

ferry_coll_strategy ferry_auto_choose(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, int is_write,
                                      char *reason, size_t cap)
{
    int nn = nodes ? nodes->nnodes : 1;
    int ppn = (f->size + nn - 1) / nn;
    int64_t avg = p->runs ? p->bytes / p->runs : 0;
    char a[32];
    human(a, sizeof a, avg);
    const char *op = is_write ? "writes" : "reads";
    int remote = is_remote(f);
    int64_t big = big_piece(f);
    int64_t extent = p->hi > p->lo ? p->hi - p->lo : 1;
    int interleaved = p->span_sum > extent;
    double density = (double)p->bytes / (double)extent;

    if (p->active <= 1) {
        snprintf(reason, cap, "independent: only %lld rank has data", (long long)p->active);
        return FERRY_COLL_INDEPENDENT;
    }
    /* Where every rank shares one host, the exchange is a copy in memory
     * and the file system gets fewer, larger requests: on the sharded
     * GlusterFS testbed HACC-IO's interleaved 206 KiB pieces went faster
     * through two-phase in 15 of 16 runs' writes and 14 of 16 reads (make
     * demo, both builds, bench/results/learn.md); IOR's 1 MiB did not. Across
     * hosts every byte would cross the links twice (docs/cluster.md). */
    int one_host = nn == 1 || (nodes && nodes->one_host);
    if (avg >= big && remote && interleaved && one_host && avg < (big > ONE_HOST_BIG ? big : ONE_HOST_BIG)) {
        snprintf(reason, cap, "twophase: %s %s interleaved on one host, merged in memory", a, op);
        return FERRY_COLL_TWOPHASE;
    }
    if (avg >= big) {
        snprintf(reason, cap, "independent: pieces average %s, already large %s", a, op);
        return FERRY_COLL_INDEPENDENT;
    }
    /* Reads of a local file system take no file-wide lock and run in
     * parallel from the page cache, so aggregating them mostly only adds a
     * copy: independent (sieving where pieces are dense) measured 1.2-6.5x
     * local aggregation on Tile-IO reads and on MPICH's BT-IO reads, and
     * 0.87-0.96x on Open MPI's BT-IO reads (bench/compare.py --full).
     * Pieces below a page, interleaved between more than two ranks of a
     * node, are the exception: each is a system call for a few hundred
     * bytes. Open MPI 8 ranks, BT-IO's 480 B on /dev/shm: two-phase read
     * 1.27-1.74x independent in 8 of 8 comparisons, local 1.15-1.32x,
     * once two-phase's buffers were kept and page-aligned (bench/results/
     * learn.md, "The rules learning starts from"); Tile-IO's 4 KiB pieces read faster
     * independent (0.78-0.97x in 3 of 4). */
    if (!is_write && !remote && ppn > 2 && avg < PAGE && interleaved) {
        snprintf(reason, cap, "twophase: %s pieces read, %d ranks per node: one large read each", a, ppn);
        return FERRY_COLL_TWOPHASE;
    }
    if (!is_write && !remote) {
        snprintf(reason, cap, "independent: %s pieces read from a local file system", a);
        return FERRY_COLL_INDEPENDENT;
    }
    if (!interleaved && density < 0.5) {
        snprintf(reason, cap, "independent: %s pieces too far apart to merge (%.0f%% dense)", a, density * 100);
        return FERRY_COLL_INDEPENDENT;
    }
    if (nn > 1 && interleaved) {
        snprintf(reason, cap, "twophase: interleaved %s pieces, %d nodes", a, nn);
        return FERRY_COLL_TWOPHASE;
    }
    if (remote) {
        /* Small pieces each cost a round trip: merge them. Ranks whose
         * pieces do not interleave with other nodes' merge into whole ranges
         * on their node (FLASH-IO, Open MPI 4 nodes of 2: local 92 MiB/s,
         * two-phase 32, independent 29); one node's interleaved pieces go
         * through two-phase (MPICH 2 ranks: Tile-IO 149 vs 14 independent,
         * BT-IO 166 vs 40). */
        if (nn > 1 && ppn > 1) {
            snprintf(reason, cap, "local: %s pieces, %d ranks per node merged on their node", a, ppn);
            return FERRY_COLL_LOCAL;
        }
        snprintf(reason, cap, "twophase: %s pieces, each a round trip to the file system", a);
        return FERRY_COLL_TWOPHASE;
    }
    /* A write of a page or more goes into the page cache whole, the ranks
     * in parallel; merging it first only adds a copy through the node
     * window: independent measured 2.5-2.7x local on HACC-IO (206 KiB
     * pieces) and 1.9-2.1x on Tile-IO (4 KiB), Open MPI 8 ranks on
     * /dev/shm (make demo, two runs, bench/results/learn.md). */
    if (ppn > 2 && avg >= PAGE) {
        snprintf(reason, cap, "independent: %s pieces, whole pages into the page cache", a);
        return FERRY_COLL_INDEPENDENT;
    }
    /* Below a page (BT-IO's 480 B) merging still pays. Pieces interleaved
     * between the node's ranks merge best in two-phase's domains, since its
     * buffers are kept (buffers.h): Open MPI 8 ranks, BT-IO writes on
     * /dev/shm, two-phase 1.13-1.43x local in 10 of 10 comparisons
     * (bench/results/learn.md, "The rules learning starts from"). */
    if (ppn > 2 && interleaved) {
        snprintf(reason, cap, "twophase: %s pieces interleaved between %d ranks of a node", a, ppn);
        return FERRY_COLL_TWOPHASE;
    }
    if (ppn > 2) {
        snprintf(reason, cap, "local: %s pieces, %d ranks per node merged on their node", a, ppn);
        return FERRY_COLL_LOCAL;
    }
    /* Two ranks of a node merge too little to pay for the copy into the
     * node window: independent writes measured 1.5-1.8x local aggregation
     * on Tile-IO and BT-IO at 2 ranks (bench/compare.py --full, MPICH). */
    if (ppn == 2) {
        snprintf(reason, cap, "independent: %s pieces, only 2 ranks per node to merge", a);
        return FERRY_COLL_INDEPENDENT;
    }
    snprintf(reason, cap, "twophase: %s pieces, one rank per node", a);
    return FERRY_COLL_TWOPHASE;
}
