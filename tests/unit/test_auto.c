/* auto's rules per file-system class, and aggregators and file domains from
 * the stripe layout: pure functions, fed synthetic files and patterns. */
#include "strategy/aggregators.h"
#include "strategy/auto.h"
#include "learn/learner.h"
#include "unit/check.h"
#include "unit/strategy_fixture.h"

#include <stdlib.h>
#include <string.h>

static ferry_coll_strategy choose(ferry_file *f, int nnodes, ferry_pattern p, int is_write, char *why)
{
    ferry_nodes n = nodes_of(f->size, nnodes);
    ferry_coll_strategy s = ferry_auto_choose(f, &p, &n, is_write, why, 160);
    free(n.node_of);
    /* learning puts sentences around a rule's reason: it must be short enough
     * for them to fit whole (learn/learner.h) */
    CHECK_MSG(strlen(why) <= FERRY_RULE_WHY_MAX, "%zu characters: %s", strlen(why), why);
    return s;
}

static void rules(void)
{
    char why[160];
    /* Tile-IO-like: 2 ranks, 4 KiB pieces interleaved over the whole file */
    ferry_pattern tile = pat(2, 512, 4 * KiB, 4 * MiB, 4 * MiB);
    ferry_file *loc = file_of(FERRY_FS_CLASS_LOCAL, 2), *par = file_of(FERRY_FS_CLASS_PARALLEL, 2),
               *net = file_of(FERRY_FS_CLASS_NETWORK, 2);
    CHECK(choose(loc, 1, tile, 1, why) == FERRY_COLL_INDEPENDENT); /* 2 ranks per node on the page cache */
    CHECK(choose(par, 1, tile, 1, why) == FERRY_COLL_TWOPHASE);    /* each piece a round trip */
    CHECK_MSG(strstr(why, "round trip") != NULL, "%s", why);
    CHECK(choose(net, 1, tile, 1, why) == FERRY_COLL_TWOPHASE);
    /* reads: independent on a local file system only */
    CHECK(choose(loc, 1, tile, 0, why) == FERRY_COLL_INDEPENDENT);
    CHECK(choose(par, 1, tile, 0, why) == FERRY_COLL_TWOPHASE);
    /* large pieces: the reason names the direction */
    ferry_pattern hacc = pat(2, 4, 512 * KiB, 4 * MiB, 4 * MiB);
    CHECK(choose(loc, 1, hacc, 0, why) == FERRY_COLL_INDEPENDENT);
    CHECK_MSG(strstr(why, "already large reads") != NULL, "%s", why);
    CHECK(choose(loc, 1, hacc, 1, why) == FERRY_COLL_INDEPENDENT);
    CHECK_MSG(strstr(why, "already large writes") != NULL, "%s", why);
    /* 206 KiB pieces: large enough on the network across hosts; on one
     * host interleaved ones merge in memory first; not on the page cache */
    ferry_pattern mid = pat(2, 8, 206 * KiB, 4 * MiB, 4 * MiB);
    CHECK(choose(par, 1, mid, 1, why) == FERRY_COLL_TWOPHASE);
    CHECK_MSG(strstr(why, "interleaved on one host") != NULL, "%s", why);
    CHECK(choose(par, 2, mid, 1, why) == FERRY_COLL_INDEPENDENT);
    ferry_pattern mb = pat(2, 2, 1 * MiB, 4 * MiB, 4 * MiB);
    CHECK(choose(par, 1, mb, 1, why) == FERRY_COLL_INDEPENDENT); /* IOR's 1 MiB */
    CHECK(choose(loc, 1, mid, 1, why) == FERRY_COLL_INDEPENDENT); /* 2 ranks per node */
    ferry_file *loc8 = file_of(FERRY_FS_CLASS_LOCAL, 8), *par8 = file_of(FERRY_FS_CLASS_PARALLEL, 8);
    ferry_pattern mid8 = pat(8, 8, 206 * KiB, 16 * MiB, 16 * MiB);
    CHECK(choose(loc8, 1, mid8, 1, why) == FERRY_COLL_INDEPENDENT); /* whole pages */
    CHECK_MSG(strstr(why, "whole pages") != NULL, "%s", why);
    ferry_pattern tile8 = pat(8, 512, 4 * KiB, 16 * MiB, 16 * MiB);
    CHECK(choose(loc8, 1, tile8, 1, why) == FERRY_COLL_INDEPENDENT);
    /* below a page, 8 ranks of a node merge: interleaved (BT-IO's 480 B)
     * in two-phase's domains, each rank's own range on the node */
    ferry_pattern bt1 = pat(8, 1152, 480, 5 * MiB, 5 * MiB);
    CHECK(choose(loc8, 1, bt1, 1, why) == FERRY_COLL_TWOPHASE);
    CHECK_MSG(strstr(why, "480 B pieces interleaved between 8 ranks of a node") != NULL, "%s", why);
    ferry_pattern own8 = pat(8, 64, 480, 8 * 64 * 480, 64 * 480);
    CHECK(choose(loc8, 1, own8, 1, why) == FERRY_COLL_LOCAL);
    /* ... and are read through two-phase: a system call per 480 B costs
     * more than the exchange; whole pages (Tile-IO) still read independent */
    CHECK(choose(loc8, 1, bt1, 0, why) == FERRY_COLL_TWOPHASE);
    CHECK_MSG(strstr(why, "480 B pieces read, 8 ranks per node") != NULL, "%s", why);
    CHECK(choose(loc8, 1, tile8, 0, why) == FERRY_COLL_INDEPENDENT);
    CHECK(choose(loc, 1, pat(2, 1152, 480, 1 * MiB, 1 * MiB), 0, why) == FERRY_COLL_INDEPENDENT); /* 2 ranks */
    CHECK(choose(par8, 4, mid8, 1, why) == FERRY_COLL_INDEPENDENT);
    /* a stripe unit the file system reports raises the bar to a stripe */
    par8->fs.stripe_unit = 1 * MiB;
    par8->fs.stripe_src = FERRY_STRIPE_FS;
    CHECK(choose(par8, 4, mid8, 1, why) == FERRY_COLL_TWOPHASE);
    /* an unconfirmed default does not */
    par8->fs.stripe_src = FERRY_STRIPE_DEFAULT;
    CHECK(choose(par8, 4, mid8, 1, why) == FERRY_COLL_INDEPENDENT);
    /* FLASH-like: each rank's 64 KiB pieces dense in its own range, 4 nodes
     * of 2: merged on the node on a parallel file system */
    ferry_pattern flash = pat(8, 16, 64 * KiB, 8 * MiB, 1 * MiB);
    CHECK(choose(par8, 4, flash, 1, why) == FERRY_COLL_LOCAL);
    CHECK(choose(loc8, 4, flash, 1, why) == FERRY_COLL_INDEPENDENT);
    /* interleaved over nodes: two-phase on any class */
    ferry_pattern bt = pat(8, 4096, 640, 20 * MiB, 20 * MiB);
    CHECK(choose(par8, 4, bt, 1, why) == FERRY_COLL_TWOPHASE);
    CHECK(choose(loc8, 4, bt, 1, why) == FERRY_COLL_TWOPHASE);
    /* the local hint gives way to two-phase there, on a network only */
    ferry_nodes n4 = nodes_of(8, 4);
    CHECK(ferry_auto_local_collapses(par8, &bt, &n4, why, sizeof why) == 1);
    CHECK_MSG(strlen(why) < 96 && strstr(why, "round trip") != NULL, "%s", why);
    CHECK(ferry_auto_local_collapses(loc8, &bt, &n4, why, sizeof why) == 0);
    CHECK(ferry_auto_local_collapses(par8, &flash, &n4, why, sizeof why) == 0); /* not interleaved */
    free(n4.node_of);
    /* IOR segmented: pieces far apart stay independent everywhere */
    ferry_pattern ior = pat(8, 1, 8 * KiB, 8 * MiB, 8 * KiB);
    CHECK(choose(par8, 4, ior, 1, why) == FERRY_COLL_INDEPENDENT);
    free(loc), free(par), free(net), free(loc8), free(par8);
}

