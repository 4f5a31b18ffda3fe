/*
 * The options learning tries for a pattern (learn_options.h). Each is a
 * correct way to move the bytes; this decides which are worth a trial.
 */
#include "strategy/learn_options.h"
#include "strategy/aggregators.h"
#include "strategy/auto.h"
#include "strategy/twophase.h"

#include <string.h>

#define KiB ((int64_t)1 << 10)

static void add_opt(ferry_learn_ctx *ctx, int s, int cb_nodes)
{
    for (int i = 0; i < ctx->nopt; i++)
        if (ctx->opt[i].s == s && ctx->opt[i].cb_nodes == cb_nodes)
            return;
    if (ctx->nopt == FERRY_LEARN_MAX_OPTS)
        return;
    ferry_learn_opt *o = &ctx->opt[ctx->nopt++];
    memset(o, 0, sizeof *o);
    o->s = s;
    o->cb_nodes = cb_nodes;
}

/* How many aggregators two-phase takes for this file by default. */
static int default_aggs(const ferry_file *f, const ferry_nodes *nodes)
{
    ferry_aggs a;
    if (ferry_aggs_choose(&f->hints, ferry_stripes_of(f).count, nodes, f->size, f->rank, &a) != MPI_SUCCESS)
        return 1;
    int n = a.n;
    ferry_aggs_free(&a);
    return n;
}

static void options(ferry_learn_ctx *ctx);

void ferry_learn_setup(ferry_learn_ctx *ctx, const ferry_learn_from *from, int is_write, const char *rule_why)
{
    const ferry_file *f = from->f;
    const ferry_pattern *p = from->p;
    const ferry_nodes *nodes = from->nodes;
    memset(ctx, 0, sizeof *ctx);
    ferry_learned_key *k = &ctx->key;
    _Static_assert(sizeof k->fs == sizeof f->fs.name && sizeof k->mount == sizeof f->fs.mount, "key sizes");
    memcpy(k->fs, f->fs.name, sizeof k->fs);
    memcpy(k->mount, f->fs.mount, sizeof k->mount);
    k->fs[sizeof k->fs - 1] = k->mount[sizeof k->mount - 1] = '\0';
    k->write = is_write;
    k->ranks = f->size;
    k->nodes = nodes ? nodes->nnodes : 1;
    k->bytes = p->bytes;
    k->pieces = p->runs;
    k->active = p->active;
    k->extent = p->hi > p->lo ? p->hi - p->lo : 0;
    k->span = p->span_sum;
    ctx->mode = f->hints.learn;
    ctx->max_trials = f->hints.learn_trials;
    ctx->rule_why = rule_why;
    ctx->work_out = options;
    ctx->from = from;
}

/* What d needs of the file and its nodes, as far as a trial must know it
 * beforehand (a strategy's own checks come when it runs). */
static int can_run(const ferry_strategy_desc *d, const ferry_file *f, const ferry_nodes *nodes, int is_write)
{
    if ((d->needs & FERRY_NEEDS_NODE_MATES) && nodes->nnodes >= f->size)
        return 0;
    return !((d->needs & FERRY_NEEDS_UNORDERED) && f->atomic && is_write);
}

/* The options worth a trial for ctx's pattern, the rules' choice first:
 * worked out once per pattern, when its slot is made. */
static void options(ferry_learn_ctx *ctx)
{
    const ferry_learn_from *from = ctx->from;
    const ferry_file *f = from->f;
    const ferry_pattern *p = from->p;
    const ferry_nodes *nodes = from->nodes;
    const ferry_learned_key *k = &ctx->key;
    ctx->nopt = 0;
    add_opt(ctx, from->rule, 0);
    ctx->rule = 0;
    if (p->active <= 1 || !nodes)
        return; /* nothing to combine */
    int64_t extent = k->extent ? k->extent : 1;
    int interleaved = p->span_sum > extent;
    if (!interleaved && (double)p->bytes / (double)extent < 0.5)
        return; /* too far apart to merge: aggregation could only add copies */
    int64_t avg = p->runs ? p->bytes / p->runs : 0;
    /* side by side and each a MiB or more: every rank's request is already
     * large, and merging adds a copy. IOR's 1 MiB calls, 12 cases (2 MPI
     * libraries, /dev/shm and the sharded testbed, 3 demo runs): reads
     * independent 1.4-4x faster than two-phase and local in all 12, writes
     * faster in 10, local 7 % and 12 % faster in 2 (bench/results/learn.md);
     * the trials those calls got cost a short run up to half its time */
    if (!interleaved && avg >= 1024 * KiB)
        return;
    /* every strategy learning tries, where it can run and auto's rules do
     * not know it to lose */
    int n = ferry_strategy_count();
    for (int i = 0, id = 0; i < n; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != FERRY_STRATEGY_COLLECTIVE)
            continue;
        id++;
        if ((d->roles & FERRY_ROLE_LEARNED) && can_run(d, f, nodes, k->write) &&
            !ferry_auto_rules_out(f, p, nodes, id))
            add_opt(ctx, id, 0);
    }
    /* fewer aggregators: one, where the default takes several and the
     * extent gives them each a domain; not across real nodes, where one
     * aggregator sends every byte through one node's link (the cluster,
     * bench/results/cluster/README.md: its trials 2.9-3.9x slower, BT-IO
     * writes through auto 0.75x two-phase for them) */
    if (f->hints.cb_nodes != 0 || k->extent < 2 * FERRY_TP_MIN_DOMAIN || !(nodes->nnodes == 1 || nodes->one_host))
        return;
    for (int i = 0, id = 0; i < n; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != FERRY_STRATEGY_COLLECTIVE)
            continue;
        id++;
        if ((d->roles & FERRY_ROLE_LEARNED) && ferry_strategy_takes(d, "cb_nodes") && default_aggs(f, nodes) > 1)
            add_opt(ctx, id, 1);
    }
}
