/*
 * The collective engine's front door: picks a strategy per call (the hint, or
 * auto), runs it through its descriptor (catalog.c), and ends every call with
 * one allreduce so a failure on any rank fails the call on all of them with
 * the same class.
 *
 * Auto looks at the call's global pattern, which costs one allreduce. When
 * the previous call on this file went independent and no rank's pattern
 * changed, auto skips it: the pattern is known, and independent is correct
 * for any pattern, so a wrong guess costs speed, never bytes.
 */
#include "core/consistency.h"
#include "core/errors.h"
#include "driver/coherence.h"
#include "strategy/auto.h"
#include "strategy/coll_call.h"
#include "strategy/coll_flush.h"
#include "strategy/learn_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ferry_coll {
    int own_nodes;             /* a node communicator of its own (a file's worker) */
    int have_nodes;
    ferry_nodes nodes;
    void **state;              /* per strategy of the list: its own state on the file */
    int fast_independent[2];   /* per direction: the last call allows skipping the pattern step */
    char decided[2][FERRY_REASON_LEN]; /* per direction: why auto chose independent then */
    int64_t last_bytes[2];
    const void *last_view[2];
    /* the last call's runs, per direction: a call that repeats them moved
     * lets two-phase skip its counts exchange */
    ferry_runs last_runs[2];
    int have_last[2];
    ferry_learner learn[2];    /* per direction: reads and writes are learned apart */
    ferry_learn_slot *fast_slot[2]; /* the learned pattern the fast path repeats, if any */
};

static struct ferry_coll *coll_of(ferry_file *f)
{
    if (f->coll)
        return f->coll;
    struct ferry_coll *c = calloc(1, sizeof *c);
    void **state = calloc((size_t)ferry_strategy_count(), sizeof *state);
    if (!c || !state) {
        free(c);
        free(state);
        return NULL;
    }
    c->state = state;
    f->coll = c;
    return c;
}

int ferry_strategy_own_nodes(ferry_file *f)
{
    struct ferry_coll *c = coll_of(f);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->own_nodes = 1;
    return MPI_SUCCESS;
}

void ferry_strategy_release(ferry_file *f)
{
    struct ferry_coll *c = f->coll;
    if (!c)
        return;
    ferry_learn_close(c->learn, f->hints.learn, f->stats.learn, &f->remember);
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const struct ferry_strategy_code *code = ferry_strategy_at(i)->code;
        if (code && code->release)
            code->release(c->state[i]);
    }
    free(c->state);
    ferry_runs_free(&c->last_runs[0]);
    ferry_runs_free(&c->last_runs[1]);
    if (c->have_nodes && c->own_nodes)
        ferry_nodes_free_own(&c->nodes);
    else if (c->have_nodes)
        ferry_nodes_free(&c->nodes);
    free(c);
    f->coll = NULL;
}

/* Collective the first time: who shares a node with whom. */
static const ferry_nodes *nodes_of(ferry_file *f, struct ferry_coll *c)
{
    if (!c->have_nodes && (c->own_nodes ? ferry_nodes_build_own(f->comm, &c->nodes)
                                        : ferry_nodes_build(f->comm, f->dups, &c->nodes)) == MPI_SUCCESS)
        c->have_nodes = 1;
    return c->have_nodes ? &c->nodes : NULL;
}

/* ---- one call, step by step ---- */

/* Where one collective call is: what the steps below hand each other. */
typedef struct coll_step {
    ferry_file *f;
    const ferry_xfer *x;
    struct ferry_coll *c;
    int dir;                   /* 1 for writes: reads and writes keep their state apart */
    ferry_coll_strategy want;  /* what the hint asks for */
    ferry_coll_strategy chosen;
    int changed;               /* this rank's call is not its last one in this direction */
    int learning, max_trials;
    ferry_learn_slot *slot;    /* the pattern learning follows, when it does */
    int code;
    int64_t writes_before;
    char reason_buf[FERRY_REASON_LEN];
    const char *reason;        /* fixed reasons point at literals: no formatting per call */
    ferry_runs runs;
    int have_runs;
    ferry_pattern pat;
    ferry_coll_call call;      /* what the chosen strategy is given */
    double start;              /* the clock of the call's time, which learning compares */
    double once;               /* what this call paid that the pattern's next calls will not: left out of its time */
    double fresh;              /* buffers made, once per process (buffers.h): the ranks that waited for them paid it too */
    int64_t out[6];            /* the outcome's allreduce (outcome) */
} coll_step;

