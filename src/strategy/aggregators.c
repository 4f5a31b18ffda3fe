#include "strategy/aggregators.h"
#include "core/hints.h"
#include "core/say.h"
#include "util/plural.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Aggregators per node from cb_config_list: "*:k" or "*:*"; host-specific
 * entries are not matched by name (nodes may be virtual) and count as "*". */
static int per_node(const ferry_hints *h, int node_size)
{
    const char *s = strrchr(h->cb_config_list, ':');
    if (!s || !s[1])
        return 1;
    if (s[1] == '*')
        return node_size;
    int k = atoi(s + 1);
    return k < 1 ? 1 : k;
}

ferry_stripes ferry_stripes_of(const ferry_file *f)
{
    ferry_stripes st = {0, 0};
    const ferry_fs_info *fs = &f->fs;
    if ((fs->stripe_src == FERRY_STRIPE_FS || fs->stripe_src == FERRY_STRIPE_HINT) && fs->stripe_unit > 0)
        st.unit = fs->stripe_unit;
    if (f->hints.striping_unit > 0 && fs->stripe_src != FERRY_STRIPE_FS)
        st.unit = f->hints.striping_unit;
    st.count = f->hints.striping_factor > 0 && ferry_fs_stripes(fs) ? f->hints.striping_factor
             : fs->stripe_src != FERRY_STRIPE_NONE ? fs->stripe_count : 0;
    return st;
}

int ferry_aggs_choose(const ferry_hints *h, int stripes, const ferry_nodes *nodes, int size, int rank,
                      ferry_aggs *out)
{
    return ferry_aggs_choose_n(h, h->cb_nodes, stripes, nodes, size, rank, out);
}

int ferry_aggs_choose_n(const ferry_hints *h, int cb_nodes, int stripes, const ferry_nodes *nodes, int size,
                        int rank, ferry_aggs *out)
{
    out->n = 0;
    out->me = -1;
    out->ranks = malloc((size_t)size * sizeof *out->ranks);
    int *count = calloc((size_t)nodes->nnodes, sizeof *count);
    int *first = malloc((size_t)nodes->nnodes * sizeof *first);
    int **members = malloc((size_t)nodes->nnodes * sizeof *members);
    if (!out->ranks || !count || !first || !members) {
        free(out->ranks);
        free(count);
        free(first);
        free(members);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < size; r++)
        count[nodes->node_of[r]]++;
    int *pool = malloc((size_t)size * sizeof *pool);
    int at = 0, maxppn = 0;
    for (int n = 0; n < nodes->nnodes; n++) {
        members[n] = pool + at;
        first[n] = 0;
        at += count[n];
        if (count[n] > maxppn)
            maxppn = count[n];
    }
    for (int r = 0; r < size; r++) {
        int n = nodes->node_of[r];
        members[n][first[n]++] = r;
    }
    int k = per_node(h, maxppn);
    int want = cb_nodes > 0 ? cb_nodes : nodes->nnodes * k;
    if (cb_nodes <= 0 && stripes > want) {
        /* one aggregator per stripe, as ROMIO's Lustre driver does: each
         * server then hears from one writer */
        want = stripes;
        k = (stripes + nodes->nnodes - 1) / nodes->nnodes;
        if (k > maxppn)
            k = maxppn;
    }
    if (want > size)
        want = size;
    /* Round j takes the j-th aggregator of every node; within a node the k
     * aggregators are spaced evenly over its ranks. */
    for (int j = 0; j < k && out->n < want; j++)
        for (int n = 0; n < nodes->nnodes && out->n < want; n++) {
            int per = k < count[n] ? k : count[n];
            if (j >= per)
                continue;
            out->ranks[out->n++] = members[n][(int64_t)j * count[n] / per];
        }
    for (int i = 0; i < out->n; i++)
        if (out->ranks[i] == rank)
            out->me = i;
    free(pool);
    free(count);
    free(first);
    free(members);
    return MPI_SUCCESS;
}

