/* Learning (learn/learner.c), fed synthetic patterns and synthetic call
 * times: which options a pattern gets, that the first call keeps the rules'
 * (or the store's) choice, that trials stay within the cap however long the
 * run and however noisy the times, that the fastest option is kept and a
 * change of load is noticed, and what the store is given. No MPI calls. */
#include "strategy/learn_options.h"
#include "unit/check.h"
#include "unit/strategy_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ferry_learn_setup with what the options come from kept for the test's
 * ctx (one at a time) */
static void learn_setup(ferry_learn_ctx *c, const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes,
                        int is_write, ferry_coll_strategy rule, const char *why)
{
    static ferry_learn_from from;
    from = (ferry_learn_from){f, p, nodes, rule};
    ferry_learn_setup(c, &from, is_write, why);
}

static int has(const ferry_learn_ctx *c, int s, int cb)
{
    for (int i = 0; i < c->nopt; i++)
        if (c->opt[i].s == s && c->opt[i].cb_nodes == cb)
            return 1;
    return 0;
}

static void options(void)
{
    ferry_learn_ctx c;
    /* BT-IO-like: 8 ranks on one node of a local file system, small interleaved pieces */
    ferry_file *loc = file_of(FERRY_FS_CLASS_LOCAL, 8);
    ferry_nodes one = nodes_of(8, 1), four = nodes_of(8, 4);
    ferry_pattern bt = pat(8, 200, 480, 8 * 200 * 480, 8 * 200 * 480);
    learn_setup(&c, loc, &bt, &one, 1, FERRY_COLL_LOCAL, "local: rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt == 3 && c.opt[0].s == FERRY_COLL_LOCAL); /* the rules' choice first */
    CHECK(has(&c, FERRY_COLL_INDEPENDENT, 0) && has(&c, FERRY_COLL_TWOPHASE, 0));
    CHECK(c.key.write == 1 && c.key.ranks == 8 && c.key.nodes == 1 && c.key.bytes == bt.bytes);
    CHECK_STR(c.key.fs, "tmpfs");
    CHECK_STR(c.key.mount, "/mnt/x");
    /* the same on 4 nodes of one host and a large extent: one aggregator is tried too */
    ferry_pattern big = pat(8, 4096, 480, 8 * 4096 * 480, 8 * 4096 * 480);
    four.one_host = 1;
    learn_setup(&c, loc, &big, &four, 1, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(has(&c, FERRY_COLL_TWOPHASE, 1) && has(&c, FERRY_COLL_LOCAL, 0));
    /* ... but not on 4 real nodes, where one aggregator is one node's link */
    four.one_host = 0;
    learn_setup(&c, loc, &big, &four, 1, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(!has(&c, FERRY_COLL_TWOPHASE, 1) && has(&c, FERRY_COLL_LOCAL, 0));
    four.one_host = 1;
    /* ... not when the program set cb_nodes */
    loc->hints.cb_nodes = 2;
    learn_setup(&c, loc, &big, &four, 1, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(!has(&c, FERRY_COLL_TWOPHASE, 1));
    loc->hints.cb_nodes = 0;
    /* atomic writes: never local */
    loc->atomic = 1;
    learn_setup(&c, loc, &bt, &one, 1, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(!has(&c, FERRY_COLL_LOCAL, 0));
    loc->atomic = 0;
    /* one rank per node: nothing to merge on a node */
    ferry_nodes each = nodes_of(8, 8);
    learn_setup(&c, loc, &bt, &each, 1, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(!has(&c, FERRY_COLL_LOCAL, 0));
    /* IOR's segmented calls: pieces far apart, nothing to try */
    ferry_pattern ior = pat(8, 1, 64 * KiB, 8 * MiB, 64 * KiB);
    learn_setup(&c, loc, &ior, &one, 1, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt == 1);
    /* IOR's 1 MiB transfers side by side: each request already large, nothing to try */
    ferry_pattern ior1m = pat(8, 1, MiB, 8 * MiB, MiB);
    learn_setup(&c, loc, &ior1m, &one, 1, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt == 1);
    /* ... below a MiB, side by side, merging is tried */
    ferry_pattern ior256k = pat(8, 1, 256 * KiB, 2 * MiB, 256 * KiB);
    learn_setup(&c, loc, &ior256k, &one, 1, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt > 1);
    /* one rank with data: nothing to combine */
    ferry_pattern lone = pat(1, 100, 4 * KiB, 400 * KiB, 400 * KiB);
    learn_setup(&c, loc, &lone, &one, 1, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt == 1);
    /* a network file system: small interleaved pieces are never sent one by one */
    ferry_file *net = file_of(FERRY_FS_CLASS_PARALLEL, 8);
    learn_setup(&c, net, &bt, &four, 0, FERRY_COLL_TWOPHASE, "rule");
    ferry_learn_worth(&c);
    CHECK(!has(&c, FERRY_COLL_INDEPENDENT, 0) && has(&c, FERRY_COLL_TWOPHASE, 0));
    CHECK(c.key.write == 0);
    /* large pieces on it are */
    ferry_pattern hacc = pat(8, 9, 206 * KiB, 8 * 9 * 206 * KiB, 8 * 9 * 206 * KiB);
    learn_setup(&c, net, &hacc, &four, 0, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(has(&c, FERRY_COLL_INDEPENDENT, 0) && has(&c, FERRY_COLL_TWOPHASE, 0));
    /* side by side MiB pieces there too: nothing to try */
    learn_setup(&c, net, &ior1m, &four, 0, FERRY_COLL_INDEPENDENT, "rule");
    ferry_learn_worth(&c);
    CHECK(c.nopt == 1);
    free(one.node_of);
    free(four.node_of);
    free(each.node_of);
    free(loc);
    free(net);
}

/* A context with options A (the rules'), B, C. */
static ferry_learn_ctx ctx3(int max_trials, ferry_learn_mode mode)
{
    ferry_learn_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = mode;
    c.max_trials = max_trials;
    snprintf(c.key.fs, sizeof c.key.fs, "tmpfs");
    c.key.ranks = 4;
    c.key.nodes = 1;
    c.key.bytes = 12345;
    c.key.write = 1;
    c.nopt = 3;
    c.opt[0].s = FERRY_COLL_LOCAL;
    c.opt[1].s = FERRY_COLL_INDEPENDENT;
    c.opt[2].s = FERRY_COLL_TWOPHASE;
    c.rule = 0;
    c.rule_why = "local: the rules";
    return c;
}

static unsigned rng = 12345;
static double noise(void)
{
    rng = rng * 1103515245u + 12345u;
    return (double)(rng >> 8) / (double)(1u << 24);
}

/* n calls; cost[i] = seconds of option i (times (1 + jitter*noise)).
 * Returns the calls per option through *ran; the last option in *last. */
static void run(ferry_learner *l, ferry_learn_ctx *c, const double *cost, double jitter, int n, int *ran,
                int *last, int *trials)
{
    char why[FERRY_REASON_LEN];
    for (int k = 0; k < n; k++) {
        ferry_learn_slot *s = ferry_learn_pick(l, c, why, sizeof why);
        CHECK(s != NULL);
        if (!s)
            return;
        int o = s->running;
        if (ran)
            ran[o]++;
        *last = o;
        ferry_learn_done(l, s, cost[o] * (1 + jitter * noise()));
        *trials = s->trials;
    }
}

static void learning(void)
{
    char why[FERRY_REASON_LEN];
    /* the first call keeps the rules' choice and says why; then each other
     * option once (explore: no budget) */
    ferry_learner l;
    memset(&l, 0, sizeof l);
    ferry_learn_ctx c = ctx3(8, FERRY_LEARN_EXPLORE);
    double cost[3] = {3e-3, 1e-3, 2e-3};
    ferry_learn_slot *s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s && s->running == 0 && s->trial == 0);
    CHECK_STR(why, "local: the rules");
    ferry_learn_done(&l, s, cost[0]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 1 && s->trial == 1);
    CHECK_MSG(strstr(why, "trial 1 of at most 8 (repeated pattern)") != NULL, "%s", why);
    ferry_learn_done(&l, s, cost[1]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 2 && s->trial == 1);
    ferry_learn_done(&l, s, cost[2]);
    /* the rules' choice again: its only call was the file's first, which
     * costs more whatever runs it; no trial */
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 0 && s->trial == 0 && s->state == FERRY_LEARN_TRYING);
    CHECK_MSG(strstr(why, "measured again after the trials") != NULL, "%s", why);
    ferry_learn_done(&l, s, cost[0]);
    /* settled on the fastest, with the measured ratio against the slowest */
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 1 && s->trial == 0 && s->state == FERRY_LEARN_SETTLED);
    CHECK_MSG(strstr(why, "3.00x faster than local") != NULL, "%s", why);
    ferry_learn_done(&l, s, cost[1]);

    /* auto: a trial is counted before it runs as one more call of the
     * fastest option known, and waits until that is within a tenth of the
     * pattern's time: 10 calls of the rules' choice (11: no tie to
     * round), then the others */
    memset(&l, 0, sizeof l);
    c = ctx3(8, FERRY_LEARN_AUTO);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    ferry_learn_done(&l, s, cost[0]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 0 && !s->trial);
    CHECK_MSG(strstr(why, "the next trial waits for the pattern's time") != NULL, "%s", why);
    ferry_learn_done(&l, s, cost[0]);
    int gl = -1, gt = 0, gran[3] = {0};
    run(&l, &c, cost, 0, 9, gran, &gl, &gt);
    CHECK_MSG(gran[0] == 9 && gt == 0, "%d %d", gran[0], gt);
    run(&l, &c, cost, 0, 3, gran, &gl, &gt);
    CHECK_MSG(gran[1] == 2 && gran[2] == 1 && gt == 2 && gl == 1, "%d %d %d", gran[1], gran[2], gt);
    CHECK(l.slot[0].state == FERRY_LEARN_SETTLED && l.slot[0].chosen == 1);

    /* what a trial paid once (local's node window: 30 ms here) is left out
     * of its time, but the run paid it: it is trial cost, and the next
     * trial waits for the pattern's time to pay for it too */
    memset(&l, 0, sizeof l);
    run(&l, &c, cost, 0, 11, NULL, &gl, &gt);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->trial && s->running == 1);
    double before = s->spent;
    ferry_learn_paid_once(s, 30e-3);
    ferry_learn_done(&l, s, cost[1]);
    CHECK_MSG(fabs(s->overhead - 30e-3) < 1e-9 && fabs(s->spent - before - 31e-3) < 1e-9, "%g %g", s->overhead,
              s->spent - before);
    CHECK(s->opt[1].best == cost[1]); /* ... and not in what the option is compared by */
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(!s->trial && s->running == 1, "%d %d", s->trial, s->running);
    ferry_learn_done(&l, s, cost[1]);
    ferry_learn_paid_once(NULL, 1.0); /* no slot: nothing */

    /* the file's first call costs 2-3x whatever runs it: the rules' choice,
     * measured only there, is measured again before another can win */
    memset(&l, 0, sizeof l);
    c = ctx3(8, FERRY_LEARN_EXPLORE); /* under auto its first call is never its only one */
    double fair[3] = {1e-3, 1.5e-3, 2e-3};
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    ferry_learn_done(&l, s, 3 * fair[s->running]);
    int wl = -1, wt = 0, wran[3] = {0};
    run(&l, &c, fair, 0, 20, wran, &wl, &wt);
    CHECK_MSG(wl == 0 && wran[0] == 18 && wt == 2, "%d %d %d %d", wl, wran[0], wran[1], wran[2]);

    /* bounded: however long and noisy the run, trials never pass the cap */
    for (int cap = 0; cap <= 6; cap++) {
        memset(&l, 0, sizeof l);
        c = ctx3(cap, FERRY_LEARN_AUTO);
        int ran[3] = {0}, last = -1, trials = 0;
        run(&l, &c, cost, 4.0, 5000, ran, &last, &trials);
        CHECK_MSG(trials <= cap, "cap %d: %d trials", cap, trials);
        CHECK(ran[0] + ran[1] + ran[2] == 5000);
        if (cap == 0)
            CHECK(ran[0] == 5000); /* no trials: the rules' choice throughout */
    }
    /* with little noise the fastest is found and kept */
    memset(&l, 0, sizeof l);
    c = ctx3(8, FERRY_LEARN_AUTO);
    int ran[3] = {0}, last = -1, trials = 0;
    run(&l, &c, cost, 0.05, 1000, ran, &last, &trials);
    CHECK_MSG(last == 1 && ran[1] > 980, "%d %d", last, ran[1]);
    /* ... and options that could not win are not called again to check */
    CHECK_MSG(trials == 2, "%d trials", trials);
    /* the rules' choice stays unless another is at least 5 % faster */
    memset(&l, 0, sizeof l);
    double close[3] = {1.00e-3, 0.97e-3, 2e-3};
    run(&l, &c, close, 0, 100, NULL, &last, &trials);
    CHECK(last == 0);

    /* options are compared by what they typically do, not by their fastest
     * call: one lucky call among the kept option's many (0.4 ms where it
     * takes 1 ms) must not beat a trial that is 20 % faster on every call */
    memset(&l, 0, sizeof l);
    double steady[3] = {1e-3, 0.8e-3, 2e-3};
    for (int k = 0; k < 30; k++) {
        s = ferry_learn_pick(&l, &c, why, sizeof why);
        ferry_learn_done(&l, s, s->running == 0 && k == 3 ? 0.4e-3 : steady[s->running]);
    }
    CHECK_MSG(l.slot[0].state == FERRY_LEARN_SETTLED && l.slot[0].chosen == 1, "state %d chose %d: %s",
              l.slot[0].state, l.slot[0].chosen, l.slot[0].why);
    CHECK_MSG(l.slot[0].opt[0].best == 0.4e-3 && ferry_learn_typical(&l.slot[0].opt[0]) == 1e-3, "%g %g",
              l.slot[0].opt[0].best, ferry_learn_typical(&l.slot[0].opt[0]));
    CHECK_MSG(strstr(l.slot[0].why, "1.25x faster than local") || strstr(l.slot[0].why, "2.50x faster than twophase"),
              "%s", l.slot[0].why);

    /* the budget: after a trial 50x slower than the rules' choice, the next
     * waits until the pattern's time pays for it (a tenth of it) */
    memset(&l, 0, sizeof l);
    double awful[3] = {1e-3, 50e-3, 0.5e-3};
    int rb[3] = {0};
    run(&l, &c, awful, 0, 20, rb, &last, &trials);
    CHECK_MSG(rb[1] == 1 && rb[2] == 0 && last == 0, "%d %d %d", rb[0], rb[1], rb[2]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(strstr(why, "the next trial waits") != NULL, "%s", why);
    ferry_learn_done(&l, s, awful[s->running]);
    run(&l, &c, awful, 0, 1000, rb, &last, &trials);
    CHECK(rb[1] == 1 && last == 2);
    CHECK_MSG(l.slot[0].overhead <= 0.1 * l.slot[0].spent + 49e-3, "%g of %g", l.slot[0].overhead, l.slot[0].spent);

    /* a change of load: the kept option becomes 10x slower; re-checks notice */
    memset(&l, 0, sizeof l);
    c = ctx3(8, FERRY_LEARN_AUTO);
    run(&l, &c, cost, 0, 50, NULL, &last, &trials);
    CHECK(last == 1);
    double later[3] = {3e-3, 10e-3, 2e-3};
    int ran2[3] = {0};
    run(&l, &c, later, 0, 50, ran2, &last, &trials);
    CHECK_MSG(last == 2, "after the change: option %d", last);
    CHECK(ran2[1] <= 4); /* two slow calls bring the re-check forward */
    CHECK(trials <= 8);

    /* reuse: no trials ever; off: nothing to learn */
    memset(&l, 0, sizeof l);
    c = ctx3(8, FERRY_LEARN_REUSE);
    int ran3[3] = {0};
    run(&l, &c, cost, 0, 100, ran3, &last, &trials);
    CHECK(ran3[0] == 100 && trials == 0);
    c = ctx3(8, FERRY_LEARN_OFF);
    CHECK(ferry_learn_pick(&l, &c, why, sizeof why) == NULL);
    c = ctx3(8, FERRY_LEARN_AUTO);
    c.nopt = 1;
    CHECK(ferry_learn_pick(&l, &c, why, sizeof why) == NULL);

    /* two patterns at once, each learned apart; decisions leave a digest, the same for the same inputs */
    ferry_learner a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ferry_learn_ctx c1 = ctx3(8, FERRY_LEARN_AUTO), c2 = ctx3(8, FERRY_LEARN_AUTO);
    c2.key.bytes = 999;
    double cost2[3] = {1e-3, 5e-3, 4e-3};
    for (int k = 0; k < 40; k++) {
        ferry_learner *ls[2] = {&a, &b};
        for (int j = 0; j < 2; j++) {
            ferry_learn_slot *s1 = ferry_learn_pick(ls[j], &c1, why, sizeof why);
            ferry_learn_done(ls[j], s1, cost[s1->running]);
            ferry_learn_slot *s2 = ferry_learn_pick(ls[j], &c2, why, sizeof why);
            ferry_learn_done(ls[j], s2, cost2[s2->running]);
        }
    }
    CHECK(a.digest == b.digest && a.digest != 0);
    int used = 0;
    for (int i = 0; i < FERRY_LEARN_SLOTS; i++)
        if (a.slot[i].used) {
            used++;
            CHECK(a.slot[i].chosen == (a.slot[i].key.bytes == 999 ? 0 : 1));
        }
    CHECK(used == 2);
}

static void store(void)
{
    char why[FERRY_REASON_LEN];
    ferry_learner l;
    memset(&l, 0, sizeof l);
    ferry_learn_ctx c = ctx3(8, FERRY_LEARN_AUTO);
    double cost[3] = {3e-3, 1e-3, 2e-3};
    int last, trials;
    run(&l, &c, cost, 0, 14, NULL, &last, &trials);
    /* what the store is given: the key, the choice, every option measured */
    ferry_learned_entry e;
    CHECK(ferry_learn_entry(&l.slot[0], FERRY_LEARN_AUTO, &e) == 1);
    CHECK(ferry_learned_key_equal(&e.key, &c.key));
    CHECK_STR(e.choice.strategy, "independent");
    CHECK(e.ntried == 3);
    CHECK_STR(e.source, "online");
    /* ... and the budget, over runs */
    CHECK(e.spent > 0 && fabs(e.spent - l.slot[0].spent) < 1e-12 && e.overhead == l.slot[0].overhead);
    CHECK(!ferry_learn_entry(&l.slot[0], FERRY_LEARN_REUSE, &e)); /* reuse adds nothing */

    /* the next run starts from it: the store's choice at once, no trials */
    ferry_learned known = {&e, 1, 1, 0};
    memset(&l, 0, sizeof l);
    c.known = &known;
    ferry_learn_slot *s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->running == 1 && !s->trial && s->from_store);
    CHECK_MSG(strstr(why, "learned in an earlier run (online)") != NULL, "%s", why);
    ferry_learn_done(&l, s, cost[1]);
    int ran[3] = {0};
    run(&l, &c, cost, 0, 7, ran, &last, &trials);
    CHECK(ran[1] == 7 && trials == 0);

    /* a store whose choice was kept within a margin, or is slower than
     * another option it measured, says so (not "0.91x faster") */
    ferry_learned_entry slow = e;
    for (int t = 0; t < slow.ntried; t++)
        if (!strcmp(slow.tried[t].opt.strategy, "independent"))
            slow.tried[t].seconds = 3.3e-3;
    ferry_learned slow_known = {&slow, 1, 1, 0};
    memset(&l, 0, sizeof l);
    c.known = &slow_known;
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(s->running == 1 && strstr(why, "learned in an earlier run (online): 1.10x the time of local") != NULL,
              "%s", why);
    c.known = &known;

    /* a store that knew only two options: the next run starts from the
     * best known and tries the third on a repeat */
    e.ntried = 2;
    e.spent = 10e-3;
    e.overhead = 0;
    memset(&l, 0, sizeof l);
    int ran2[3] = {0};
    run(&l, &c, cost, 0, 5, ran2, &last, &trials);
    CHECK(ran2[1] == 4 && ran2[2] == 1 && trials == 1 && l.slot[0].first == 1);
    /* ... not when the earlier runs' trials used up their budget */
    e.overhead = 5e-3;
    memset(&l, 0, sizeof l);
    int ran3[3] = {0};
    run(&l, &c, cost, 0, 5, ran3, &last, &trials);
    CHECK(ran3[1] == 5 && trials == 0);
    /* an entry with nothing left to learn and nothing new: not written again */
    e.ntried = 3;
    memset(&l, 0, sizeof l);
    run(&l, &c, cost, 0, 3, NULL, &last, &trials);
    CHECK(trials == 0 && !ferry_learn_entry(&l.slot[0], FERRY_LEARN_AUTO, &e));
    /* explore: no budget, and a pattern seen again tries what is left at
     * its first call (a pattern seen once per run learns over runs) */
    e.ntried = 2;
    c.mode = FERRY_LEARN_EXPLORE;
    memset(&l, 0, sizeof l);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s->trial && s->running == 2);
    CHECK_MSG(strstr(why, "continued from an earlier run") != NULL, "%s", why);
    /* auto: the first call takes the best known */
    c.mode = FERRY_LEARN_AUTO;
    e.overhead = 0;
    memset(&l, 0, sizeof l);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(!s->trial && s->running == 1);
    /* ... and a pattern of one call a run, which leaves the third untried
     * again, gives the store nothing new: not written again either */
    ferry_learn_done(&l, s, cost[1]);
    ferry_learned_entry again;
    CHECK(!ferry_learn_entry(&l.slot[0], FERRY_LEARN_AUTO, &again));
    /* the same pattern in a run without the store is kept (its untried
     * options are left for the next run) */
    c.known = NULL;
    memset(&l, 0, sizeof l);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    ferry_learn_done(&l, s, cost[s->running]);
    CHECK(ferry_learn_entry(&l.slot[0], FERRY_LEARN_AUTO, &again) == 1);

    /* a pattern of 4 calls a run: no trial in its first run; each run
     * hands its time on through the store, and a later run's trials are
     * paid by it */
    ferry_learned_entry kept;
    ferry_learned prev = {&kept, 1, 1, 0};
    int tried_in = -1;
    for (int r = 0; r < 6; r++) {
        c.known = r ? &prev : NULL;
        memset(&l, 0, sizeof l);
        run(&l, &c, cost, 0, 4, NULL, &last, &trials);
        if (trials && tried_in < 0)
            tried_in = r;
        ferry_learned_entry next;
        int wrote = ferry_learn_entry(&l.slot[0], FERRY_LEARN_AUTO, &next);
        CHECK_MSG(wrote || r > tried_in, "run %d: not written", r);
        if (wrote)
            kept = next;
        CHECK_MSG(kept.spent > (r + 1) * 4 * 0.9e-3, "run %d: %g", r, kept.spent);
    }
    CHECK_MSG(tried_in >= 1 && tried_in <= 3, "first trial in run %d", tried_in);
    CHECK_STR(kept.choice.strategy, "independent");
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* Every reason learning gives reaches the statistics whole, with the
 * longest rule's reason auto gives (learn/learner.h) and the longest
 * option names: the reason a call records (a FERRY_REASON_LEN buffer) and
 * the slot's own ends as its sentence ends. */
static void whole_reasons(void)
{
    char rule[FERRY_RULE_WHY_MAX + 1];
    memset(rule, 'r', FERRY_RULE_WHY_MAX);
    rule[FERRY_RULE_WHY_MAX] = '\0';
    char why[FERRY_REASON_LEN];
    ferry_learner l;
    memset(&l, 0, sizeof l);
    ferry_learn_ctx c = ctx3(8, FERRY_LEARN_AUTO);
    c.rule_why = rule;
    c.opt[1].cb_nodes = 1048576; /* "twophase cb_nodes=1048576" */
    c.opt[1].s = FERRY_COLL_TWOPHASE;
    c.opt[2].cb_nodes = 2097152;
    double cost[3] = {1e-3, 3e-3, 2e-3};
    ferry_learn_slot *s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_STR(why, rule);
    ferry_learn_done(&l, s, cost[0]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(ends_with(why, "the next trial waits for the pattern's time (at most 10% of it)"), "%s", why);
    ferry_learn_done(&l, s, cost[0]);
    /* explore: every option once, the rules' again, then settled */
    memset(&l, 0, sizeof l);
    c.mode = FERRY_LEARN_EXPLORE;
    for (int k = 0; k < 3; k++) {
        s = ferry_learn_pick(&l, &c, why, sizeof why);
        ferry_learn_done(&l, s, cost[s->running]);
    }
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(!strncmp(why, rule, strlen(rule)) &&
                  ends_with(why, ", measured again after the trials (its only call was the file's first)"),
              "%s", why);
    ferry_learn_done(&l, s, cost[s->running]);
    s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK_MSG(s->state == FERRY_LEARN_SETTLED && ends_with(why, "faster than twophase cb_nodes=1048576 (3 of 3 options measured)"),
              "%s", why);
    CHECK(ends_with(s->why, "(3 of 3 options measured)"));
    ferry_learn_done(&l, s, cost[s->running]);
}

int main(void)
{
    whole_reasons();
    options();
    learning();
    store();
    if (check_failures) {
        fprintf(stderr, "test_learn: %d checks failed\n", check_failures);
        return 1;
    }
    printf("test_learn: passed\n");
    return 0;
}
