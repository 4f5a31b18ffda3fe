/*
 * Learning which collective strategy a repeated pattern runs fastest with
 * (learner.h). Everything here is a pure function of agreed inputs, so the
 * ranks walk through the same states without talking.
 */
#include "learn/learner.h"
#include "util/fnv.h"

#include <stdio.h>
#include <string.h>

#define FIRST_GAP 8   /* calls between settling and the first re-check; doubles after each */
#define MAX_GAP 256
#define SWITCH 0.9    /* another option must be 10 % faster to take over at a re-check */
#define KEEP_RULE 1.05 /* the rules' choice stays unless another is 5 % faster */
#define SLOWER 2.0    /* calls this much slower than the kept option's best ask for a re-check */
#define SHARE 0.1     /* trials take at most this share of the pattern's time, beyond the first */

ferry_coll_option ferry_learn_option(const ferry_learn_opt *o)
{
    ferry_coll_option c = {o->s, o->cb_nodes};
    return c;
}

void ferry_learn_opt_name(const ferry_learn_opt *o, char *buf, size_t cap)
{
    ferry_coll_option c = ferry_learn_option(o);
    ferry_coll_option_name(&c, buf, cap);
}

static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int ferry_learn_worth(ferry_learn_ctx *ctx)
{
    if (ctx->work_out)
        ctx->work_out(ctx);
    return ctx->nopt > 1;
}

/* ---- the learner ---- */

/* h extended by the 8 bytes of v, low byte first on every host */
static uint64_t mix(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return ferry_fnv(h, b, sizeof b);
}

static void note_decision(ferry_learner *l, const ferry_learn_slot *s)
{
    l->digest = mix(mix(l->digest, (uint64_t)(s - l->slot)), (uint64_t)(s->running * 2 + s->trial));
}

/* What an option does now, and what options are compared by: the median of
 * its last three calls (of two, the faster; one slow call is noise, two are
 * the load). Not its fastest call: the option kept runs many calls and a
 * trial one, and the fastest of many noisy calls beats one call of an option
 * as fast (on this host calls of one option spread 1.5-3x, so a trial had to
 * be about twice as fast to win: BT-IO writes, Open MPI on /dev/shm, kept
 * independent "2.22x faster than twophase" where two-phase was 1.4x faster
 * forced; bench/results/learn.md). Before this run's first call: the store's. */
static double typical(const ferry_learn_opt *o)
{
    if (o->n == 0)
        return o->best;
    if (o->n == 1)
        return o->tail[0];
    double a = o->tail[0], b = o->tail[1];
    if (o->n == 2)
        return a < b ? a : b;
    double c = o->tail[2];
    return a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
}

double ferry_learn_typical(const ferry_learn_opt *o) { return typical(o); }

static int known_opt(const ferry_learn_opt *o) { return o->n > 0 || o->prior; }

/* The option a re-check tries: the fastest of the others, if it beats what
 * the kept option does now by 10 % (an option 50x slower on a quiet
 * machine is not worth a call to find out whether it still is). */
static int runner_up(const ferry_learn_slot *s)
{
    int alt = -1;
    for (int i = 0; i < s->nopt; i++)
        if (i != s->chosen && known_opt(&s->opt[i]) && (alt < 0 || typical(&s->opt[i]) < typical(&s->opt[alt])))
            alt = i;
    return alt >= 0 && typical(&s->opt[alt]) * SWITCH < typical(&s->opt[s->chosen]) ? alt : -1;
}

static int untried(const ferry_learn_slot *s)
{
    for (int i = 0; i < s->nopt; i++)
        if (!known_opt(&s->opt[i]))
            return i;
    return -1;
}

/* The option measured only on the file's first call, once the others are
 * tried: the first collective call of a file in a direction costs 2-3x the
 * later ones whatever runs it (BT-IO reads, Open MPI 8 ranks on /dev/shm:
 * 7.7-20 ms, then 3.4-5.5), so against the trials' calls it would lose
 * unheard. It is the rules' choice: running it again is no trial. */
static int warm_only(const ferry_learn_slot *s)
{
    for (int i = 0; i < s->nopt; i++)
        if (s->opt[i].warm && s->opt[i].n == 1)
            return i;
    return -1;
}

static double best_known(const ferry_learn_slot *s)
{
    double b = 0;
    for (int i = 0; i < s->nopt; i++)
        if (known_opt(&s->opt[i]) && (b == 0 || typical(&s->opt[i]) < b))
            b = typical(&s->opt[i]);
    return b;
}

