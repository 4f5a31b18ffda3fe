/*
 * The collective engine's front door: picks a strategy per call (the hint, or
 * auto), runs it, and ends every call with one allreduce so a failure on any
 * rank fails the call on all of them with the same class.
 *
 * Auto looks at the call's global pattern, which costs one allreduce. When
 * the previous call on this file went independent and no rank's pattern
 * changed, auto skips it: the pattern is known, and independent is correct
 * for any pattern, so a wrong guess costs speed, never bytes.
 */
#include "core/consistency.h"
#include "core/errors.h"
#include "core/remember.h"
#include "driver/coherence.h"
#include "strategy/auto.h"
#include "strategy/learn.h"
#include "strategy/forward.h"
#include "strategy/local.h"
#include "strategy/twophase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ferry_coll {
    int own_nodes;             /* a node communicator of its own (a file's worker) */
    int have_nodes;
    ferry_nodes nodes;
    ferry_local_win win;
    int fast_independent[2];   /* per direction: the last call allows skipping the pattern step */
    char decided[2][FERRY_REASON_LEN]; /* per direction: why auto chose independent then */
    int64_t last_bytes[2];
    const void *last_view[2];
    /* the last call's runs and two-phase agreement, per direction: a call
     * that repeats them moved skips the counts exchange */
    ferry_runs last_runs[2];
    int have_last[2];
    ferry_tp_memo memo[2];
    ferry_learner learn[2];    /* per direction: reads and writes are learned apart */
    ferry_learn_slot *fast_slot[2]; /* the learned pattern the fast path repeats, if any */
};

static struct ferry_coll *coll_of(ferry_file *f)
{
    if (!f->coll)
        f->coll = calloc(1, sizeof *f->coll);
    return f->coll;
}

int ferry_strategy_own_nodes(ferry_file *f)
{
    struct ferry_coll *c = coll_of(f);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->own_nodes = 1;
    return MPI_SUCCESS;
}

/* What learning did on f, into its statistics and, for rank 0 to keep, its
 * store entries. */
static void learn_report(ferry_file *f, struct ferry_coll *c)
{
    for (int d = 0; d < 2; d++) {
        const ferry_learner *l = &c->learn[d];
        const ferry_learn_slot *top = NULL;
        int used = 0;
        for (int i = 0; i < FERRY_LEARN_SLOTS; i++) {
            const ferry_learn_slot *s = &l->slot[i];
            if (!s->used)
                continue;
            used++;
            ferry_learned_entry e;
            if (ferry_learn_entry(s, f->hints.learn, &e))
                ferry_remember_note(f, &e);
            if (!top || s->calls > top->calls)
                top = s;
        }
        ferry_learn_summary *m = &f->stats.learn[d];
        m->digest = l->digest;
        if (!top)
            continue;
        m->active = 1;
        m->patterns = used;
        m->calls = top->calls;
        m->trials = top->trials;
        m->from_store = top->from_store;
        m->key = top->key;
        m->nopt = top->nopt < FERRY_LEARN_SHOWN ? top->nopt : FERRY_LEARN_SHOWN;
        for (int i = 0; i < m->nopt; i++) {
            ferry_learn_opt_name(&top->opt[i], m->opt[i].name, sizeof m->opt[i].name);
            m->opt[i].calls = top->opt[i].n;
            m->opt[i].best = top->opt[i].best;
            m->opt[i].typical = ferry_learn_typical(&top->opt[i]);
            m->opt[i].prior = top->opt[i].prior;
        }
        int c_ = top->state == FERRY_LEARN_SETTLED || top->from_store ? top->chosen : top->rule;
        ferry_learn_opt_name(&top->opt[c_], m->chosen, sizeof m->chosen);
        ferry_learn_opt_name(&top->opt[top->rule], m->rule, sizeof m->rule);
        ferry_learn_opt_name(&top->opt[top->first], m->first, sizeof m->first);
        snprintf(m->first_why, sizeof m->first_why, "%s", top->first_why);
        if (top->state == FERRY_LEARN_SETTLED || top->from_store || top->why[0])
            snprintf(m->why, sizeof m->why, "%s", top->why);
        else
            snprintf(m->why, sizeof m->why, "the rules (%.*s); %s", FERRY_RULE_WHY_MAX, top->rule_why,
                     top->calls < 2 ? "the pattern did not repeat" : "trials not finished");
    }
}

void ferry_strategy_release(ferry_file *f)
{
    struct ferry_coll *c = f->coll;
    if (!c)
        return;
    learn_report(f, c);
    ferry_local_win_free(&c->win);
    ferry_runs_free(&c->last_runs[0]);
    ferry_runs_free(&c->last_runs[1]);
    ferry_tp_memo_free(&c->memo[0]);
    ferry_tp_memo_free(&c->memo[1]);
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
                                        : ferry_nodes_build(f->comm, &c->nodes)) == MPI_SUCCESS)
        c->have_nodes = 1;
    return c->have_nodes ? &c->nodes : NULL;
}