static ferry_coll_strategy requested(const ferry_file *f, int is_write)
{
    return is_write ? f->hints.write_strategy : f->hints.read_strategy;
}

/* The list's place of collective strategy id: where its state is kept. */
static int place_of(int id)
{
    const ferry_strategy_desc *d = ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, id);
    for (int i = 0; d && i < ferry_strategy_count(); i++)
        if (ferry_strategy_at(i) == d)
            return i;
    return -1;
}

/* Runs collective strategy k->chosen; nodes may be NULL only for the
 * strategy that needs none of the pattern (independent). */
static int run_chosen(coll_step *k, int64_t *done)
{
    const ferry_strategy_desc *d = ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, k->chosen);
    int at = place_of(k->chosen);
    if (!d || !d->code || !d->code->run || at < 0)
        return ferry_err(MPI_ERR_INTERN, "the collective strategy chosen has no code to run");
    k->call.state = &k->c->state[at];
    return d->code->run(&k->call, done);
}

/* Step 1: what the call asks for, and what every rank's last call was. */
static void begin(coll_step *k, ferry_file *f, const ferry_xfer *x, int local_err, struct ferry_coll *c)
{
    memset(k, 0, sizeof *k);
    k->f = f;
    k->x = x;
    k->c = c;
    k->code = local_err;
    k->dir = x->is_write;
    k->want = requested(f, k->dir);
    k->changed = x->bytes != c->last_bytes[k->dir] || (const void *)f->view.ft != c->last_view[k->dir];
    c->last_bytes[k->dir] = x->bytes;
    c->last_view[k->dir] = f->view.ft;
    /* learning runs where auto does, except on a file's worker (async.c),
     * whose copy of the file would learn apart from the file */
    k->learning = k->want == FERRY_COLL_AUTO && f->hints.learn != FERRY_LEARN_OFF && !c->own_nodes;
    k->max_trials = f->hints.learn == FERRY_LEARN_REUSE ? 0 : f->hints.learn_trials;
    k->writes_before = f->stats.sys_writes;
    k->reason = k->reason_buf;
    k->start = ferry_now();
    k->call.f = f;
    k->call.x = x;
}

/* Step 2, when it applies: the call goes independent without the pattern
 * step (the hint, or auto on a repeat of the last call's pattern, which
 * went independent). Returns 0 when the call needs the other steps. */
static int take_fast_path(coll_step *k, int64_t *done)
{
    struct ferry_coll *c = k->c;
    int dir = k->dir;
    ferry_learn_slot *fast = k->want == FERRY_COLL_AUTO && c->fast_independent[dir] ? c->fast_slot[dir] : NULL;
    if (!(k->want == FERRY_COLL_INDEPENDENT ||
          (k->want == FERRY_COLL_AUTO && c->fast_independent[dir] &&
           (!fast || ferry_learn_repeat(&c->learn[dir], fast, k->max_trials)))))
        return 0;
    k->chosen = FERRY_COLL_INDEPENDENT;
    k->slot = fast;
    /* the reason that decided it still holds: say it, then the reuse
     * (formatted once, when it was decided) */
    k->reason = k->want == FERRY_COLL_INDEPENDENT ? "requested by hint" : c->decided[dir];
    if (k->code == MPI_SUCCESS)
        k->code = run_chosen(k, done);
    return 1;
}

/* Step 3: this rank's runs, the pattern agreed over the ranks, who shares
 * a node with whom. The I/O is timed from here: the ranks have met. */
static void agree_pattern(coll_step *k)
{
    struct ferry_coll *c = k->c;
    int rc = ferry_runs_build(&k->runs, &k->f->view, k->x->pos, k->code == MPI_SUCCESS ? k->x->bytes : 0);
    k->have_runs = 1;
    if (k->code == MPI_SUCCESS)
        k->code = rc;
    double t0 = ferry_now();
    k->code = ferry_pattern_agree(k->f, k->code, &k->runs, c->have_last[k->dir] ? &c->last_runs[k->dir] : NULL,
                                  &k->pat);
    k->call.runs = &k->runs;
    k->call.pat = &k->pat;
    k->call.nodes = nodes_of(k->f, c);
    k->start = ferry_stats_phase(&k->f->stats, FERRY_PHASE_META, t0);
}

/* Step 4: the strategy: the hint's, or auto's rules', which learning may
 * override with the option it tries or keeps for this pattern. */