/* Within the cap, and within the budget: what trials cost beyond the
 * fastest option known, the next one counted before it runs, stays below
 * a tenth of the pattern's time. A trial is taken to cost up to one more
 * call of the fastest option: on this host trials ran 1.5-4x it, and a
 * first trial that was free to run cost short patterns their run (IOR's 4
 * calls of 1 MiB read at 0.29x and 0.61x the best, the rules at 0.92x and
 * 0.81x; bench/results/learn.md). So a
 * pattern of a few calls pays no trial in its first run; the store keeps
 * its time, which pays for the trial in a later run. */
static int may_try(const ferry_learn_slot *s, ferry_learn_mode mode, int max_trials)
{
    return mode != FERRY_LEARN_REUSE && mode != FERRY_LEARN_OFF && s->trials < max_trials &&
           (mode == FERRY_LEARN_EXPLORE || s->overhead + best_known(s) <= SHARE * s->spent);
}

/* The fastest option known; the rules' choice unless another is clearly faster. */
static int fastest(const ferry_learn_slot *s)
{
    int b = -1;
    for (int i = 0; i < s->nopt; i++)
        if (known_opt(&s->opt[i]) && (b < 0 || typical(&s->opt[i]) < typical(&s->opt[b])))
            b = i;
    if (b >= 0 && known_opt(&s->opt[s->rule]) && typical(&s->opt[s->rule]) <= typical(&s->opt[b]) * KEEP_RULE)
        b = s->rule;
    return b < 0 ? s->chosen : b;
}

/* "1.80x faster than independent" against the slowest known option. */
static void versus(const ferry_learn_slot *s, int c, char *buf, size_t cap)
{
    int w = -1;
    for (int i = 0; i < s->nopt; i++)
        if (i != c && known_opt(&s->opt[i]) && (w < 0 || typical(&s->opt[i]) > typical(&s->opt[w])))
            w = i;
    if (w < 0 || typical(&s->opt[c]) <= 0) {
        snprintf(buf, cap, "the only option measured");
        return;
    }
    char name[32];
    ferry_learn_opt_name(&s->opt[w], name, sizeof name);
    double x = typical(&s->opt[w]) / typical(&s->opt[c]);
    if (x >= 1)
        snprintf(buf, cap, "%.2fx faster than %s", x, name);
    else /* the rules' or the store's choice, kept within a margin, or slower now than when chosen */
        snprintf(buf, cap, "%.2fx the time of %s", 1 / x, name);
}

static void settle(ferry_learn_slot *s, const char *how)
{
    s->chosen = fastest(s);
    s->state = FERRY_LEARN_SETTLED;
    s->gap = FIRST_GAP;
    s->next_check = s->calls + s->gap;
    int known = 0;
    for (int i = 0; i < s->nopt; i++)
        known += known_opt(&s->opt[i]);
    char vs[64];
    versus(s, s->chosen, vs, sizeof vs);
    snprintf(s->why, sizeof s->why, "%s: %s (%d of %d options measured)", how, vs, known, s->nopt);
}

/* The slot's option the store's `o` is, or -1. */
static int option_of(const ferry_learn_slot *s, const ferry_learned_option *o)
{
    ferry_coll_option c;
    if (ferry_coll_option_from_store(o, &c) != 0)
        return -1;
    for (int i = 0; i < s->nopt; i++)
        if (s->opt[i].s == c.strategy && s->opt[i].cb_nodes == c.cb_nodes)
            return i;
    return -1;
}

static ferry_learn_slot *slot_for(ferry_learner *l, ferry_learn_ctx *ctx)
{
    ferry_learn_slot *s = NULL, *old = &l->slot[0];
    for (int i = 0; i < FERRY_LEARN_SLOTS && !s; i++) {
        if (l->slot[i].used && ferry_learned_key_equal(&l->slot[i].key, &ctx->key))
            return &l->slot[i];
        if (!l->slot[i].used)
            s = &l->slot[i];
        else if (l->slot[i].stamp < old->stamp)
            old = &l->slot[i];
    }
    if (!s)
        s = old; /* the pattern not seen for longest */
    if (ctx->work_out)
        ctx->work_out(ctx); /* now that they are needed */
    if (ctx->nopt < 2)
        return NULL;
    memset(s, 0, sizeof *s);
    s->used = 1;
    s->key = ctx->key;
    s->nopt = ctx->nopt;
    memcpy(s->opt, ctx->opt, sizeof s->opt);
    s->rule = s->chosen = ctx->rule;
    snprintf(s->rule_why, sizeof s->rule_why, "%s", ctx->rule_why ? ctx->rule_why : "");
    const ferry_learned_entry *e = ferry_learned_find(ctx->known, &ctx->key);
    if (e && ctx->mode != FERRY_LEARN_OFF) {
        for (int t = 0; t < e->ntried; t++) {
            int i = option_of(s, &e->tried[t].opt);
            if (i >= 0) {
                s->opt[i].best = e->tried[t].seconds;
                s->opt[i].prior = 1;
            }
        }
        int i = option_of(s, &e->choice);
        if (i >= 0) {
            s->chosen = i;
            s->from_store = 1;
            s->tuned = !strcmp(e->source, "ferry-tune");
            s->spent = e->spent;
            s->overhead = e->overhead;
            char vs[64];
            versus(s, i, vs, sizeof vs);
            if (!strcmp(e->source, FERRY_LEARNED_THIS_JOB))
                snprintf(s->why, sizeof s->why, "learned by an earlier open in this job: %s", vs);
            else
                snprintf(s->why, sizeof s->why, "learned in an earlier run (%s): %s", e->source, vs);
        }
    }
    return s;
}