static ferry_coll_strategy requested(const ferry_file *f, int is_write)
{
    return is_write ? f->hints.write_strategy : f->hints.read_strategy;
}

/* Where the file system's client caches are not coherent between processes
 * (GlusterFS: write-behind acknowledges a write before the bricks have it,
 * and another process's read, or the size a read is cut at, need not see
 * it), bytes an aggregator wrote for another rank are not yet there for the
 * process that reads them next: another aggregator, or the rank itself
 * independently. MPI lets a rank read its own bytes after its own write,
 * whichever process moved them. So after every rank's writes have returned
 * (the outcome allreduce), each rank that wrote for others flushes, and the
 * call returns when all have: then the bricks hold every byte and the size.
 * One fsync per aggregator and one allreduce per collective write, on such
 * file systems only (docs/filesystems.md: measured cost). */
static int flush_for_others(ferry_file *f, int wrote, const ferry_runs *mine, double start, int64_t *max_ns)
{
    double t0 = ferry_now();
    int err = wrote ? f->fd.drv->sync(&f->fd) : 0;
    int code = err ? ferry_err_errno(err, f->filename) : MPI_SUCCESS;
    /* the call's time so far rides along (the flush is part of what it
     * cost); how far the ranks wrote came with the outcome */
    int64_t in[2] = {ferry_err_class(code), (int64_t)((ferry_now() - start) * 1e9)}, out[2] = {in[0], in[1]};
    if (f->size > 1)
        MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, f->comm);
    ferry_stats_phase(&f->stats, FERRY_PHASE_SYNC, t0);
    *max_ns = out[1];
    if (code != MPI_SUCCESS)
        return code;
    if (out[0] != MPI_SUCCESS)
        return ferry_err((int)out[0], "flushing a collective write failed on another rank");
    /* pages this rank's client cached of the bytes it asked for are older
     * than what its aggregator wrote (the size was raised after the outcome) */
    ferry_consist_after_aggregated_write(f, mine->n ? mine->lo : 0, mine->n ? mine->hi : 0, 0);
    return MPI_SUCCESS;
}

/* Before a trial of an aggregated write where client caches are not
 * coherent: what this rank wrote earlier (the option kept, independent, does
 * not flush) is flushed off the trial's clock. The trial ends in
 * flush_for_others, which would flush it too, and an option was judged by
 * the flush of another's writes: FLASH-IO on the sharded testbed learned
 * "independent 4x faster than two-phase" where two-phase forced was the
 * fastest (bench/results/learn.md, session 12). Collective: every rank learns
 * the outcome, and the ranks' clocks start again together. */
static int flush_before_trial(ferry_file *f, int code, double *start)
{
    /* where the driver does not track writes since a sync, one is assumed */
    int dirty = !ferry_coh_active(&f->fd) || ferry_coh_dirty(&f->fd);
    int err = code == MPI_SUCCESS && dirty ? f->fd.drv->sync(&f->fd) : 0;
    if (err)
        code = ferry_err_errno(err, f->filename);
    int in = ferry_err_class(code), out = in;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, f->comm);
    *start = ferry_now();
    if (code == MPI_SUCCESS && out != MPI_SUCCESS)
        code = ferry_err(out, "flushing before a trial failed on another rank");
    return code;
}

/* Runs two-phase with the aggregator count a learned option names (0: the
 * file's own). Such a call neither uses the memo nor leaves it: its senders
 * are for other aggregators. */
static int twophase_with(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_pattern *pat,
                         const ferry_nodes *nodes, ferry_tp_memo *memo, int cb_nodes, int64_t *done)
{
    if (cb_nodes)
        memo->valid = 0;
    int code = ferry_twophase(f, x, runs, pat, nodes, cb_nodes, memo, done);
    if (cb_nodes)
        memo->valid = 0;
    return code;
}

