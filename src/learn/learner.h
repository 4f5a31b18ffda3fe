/*
 * Learning: `auto` measures instead of guessing. For a collective pattern
 * that repeats, the first call takes the rules' choice (or what the store
 * remembers), the next calls try the other options once each, and the
 * fastest is kept; it is checked again now and then, so a change of load is
 * noticed. Trials take at most a tenth of the time the pattern has taken,
 * in this run and the store's earlier ones (a trial is counted before it
 * runs as one more call of the fastest option), and their number is capped
 * (ferry_learn_trials); what a run leaves untried, a later run tries, from
 * the store.
 *
 * A call's time is the maximum over ranks, which the call's last
 * collective already carries (collective.c). Every input of a decision is
 * agreed (the pattern, that maximum, the hints, the store as rank 0 read it),
 * so every rank takes the same option without a word more. Every option is
 * a correct way to move the bytes: a trial costs speed, never data.
 */
#ifndef FERRY_LEARN_LEARNER_H
#define FERRY_LEARN_LEARNER_H

#include "learn/mode.h"
#include "learn/option.h"
#include "learn/remember.h"
#include "learn/summary.h"

#define FERRY_LEARN_MAX_OPTS 4
#define FERRY_LEARN_SLOTS 4 /* patterns followed at once, per direction */

typedef struct ferry_learn_opt {
    int s;               /* a collective strategy's id (util/strategy_desc.h) */
    int cb_nodes;        /* twophase: aggregators for this option (0: the file's own) */
    double best;         /* fastest call, seconds (this run or, with prior, the store's typical) */
    double tail[3];      /* the last three calls, the latest first: what it does now */
    int64_t n;           /* calls measured in this open */
    int prior;           /* best is the store's */
    int warm;            /* best is only the file's first call (it pays what every option pays once) */
} ferry_learn_opt;

typedef enum { FERRY_LEARN_FIRST = 0, FERRY_LEARN_TRYING, FERRY_LEARN_SETTLED } ferry_learn_state;

/* auto's reasons stay below this (test_auto checks every rule's), so a
 * sentence learning puts around one fits whole in FERRY_REASON_LEN */
#define FERRY_RULE_WHY_MAX 127

typedef struct ferry_learn_slot {
    int used;
    ferry_learned_key key;
    int nopt;
    ferry_learn_opt opt[FERRY_LEARN_MAX_OPTS];
    int rule;            /* the option the rules chose */
    char rule_why[FERRY_REASON_LEN];
    ferry_learn_state state;
    int chosen;
    int running;         /* option of the call in flight */
    int trial;           /* that call is a trial */
    int trials;          /* trial calls spent */
    double spent;        /* seconds of all the pattern's calls */
    double overhead;     /* seconds trials took beyond the fastest option known then */
    double ref;          /* the fastest option known when the trial in flight started */
    int64_t calls;
    int64_t next_check, gap;
    int slow;            /* settled calls in a row much slower than the kept option's best */
    int from_store;
    int tuned;           /* the store's choice came from ferry-tune's search: no trials */
    int dirty;           /* measured something the store should keep */
    int64_t stamp;
    char why[FERRY_REASON_LEN];
    int first;           /* the option the pattern's first call in this open took, and why */
    char first_why[FERRY_REASON_LEN];
} ferry_learn_slot;

typedef struct ferry_learner {
    ferry_learn_slot slot[FERRY_LEARN_SLOTS];
    int64_t clock;
    uint64_t digest;     /* of every decision: the same on every rank */
} ferry_learner;

/* What a decision depends on besides the learner: all of it agreed. */
typedef struct ferry_learn_ctx {
    ferry_learn_mode mode;
    int max_trials;
    const ferry_learned *known;  /* the store's entries for this file system and job (may be NULL) */
    ferry_learned_key key;
    int nopt;
    ferry_learn_opt opt[FERRY_LEARN_MAX_OPTS];
    int rule;
    const char *rule_why;
    /* Works out opt[] and rule (the rules' choice first, then the options
     * worth a trial here) from `from`, only when a pattern is seen for the
     * first time: which strategies can run a call is the strategy layer's
     * to say (strategy/learn_options.c). NULL: opt[] is given as it is. */
    void (*work_out)(struct ferry_learn_ctx *ctx);
    const void *from;
} ferry_learn_ctx;

/* Works out ctx's options now; 1 when there is more than one (tests, and
 * what the options of a pattern are). */
int ferry_learn_worth(ferry_learn_ctx *ctx);

/* The option this call takes, and why (reason, at most cap bytes); works
 * out ctx's options for a pattern seen for the first time. Returns the
 * pattern's slot, or NULL when there is nothing to learn (one option only,
 * or learning off): then the rules' choice stands. Pure. */
ferry_learn_slot *ferry_learn_pick(ferry_learner *l, ferry_learn_ctx *ctx, char *reason, size_t cap);

/* The fast path (collective.c): a call known to repeat the last one on s,
 * which was settled. Returns 0, counting nothing, when s wants this call for
 * a re-check: then it goes through ferry_learn_pick. */
int ferry_learn_repeat(ferry_learner *l, ferry_learn_slot *s, int max_trials);
/* 1 when s will run its settled option on its next call without a trial. */
/* What options are compared by (learn.c): the median of the last three calls. */
double ferry_learn_typical(const ferry_learn_opt *o);
int ferry_learn_steady(const ferry_learn_slot *s, int max_trials);

/* Before ferry_learn_done: what the call on s paid once per open (the node
 * window, a repeating pattern's list exchange), left out of its time, the
 * maximum over ranks. The run paid it: it counts in the pattern's time
 * and, for a trial, in what trials cost. NULL s: nothing. */
void ferry_learn_paid_once(ferry_learn_slot *s, double seconds);

/* The call on slot s is over: `seconds` is its time, the maximum over
 * ranks, or a negative value when it failed (nothing is learned from it).
 * Pure: every rank passes the same numbers. */
void ferry_learn_done(ferry_learner *l, ferry_learn_slot *s, double seconds);

/* The entry the store should keep for s; 0 when there is nothing new. */
int ferry_learn_entry(const ferry_learn_slot *s, ferry_learn_mode mode, ferry_learned_entry *e);

/* At a file's close (close.c): what learning did, per direction (learn[0]
 * reads, learn[1] writes), into the statistics' summaries out[0..1] and,
 * for rank 0 to keep, the store's entries into r. */
void ferry_learn_close(const ferry_learner *learn, ferry_learn_mode mode, ferry_learn_summary *out,
                       ferry_remember *r);

/* The option as the library hands it on (option.h). */
ferry_coll_option ferry_learn_option(const ferry_learn_opt *o);
/* The option's name as statistics show it ("twophase cb_nodes=1"). */
void ferry_learn_opt_name(const ferry_learn_opt *o, char *buf, size_t cap);

#endif