ferry_learn_slot *ferry_learn_pick(ferry_learner *l, ferry_learn_ctx *ctx, char *reason, size_t cap)
{
    if (ctx->mode == FERRY_LEARN_OFF || (!ctx->work_out && ctx->nopt < 2))
        return NULL;
    ferry_learn_slot *s = slot_for(l, ctx);
    if (!s)
        return NULL; /* one option: nothing to learn */
    s->stamp = ++l->clock;
    s->calls++;
    int tries = may_try(s, ctx->mode, ctx->max_trials);
    int u = untried(s), run = s->chosen, trial = 0;
    const char *what = "";
    if (s->state == FERRY_LEARN_FIRST) {
        /* explore: a pattern seen in an earlier run takes what that run
         * left untried at once (for a pattern that does not repeat within a
         * run, its only chance). auto keeps the first call of a run for the
         * best option known: a one-off pattern's median over runs stays the
         * rules' or the store's (bench/results/learn.md). */
        if (ctx->mode == FERRY_LEARN_EXPLORE && s->from_store && !s->tuned && u >= 0 && tries)
            run = u, trial = 1, what = "continued from an earlier run";
    } else if (s->state == FERRY_LEARN_TRYING) {
        if (u >= 0 && tries) {
            run = u, trial = 1, what = "repeated pattern";
        } else if (u >= 0 && s->trials < ctx->max_trials && ctx->mode != FERRY_LEARN_REUSE) {
            /* the budget is spent for now: the fastest so far, until the
             * pattern's time pays for another trial (or the next run) */
            s->chosen = fastest(s);
            char vs[64];
            versus(s, s->chosen, vs, sizeof vs);
            snprintf(s->why, sizeof s->why, "fastest so far: %s; the next trial waits for the pattern's time (at most %.0f%% of it)",
                     vs, SHARE * 100);
        } else if (u < 0 && warm_only(s) >= 0) {
            s->chosen = warm_only(s);
            snprintf(s->why, sizeof s->why, "%.*s, measured again after the trials (its only call was the file's first)",
                     FERRY_RULE_WHY_MAX, s->rule_why);
        } else {
            settle(s, "fastest measured");
        }
        if (!trial)
            run = s->chosen;
    } else if (tries && s->calls >= s->next_check) {
        int alt = runner_up(s);
        if (alt >= 0)
            run = alt, trial = 1, what = "re-check";
        else
            s->next_check = s->calls + s->gap; /* nothing could win now: look later */
    }
    s->running = run;
    s->trial = trial;
    s->ref = best_known(s);
    note_decision(l, s);
    char name[32] = "";
    if (trial)
        ferry_learn_opt_name(&s->opt[run], name, sizeof name);
    if (trial)
        snprintf(reason, cap, "trial %d of at most %d (%s): %s", s->trials + 1, ctx->max_trials, what, name);
    else /* every call: a copy, not a format */
        copy(reason, cap, s->state == FERRY_LEARN_FIRST && !s->from_store ? s->rule_why : s->why);
    if (s->calls == 1) {
        s->first = run;
        copy(s->first_why, sizeof s->first_why, reason);
    }
    return s;
}

int ferry_learn_steady(const ferry_learn_slot *s, int max_trials)
{
    return s->state == FERRY_LEARN_SETTLED &&
           !(s->trials < max_trials && s->calls + 1 >= s->next_check && runner_up(s) >= 0);
}

int ferry_learn_repeat(ferry_learner *l, ferry_learn_slot *s, int max_trials)
{
    if (!ferry_learn_steady(s, max_trials))
        return 0;
    s->stamp = ++l->clock;
    s->calls++;
    s->running = s->chosen;
    s->trial = 0;
    note_decision(l, s);
    return 1;
}