int ferry_strategy_collective(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done)
{
    *done = 0;
    int fwd = ferry_forward_flush(f); /* this rank's forwarded data lands first */
    if (local_err == MPI_SUCCESS)
        local_err = fwd;
    struct ferry_coll *c = coll_of(f);
    if (!c)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for collective state");
    int dir = x->is_write;
    ferry_kind kind = dir ? FERRY_KIND_COLL_WRITE : FERRY_KIND_COLL_READ;
    ferry_coll_strategy want = requested(f, dir);
    int changed = x->bytes != c->last_bytes[dir] || (const void *)f->view.ft != c->last_view[dir];
    c->last_bytes[dir] = x->bytes;
    c->last_view[dir] = f->view.ft;
    /* learning runs where auto does, except on a file's worker (async.c),
     * whose copy of the file would learn apart from the file */
    ferry_learner *learner = &c->learn[dir];
    int learning = want == FERRY_COLL_AUTO && f->hints.learn != FERRY_LEARN_OFF && !c->own_nodes;
    int max_trials = f->hints.learn == FERRY_LEARN_REUSE ? 0 : f->hints.learn_trials;
    ferry_learn_slot *slot = NULL;

    int code = local_err;
    int64_t writes_before = f->stats.sys_writes;
    ferry_coll_strategy chosen;
    int cb_nodes = 0;
    char reason_buf[FERRY_REASON_LEN];
    const char *reason = reason_buf; /* fixed reasons point at literals: no formatting per call */
    ferry_runs runs = {0};
    int have_runs = 0;
    double start = ferry_now();
    double once = 0; /* what this call paid that the pattern's next calls will not: left out of its time */
    double fresh = 0; /* buffers made, once per process (buffers.h): the ranks that waited for them paid it too */
    ferry_learn_slot *fast = want == FERRY_COLL_AUTO && c->fast_independent[dir] ? c->fast_slot[dir] : NULL;
    if (want == FERRY_COLL_INDEPENDENT ||
        (want == FERRY_COLL_AUTO && c->fast_independent[dir] && (!fast || ferry_learn_repeat(learner, fast, max_trials)))) {
        chosen = FERRY_COLL_INDEPENDENT;
        slot = fast;
        /* the reason that decided it still holds: say it, then the reuse
         * (formatted once, when it was decided) */
        reason = want == FERRY_COLL_INDEPENDENT ? "requested by hint" : c->decided[dir];
        if (code == MPI_SUCCESS)
            code = ferry_strategy_independent(f, x, 1, done);
    } else {
        int rc = ferry_runs_build(&runs, &f->view, x->pos, code == MPI_SUCCESS ? x->bytes : 0);
        have_runs = 1;
        if (code == MPI_SUCCESS)
            code = rc;
        ferry_pattern pat;
        double t0 = ferry_now();
        code = ferry_pattern_agree(f, code, &runs, c->have_last[dir] ? &c->last_runs[dir] : NULL, &pat);
        const ferry_nodes *nodes = nodes_of(f, c);
        start = ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0); /* the ranks have met: time the I/O from here */
        chosen = want;
        if (want == FERRY_COLL_AUTO) {
            chosen = ferry_auto_choose(f, &pat, nodes, x->is_write, reason_buf, sizeof reason_buf);
            if (learning && pat.err == MPI_SUCCESS && nodes) {
                ferry_learn_ctx ctx;
                char rule_why[FERRY_REASON_LEN];
                memcpy(rule_why, reason_buf, sizeof rule_why);
                ferry_learn_setup(&ctx, f, &pat, nodes, x->is_write, chosen, rule_why);
                ctx.known = &f->known;
                slot = ferry_learn_pick(learner, &ctx, reason_buf, sizeof reason_buf);
                if (slot) {
                    chosen = slot->opt[slot->running].s;
                    cb_nodes = slot->opt[slot->running].cb_nodes;
                }
            }
        } else if (want == FERRY_COLL_LOCAL && ferry_auto_local_collapses(f, &pat, nodes, reason_buf, sizeof reason_buf))
            chosen = FERRY_COLL_TWOPHASE; /* BT-IO on the testbed: local 1.1 MiB/s, two-phase 79 */
        else
            reason = "requested by hint";
        if (chosen == FERRY_COLL_LOCAL && code == MPI_SUCCESS && nodes) {
            double w0 = ferry_now();
            int usable = ferry_local_usable(f, nodes, &c->win);
            /* the node window is made once per open: what learning compares
             * is what the option costs the calls still to come, so the clock
             * starts after it (a trial of local was charged it, and lost to
             * options it beats on every later call) */
            once += ferry_now() - w0;
            start += ferry_now() - w0;
            if (!usable) {
                /* every rank learnt it in the same reduction */
                chosen = FERRY_COLL_TWOPHASE;
                reason = "no node-shared memory window (the MPI library's one-sided component refused): two-phase";
            }
        }
        if (chosen == FERRY_COLL_LOCAL && f->atomic && x->is_write) {
            /* nodes write their aggregates independently, so overlapping
             * writes of two nodes could interleave; two-phase orders them */
            chosen = FERRY_COLL_TWOPHASE;
            reason = "atomic mode: two-phase orders overlapping writes, local cannot";
        }
        if (slot && slot->trial && dir && chosen != FERRY_COLL_INDEPENDENT && !f->fs.coherent_cache && f->size > 1)
            code = flush_before_trial(f, code, &start);
        if (code == MPI_SUCCESS) {
            if (!nodes)
                code = ferry_err(MPI_ERR_INTERN, "could not map ranks to nodes");
            else if (chosen == FERRY_COLL_TWOPHASE) {
                code = twophase_with(f, x, &runs, &pat, nodes, &c->memo[dir], cb_nodes, done);
                fresh = c->memo[dir].fresh;
                /* the lists' exchange is kept for the pattern's next calls
                 * when it repeats: learning compares what is still to come */
                if (slot && pat.repeats) {
                    once += c->memo[dir].listed;
                    start += c->memo[dir].listed;
                }
            } else if (chosen == FERRY_COLL_LOCAL) {
                code = ferry_local(f, x, &runs, nodes, &c->win, done);
            } else {
                code = ferry_strategy_independent(f, x, 1, done);
            }
        }
    }
    ferry_stats_strategy(&f->stats, kind, ferry_coll_strategy_name(chosen), reason);

    /* One allreduce: the outcome, whether any rank's pattern changed, the
     * call's time on its slowest rank (what learning compares), what it
     * paid once (what a trial costs the run beyond that), what made new
     * buffers (the same, once per process), and how far
     * the ranks wrote: after a collective write the file reaches there, so
     * no rank's client may cut a read short of it (an aggregator reading
     * what ranks wrote independently in the last call: learning tries one
     * strategy for writes and another for reads). */
    double t0 = ferry_now();
    int64_t in[6] = {ferry_err_class(code), changed, (int64_t)((t0 - start) * 1e9), ferry_coh_written_end(&f->fd),
                     (int64_t)(once * 1e9), (int64_t)(fresh * 1e9)},
            out[6] = {in[0], in[1], in[2], in[3], in[4], in[5]};
    if (f->size > 1)
        MPI_Allreduce(in, out, 6, MPI_INT64_T, MPI_MAX, f->comm);
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    /* kept only after a call that succeeded everywhere, so every rank keeps alike */
    int ok = code == MPI_SUCCESS && out[0] == MPI_SUCCESS;
    int64_t max_ns = out[2];
    if (ok && dir)
        ferry_consist_after_aggregated_write(f, 0, 0, out[3]);
    /* chosen is the same on every rank (from the agreed pattern), so all take part */
    if (ok && dir && f->size > 1 && !f->fs.coherent_cache && chosen != FERRY_COLL_INDEPENDENT) {
        code = flush_for_others(f, f->stats.sys_writes != writes_before, &runs, start, &max_ns);
        ok = code == MPI_SUCCESS;
    }
    /* every rank passes the same times, or -1 on every rank for a failed call */
    /* the slowest rank may be one that waited for an aggregator's new
     * buffers rather than the aggregator: the wait is taken off the maximum */
    max_ns = max_ns > out[5] ? max_ns - out[5] : 0;
    if (ok)
        ferry_learn_paid_once(slot, (double)(out[4] + out[5]) * 1e-9);
    ferry_learn_done(learner, slot, ok ? (double)max_ns * 1e-9 : -1.0);
    int was_fast = c->fast_independent[dir];
    c->fast_independent[dir] = chosen == FERRY_COLL_INDEPENDENT && !out[1] && want == FERRY_COLL_AUTO &&
                               (!slot || (slot->opt[slot->chosen].s == FERRY_COLL_INDEPENDENT &&
                                          ferry_learn_steady(slot, max_trials)));
    c->fast_slot[dir] = c->fast_independent[dir] ? slot : NULL;
    if (c->fast_independent[dir] && (!was_fast || reason != c->decided[dir])) {
        /* what was learned, not the trial; a reason is never cut: without
         * the remark if both do not fit */
        const char *why = slot ? slot->why : reason;
        if (strlen(why) + sizeof " (same pattern as the last call)" <= sizeof c->decided[dir])
            snprintf(c->decided[dir], sizeof c->decided[dir], "%s (same pattern as the last call)", why);
        else
            snprintf(c->decided[dir], sizeof c->decided[dir], "%s", why);
    }
    c->have_last[dir] = ok && have_runs && ferry_runs_copy(&c->last_runs[dir], &runs) == MPI_SUCCESS;
    if (!ok || chosen != FERRY_COLL_TWOPHASE)
        c->memo[dir].valid = 0;
    ferry_runs_free(&runs);
    if (code != MPI_SUCCESS) {
        if (dir)
            *done = 0;
        return code;
    }
    if (out[0] != MPI_SUCCESS) {
        if (dir)
            *done = 0;
        return ferry_err((int)out[0], "the collective call failed on another rank");
    }
    return MPI_SUCCESS;
}