void ferry_aggs_free(ferry_aggs *a)
{
    free(a->ranks);
    a->ranks = NULL;
}

void ferry_domains_make(ferry_domains *d, int64_t lo, int64_t hi, int naggs, ferry_stripes st, int64_t min_domain)
{
    int64_t extent = hi > lo ? hi - lo : 0;
    int64_t su = st.unit > 0 ? st.unit : 0;
    int n = naggs;
    if (min_domain > 0 && extent / min_domain + 1 < n)
        n = (int)(extent / min_domain + 1);
    if (n < 1)
        n = 1;
    d->n = n;
    d->hi = hi;
    if (su > 0 && st.count > 0) {
        d->stripe = su;
        d->start = 0;
        d->size = 0;
        return;
    }
    d->stripe = 0;
    d->start = su > 0 ? lo / su * su : lo;
    int64_t size = (hi - d->start + n - 1) / n;
    if (su > 0)
        size = (size + su - 1) / su * su;
    d->size = size > 0 ? size : 1;
}

int ferry_domains_owner(const ferry_domains *d, int64_t off, int64_t *end)
{
    if (d->stripe) {
        int64_t s = off / d->stripe;
        *end = (s + 1) * d->stripe;
        return (int)(s % d->n);
    }
    int64_t i = (off - d->start) / d->size;
    if (i >= d->n)
        i = d->n - 1;
    *end = i == d->n - 1 ? INT64_MAX : d->start + (i + 1) * d->size;
    return (int)i;
}

int64_t ferry_domains_local(const ferry_domains *d, int64_t off)
{
    if (d->stripe) {
        int64_t s = off / d->stripe;
        return (s / d->n) * d->stripe + off % d->stripe;
    }
    int64_t end;
    int i = ferry_domains_owner(d, off, &end);
    return off - (d->start + (int64_t)i * d->size);
}

int64_t ferry_domains_file(const ferry_domains *d, int agg, int64_t local, int64_t *end_local)
{
    if (d->stripe) {
        int64_t k = local / d->stripe;
        *end_local = (k + 1) * d->stripe;
        return (k * d->n + agg) * d->stripe + local % d->stripe;
    }
    *end_local = INT64_MAX;
    return d->start + (int64_t)agg * d->size + local;
}

void ferry_aggs_display(const ferry_file *f, const ferry_aggs *a, const ferry_nodes *nodes,
                        const ferry_domains *d, const char *why)
{
    /* once per file and strategy: the placement of a repeated pattern repeats */
    if (!f->sw.v[FERRY_SW_AGGDISPLAY] || f->rank != 0 || strstr(f->coll_shown, why))
        return;
    strncat(((ferry_file *)f)->coll_shown, why, sizeof f->coll_shown - strlen(f->coll_shown) - 1);
    ferry_say(FERRY_INFO, "aggregators for \"%s\" (%s): %d of %d rank%s on %d node%s", f->filename, why, d->n, f->size,
              ferry_s(f->size), nodes->nnodes, ferry_s(nodes->nnodes));
    fprintf(stderr, "  %-6s %-6s %-6s %s\n", "agg", "rank", "node", "file domain");
    for (int i = 0; i < d->n && i < a->n; i++) {
        if (d->stripe)
            fprintf(stderr, "  %-6d %-6d %-6d stripes %d, %d+%d, ... of %lld bytes\n", i, a->ranks[i],
                    nodes->node_of[a->ranks[i]], i, i, d->n, (long long)d->stripe);
        else {
            int64_t lo = d->start + (int64_t)i * d->size;
            int64_t hi = i == d->n - 1 ? d->hi : lo + d->size;
            fprintf(stderr, "  %-6d %-6d %-6d [%lld, %lld)\n", i, a->ranks[i], nodes->node_of[a->ranks[i]],
                    (long long)lo, (long long)hi);
        }
    }
}