void ferry_learn_paid_once(ferry_learn_slot *s, double seconds)
{
    if (!s || seconds <= 0)
        return;
    s->spent += seconds;
    if (s->trial)
        s->overhead += seconds;
}

void ferry_learn_done(ferry_learner *l, ferry_learn_slot *s, double seconds)
{
    (void)l;
    if (!s)
        return;
    ferry_learn_opt *o = &s->opt[s->running];
    if (seconds >= 0) {
        if (o->n == 0 || seconds < o->best || o->warm)
            o->best = seconds; /* this run's measurement replaces the store's, a later call the first */
        o->warm = s->state == FERRY_LEARN_FIRST && !s->from_store && o->n == 0;
        o->prior = 0;
        o->n++;
        o->tail[2] = o->tail[1];
        o->tail[1] = o->tail[0];
        o->tail[0] = seconds;
    }
    if (seconds >= 0)
        s->spent += seconds;
    if (s->trial) {
        s->trials++;
        s->dirty = 1;
        if (seconds > s->ref && s->ref > 0)
            s->overhead += seconds - s->ref;
    }
    ferry_learn_slot *x = s;
    switch (x->state) {
    case FERRY_LEARN_FIRST:
        x->state = FERRY_LEARN_TRYING; /* a repeat tries the others; pick settles when none is left */
        if (x->from_store && (untried(x) < 0 || x->tuned)) {
            /* the store's choice stands (this first call also paid for
             * whatever is done once per file); re-checks will tell */
            x->state = FERRY_LEARN_SETTLED;
            x->gap = FIRST_GAP;
            x->next_check = x->calls + x->gap;
        }
        break;
    case FERRY_LEARN_TRYING:
        break;
    case FERRY_LEARN_SETTLED:
        if (x->trial) {
            ferry_learn_opt *c = &x->opt[x->chosen];
            double now = typical(c);
            if (seconds >= 0 && now > 0 && seconds < now * SWITCH) {
                int was = x->chosen;
                x->chosen = x->running;
                char a[32], b[32];
                ferry_learn_opt_name(&x->opt[was], a, sizeof a);
                ferry_learn_opt_name(o, b, sizeof b);
                snprintf(x->why, sizeof x->why, "re-check after %lld calls: %s now %.2fx faster than %s",
                         (long long)x->calls, b, now / seconds, a);
            }
            x->gap = x->gap * 2 < MAX_GAP ? x->gap * 2 : MAX_GAP;
            x->next_check = x->calls + x->gap;
        } else if (seconds >= 0) {
            /* two slow calls in a row (one is noise): the load may have
             * changed, so look again at the next call */
            x->slow = seconds > SLOWER * o->best && o->n > 1 ? x->slow + 1 : 0;
            if (x->slow >= 2 && x->next_check > x->calls + 1)
                x->next_check = x->calls + 1;
        }
        break;
    }
}

int ferry_learn_entry(const ferry_learn_slot *s, ferry_learn_mode mode, ferry_learned_entry *e)
{
    int measured = 0;
    for (int i = 0; i < s->nopt; i++)
        measured += s->opt[i].n > 0;
    /* kept when something was learned, or something is left for a later
     * run to try: then the pattern's time, which pays for the trials,
     * grows run by run. A pattern the store gave and this run called once,
     * or with nothing left to try, leaves it as it was (rewriting it costs
     * a close milliseconds: lock, parse, write, rename) */
    if (!s->used || mode == FERRY_LEARN_OFF || mode == FERRY_LEARN_REUSE || !measured ||
        !(s->dirty || (untried(s) >= 0 && !s->tuned && (!s->from_store || s->calls > 1))))
        return 0;
    memset(e, 0, sizeof *e);
    e->key = s->key;
    int c = s->state == FERRY_LEARN_SETTLED ? s->chosen : fastest(s);
    ferry_coll_option chosen = ferry_learn_option(&s->opt[c]);
    ferry_coll_option_to_store(&chosen, &e->choice);
    for (int i = 0; i < s->nopt && e->ntried < FERRY_LEARNED_MAX_TRIED; i++) {
        const ferry_learn_opt *o = &s->opt[i];
        if (o->n == 0)
            continue; /* the store keeps what it knew of the others */
        ferry_learned_try *t = &e->tried[e->ntried++];
        ferry_coll_option tried = ferry_learn_option(o);
        ferry_coll_option_to_store(&tried, &t->opt);
        t->seconds = typical(o);
        t->calls = o->n;
    }
    snprintf(e->source, sizeof e->source, "online");
    e->spent = s->spent;
    e->overhead = s->overhead;
    return 1;
}