static void choose(coll_step *k)
{
    const ferry_nodes *nodes = k->call.nodes;
    k->chosen = k->want;
    if (k->want != FERRY_COLL_AUTO) {
        k->reason = "requested by hint";
        return;
    }
    k->chosen = ferry_auto_choose(k->f, &k->pat, nodes, k->x->is_write, k->reason_buf, sizeof k->reason_buf);
    if (!k->learning || k->pat.err != MPI_SUCCESS || !nodes)
        return;
    ferry_learn_ctx ctx;
    char rule_why[FERRY_REASON_LEN];
    memcpy(rule_why, k->reason_buf, sizeof rule_why);
    const ferry_learn_from from = {k->f, &k->pat, nodes, k->chosen};
    ferry_learn_setup(&ctx, &from, k->x->is_write, rule_why);
    ctx.known = &k->f->remember.known;
    k->slot = ferry_learn_pick(&k->c->learn[k->dir], &ctx, k->reason_buf, sizeof k->reason_buf);
    if (k->slot) {
        ferry_coll_option o = ferry_learn_option(&k->slot->opt[k->slot->running]);
        k->chosen = o.strategy;
        k->call.cb_nodes = o.cb_nodes;
    }
}

/* Step 5: where the strategy chosen cannot run this call, its fallback
 * does (its descriptor's); every rank answers alike. What the check made
 * once per open is left out of the call's time. */
static void check_usable(coll_step *k)
{
    for (int hop = 0; hop < ferry_strategy_count(); hop++) {
        const ferry_strategy_desc *d = ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, k->chosen);
        int at = place_of(k->chosen);
        if (!d || !d->code || !d->code->usable || at < 0)
            return;
        const char *why = NULL;
        k->call.code = k->code;
        k->call.state = &k->c->state[at];
        k->call.once = 0;
        int ok = d->code->usable(&k->call, k->reason_buf, sizeof k->reason_buf, &why);
        k->once += k->call.once;
        k->start += k->call.once;
        if (ok)
            return;
        int next = d->fallback ? ferry_strategy_id(FERRY_STRATEGY_COLLECTIVE, d->fallback) : -1;
        if (next <= 0) {
            if (k->code == MPI_SUCCESS)
                k->code = ferry_err(MPI_ERR_INTERN, "a collective strategy cannot run and names no fallback");
            return;
        }
        k->chosen = next;
        k->reason = why;
    }
}

/* Step 6: the chosen strategy moves the bytes. */
static void run(coll_step *k, int64_t *done)
{
    ferry_file *f = k->f;
    if (k->slot && k->slot->trial && k->dir && k->chosen != FERRY_COLL_INDEPENDENT && !f->fs.coherent_cache &&
        f->size > 1)
        k->code = ferry_coll_flush_before_trial(f, k->code, &k->start);
    if (k->code != MPI_SUCCESS)
        return;
    if (!k->call.nodes) {
        k->code = ferry_err(MPI_ERR_INTERN, "could not map ranks to nodes");
        return;
    }
    k->call.code = k->code;
    k->call.listed = k->call.fresh = 0;
    k->code = run_chosen(k, done);
    k->fresh = k->call.fresh;
    /* a repeating pattern's next calls skip what this one listed: learning
     * compares what is still to come */
    if (k->slot && k->pat.repeats) {
        k->once += k->call.listed;
        k->start += k->call.listed;
    }
}

/* Step 7: one allreduce: the outcome, whether any rank's pattern changed,
 * the call's time on its slowest rank (what learning compares), what it
 * paid once (what a trial costs the run beyond that), what made new
 * buffers (the same, once per process), and how far the ranks wrote: after
 * a collective write the file reaches there, so no rank's client may cut a
 * read short of it (an aggregator reading what ranks wrote independently in
 * the last call: learning tries one strategy for writes and another for
 * reads). Then, where caches are not coherent, the flush for the others.
 * Returns 1 when the call succeeded on every rank. */
