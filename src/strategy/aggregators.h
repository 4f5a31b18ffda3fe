/*
 * Who aggregates, and which part of the file each aggregator owns.
 *
 * Aggregators are spread over nodes, one per node by default (cb_config_list
 * "*:1"), up to cb_nodes. File domains split the call's extent evenly,
 * aligned to the stripe unit when it is known (file system or striping_unit),
 * or go stripe by stripe round-robin (Lustre style) when the stripe count is
 * known too.
 */
#ifndef FERRY_STRATEGY_AGGREGATORS_H
#define FERRY_STRATEGY_AGGREGATORS_H

#include "core/file.h"
#include "core/nodes.h"

typedef struct ferry_aggs {
    int n;
    int *ranks;      /* rank in the file's communicator of aggregator i */
    int me;          /* my aggregator index, or -1 */
} ferry_aggs;

/* The file's stripe layout as far as it is known for certain: the unit from
 * the file system or the striping_unit hint (not an unconfirmed default),
 * the count from any source; 0 where unknown. */
typedef struct ferry_stripes {
    int64_t unit;
    int count;
} ferry_stripes;
ferry_stripes ferry_stripes_of(const ferry_file *f);

/* Pure: the same answer on every rank. Without cb_nodes, a file striped
 * over more servers than there are aggregators gets one per stripe (up to
 * the ranks), spread over the nodes. */
int ferry_aggs_choose(const ferry_hints *h, int stripes, const ferry_nodes *nodes, int size, int rank,
                      ferry_aggs *out);
/* The same with `cb_nodes` aggregators in place of the hint's (0: the
 * default rule): a learned option's count. */
int ferry_aggs_choose_n(const ferry_hints *h, int cb_nodes, int stripes, const ferry_nodes *nodes, int size,
                        int rank, ferry_aggs *out);
void ferry_aggs_free(ferry_aggs *a);

typedef struct ferry_domains {
    int n;           /* aggregators with a domain */
    int64_t start;   /* first byte of domain 0 */
    int64_t size;    /* bytes per domain (contiguous layout) */
    int64_t stripe;  /* > 0: stripe-cyclic layout with this stripe size */
    int64_t hi;      /* end of the extent */
} ferry_domains;

/* Domains for the extent [lo, hi). Uses at most `naggs` aggregators and no
 * more than one per `min_domain` bytes of extent; aligned to the stripe unit,
 * stripe-cyclic when the count is known too. */
void ferry_domains_make(ferry_domains *d, int64_t lo, int64_t hi, int naggs, ferry_stripes st, int64_t min_domain);
/* The aggregator owning byte off; *end is where its ownership of this run stops. */
int ferry_domains_owner(const ferry_domains *d, int64_t off, int64_t *end);
/* Position of off in its owner's own linear space (rounds are cut there). */
int64_t ferry_domains_local(const ferry_domains *d, int64_t off);
/* The file offset of local position `local` of aggregator `agg`; *end is
 * where the file range stays contiguous. */
int64_t ferry_domains_file(const ferry_domains *d, int agg, int64_t local, int64_t *end_local);

/* FERRY_AGGREGATOR_DISPLAY: rank 0 prints the aggregators and their domains. */
void ferry_aggs_display(const ferry_file *f, const ferry_aggs *a, const ferry_nodes *nodes,
                        const ferry_domains *d, const char *why);


/* Collective: re-places the aggregators of the domains with the machine
 * model's cost-based method (TAPIOCA-style): each domain goes to the node
 * that minimises hops x latency + bytes / bandwidth from its senders plus the
 * path to its gateway. my_bytes[j] is this rank's data in domain j (NULL: none). Leaves
 * aggs unchanged when no machine model is set. */
int ferry_aggs_place_topology(const ferry_file *f, const ferry_nodes *nodes, const ferry_domains *d,
                              const double *my_bytes, ferry_aggs *aggs);

#endif