static void aggregators(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    ferry_nodes one = nodes_of(2, 1), four = nodes_of(8, 4);
    ferry_aggs a;
    /* no stripes known: one per node */
    CHECK(ferry_aggs_choose(&h, 0, &one, 2, 0, &a) == MPI_SUCCESS && a.n == 1);
    ferry_aggs_free(&a);
    /* 4 stripes, one node of 2: both ranks aggregate */
    CHECK(ferry_aggs_choose(&h, 4, &one, 2, 1, &a) == MPI_SUCCESS && a.n == 2 && a.me == 1);
    ferry_aggs_free(&a);
    /* 8 stripes over 4 nodes of 2: two per node, alternating nodes */
    CHECK(ferry_aggs_choose(&h, 8, &four, 8, 0, &a) == MPI_SUCCESS && a.n == 8);
    CHECK(a.ranks[0] == 0 && a.ranks[1] == 2 && a.ranks[4] == 1);
    ferry_aggs_free(&a);
    /* cb_nodes wins over the stripe count */
    h.cb_nodes = 1;
    CHECK(ferry_aggs_choose(&h, 8, &four, 8, 0, &a) == MPI_SUCCESS && a.n == 1);
    ferry_aggs_free(&a);
    free(one.node_of);
    free(four.node_of);

    ferry_domains d;
    int64_t end;
    /* unit known: contiguous domains aligned to it */
    ferry_domains_make(&d, 1000, 13 * MiB, 4, (ferry_stripes){4 * MiB, 0}, MiB);
    CHECK(d.stripe == 0 && d.start == 0 && d.size % (4 * MiB) == 0);
    /* unit and count: stripe-cyclic */
    ferry_domains_make(&d, 0, 32 * MiB, 4, (ferry_stripes){4 * MiB, 4}, MiB);
    CHECK(d.stripe == 4 * MiB && d.n == 4);
    CHECK(ferry_domains_owner(&d, 5 * MiB, &end) == 1 && end == 8 * MiB);
    CHECK(ferry_domains_owner(&d, 17 * MiB, &end) == 0);

    /* what the strategy takes from a file: a default unit is not certain */
    ferry_file *f = file_of(FERRY_FS_CLASS_PARALLEL, 2);
    f->fs.stripe_unit = 64 * MiB;
    f->fs.stripe_count = 4;
    f->fs.stripe_src = FERRY_STRIPE_DEFAULT;
    ferry_stripes st = ferry_stripes_of(f);
    CHECK(st.unit == 0 && st.count == 4);
    f->hints.striping_unit = 4 * MiB;
    st = ferry_stripes_of(f);
    CHECK(st.unit == 4 * MiB && st.count == 4);
    f->fs.stripe_src = FERRY_STRIPE_FS;
    f->fs.stripe_unit = MiB;
    st = ferry_stripes_of(f);
    CHECK(st.unit == MiB);
    free(f);
}

int main(void)
{
    rules();
    aggregators();
    if (check_failures)
        fprintf(stderr, "test_auto: %d failures\n", check_failures);
    return check_failures != 0;
}