static int outcome(coll_step *k, int64_t *max_ns)
{
    ferry_file *f = k->f;
    double t0 = ferry_now();
    int64_t in[6] = {ferry_err_class(k->code), k->changed, (int64_t)((t0 - k->start) * 1e9),
                     ferry_coh_written_end(&f->fd), (int64_t)(k->once * 1e9), (int64_t)(k->fresh * 1e9)};
    memcpy(k->out, in, sizeof in);
    if (f->size > 1)
        MPI_Allreduce(in, k->out, 6, MPI_INT64_T, MPI_MAX, f->comm);
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    /* kept only after a call that succeeded everywhere, so every rank keeps alike */
    int ok = k->code == MPI_SUCCESS && k->out[0] == MPI_SUCCESS;
    *max_ns = k->out[2];
    if (ok && k->dir)
        ferry_consist_after_aggregated_write(f, 0, 0, k->out[3]);
    /* chosen is the same on every rank (from the agreed pattern), so all take part */
    if (ok && k->dir && f->size > 1 && !f->fs.coherent_cache && k->chosen != FERRY_COLL_INDEPENDENT) {
        k->code = ferry_coll_flush_for_others(f, f->stats.sys_writes != k->writes_before, &k->runs, k->start, max_ns);
        ok = k->code == MPI_SUCCESS;
    }
    return ok;
}

/* Step 8: what the call teaches: learning's measurement, whether the next
 * call may take the fast path, the runs a repeat is checked against, and
 * each strategy's state (which holds only while it runs every call). */
static void account(coll_step *k, int ok, int64_t max_ns)
{
    struct ferry_coll *c = k->c;
    int dir = k->dir;
    ferry_learn_slot *slot = k->slot;
    /* every rank passes the same times, or -1 on every rank for a failed call */
    /* the slowest rank may be one that waited for an aggregator's new
     * buffers rather than the aggregator: the wait is taken off the maximum */
    max_ns = max_ns > k->out[5] ? max_ns - k->out[5] : 0;
    if (ok)
        ferry_learn_paid_once(slot, (double)(k->out[4] + k->out[5]) * 1e-9);
    ferry_learn_done(&c->learn[dir], slot, ok ? (double)max_ns * 1e-9 : -1.0);
    int was_fast = c->fast_independent[dir];
    c->fast_independent[dir] = k->chosen == FERRY_COLL_INDEPENDENT && !k->out[1] && k->want == FERRY_COLL_AUTO &&
                               (!slot || (slot->opt[slot->chosen].s == FERRY_COLL_INDEPENDENT &&
                                          ferry_learn_steady(slot, k->max_trials)));
    c->fast_slot[dir] = c->fast_independent[dir] ? slot : NULL;
    if (c->fast_independent[dir] && (!was_fast || k->reason != c->decided[dir])) {
        /* what was learned, not the trial; a reason is never cut: without
         * the remark if both do not fit */
        const char *why = slot ? slot->why : k->reason;
        if (strlen(why) + sizeof " (same pattern as the last call)" <= sizeof c->decided[dir])
            snprintf(c->decided[dir], sizeof c->decided[dir], "%s (same pattern as the last call)", why);
        else
            snprintf(c->decided[dir], sizeof c->decided[dir], "%s", why);
    }
    c->have_last[dir] = ok && k->have_runs && ferry_runs_copy(&c->last_runs[dir], &k->runs) == MPI_SUCCESS;
    for (int i = 0, id = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != FERRY_STRATEGY_COLLECTIVE)
            continue;
        id++;
        if (d->code && d->code->settle)
            d->code->settle(c->state[i], dir, ok && id == (int)k->chosen);
    }
}

int ferry_strategy_collective(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done)
{
    *done = 0;
    int flushed = ferry_strategy_flush_all(f); /* what this rank handed to others lands first */
    if (local_err == MPI_SUCCESS)
        local_err = flushed;
    struct ferry_coll *c = coll_of(f);
    if (!c)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for collective state");
    coll_step k;
    begin(&k, f, x, local_err, c);
    if (!take_fast_path(&k, done)) {
        agree_pattern(&k);
        choose(&k);
        check_usable(&k);
        run(&k, done);
    }
    ferry_stats_strategy(&f->stats, x->is_write ? FERRY_KIND_COLL_WRITE : FERRY_KIND_COLL_READ,
                         ferry_coll_strategy_name(k.chosen), k.reason);
    int64_t max_ns;
    int ok = outcome(&k, &max_ns);
    account(&k, ok, max_ns);
    ferry_runs_free(&k.runs);
    int code = k.code != MPI_SUCCESS ? k.code
               : k.out[0] != MPI_SUCCESS ? ferry_err((int)k.out[0], "the collective call failed on another rank")
                                         : MPI_SUCCESS;
    if (code != MPI_SUCCESS && k.dir)
        *done = 0;
    return code;
}
