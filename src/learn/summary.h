/*
 * What learning did on one file, as its statistics keep it: per direction,
 * the pattern with the most calls, its options and their times, and the
 * choice with its reason. Every rank holds the same (the learner is a pure
 * function of agreed inputs); the digest lets the close check that. Shown
 * as lines of the FERRY_STATS table and as the record's "learning" member.
 */
#ifndef FERRY_LEARN_SUMMARY_H
#define FERRY_LEARN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "learn/store.h"

/* Room for every reason a strategy, auto's rules or learning gives, whole:
 * the longest learning composes (a rule's reason of about 100 characters
 * and a sentence around it) stays below 200 (test_learn) */
#define FERRY_REASON_LEN 256

/* What learning did for collective reads or writes of a file: the pattern
 * with the most calls (learn/learner.h). Every rank holds the same. */
#define FERRY_LEARN_SHOWN 4
typedef struct ferry_learn_summary {
    int active;                  /* learning ran for this kind of call */
    int patterns;                /* patterns it followed */
    int64_t calls, trials;       /* calls of the pattern shown, and how many were trials */
    int from_store;              /* it started from the store's choice */
    int nopt;
    struct ferry_learn_opt_summary {
        char name[24];
        int64_t calls;           /* measured in this run */
        double best;             /* fastest call, seconds (max over ranks) */
        double typical;          /* what options are compared by: the median of its last three calls */
        int prior;               /* typical (and best) is the store's, from an earlier run */
    } opt[FERRY_LEARN_SHOWN];
    char chosen[24];
    char rule[24];               /* what auto's rules chose */
    char first[24];              /* what the pattern's first call took in this open, and why */
    char first_why[FERRY_REASON_LEN];
    char why[FERRY_REASON_LEN];
    ferry_learned_key key;       /* what the store keeps it by */
    uint64_t digest;             /* of every decision on this file: the same on every rank */
} ferry_learn_summary;

/* One line describing a learned pattern ("4 MiB per call in 1024 pieces of 4.0 KiB, interleaved, ..."). */
void ferry_learn_describe(const ferry_learned_key *k, char *buf, size_t cap);
/* The FERRY_STATS lines of what learning did, reads [0] and writes [1];
 * agreed[d]: every rank made the same decisions (snprintf into buf;
 * returns the length). */
int ferry_learn_summary_text(const ferry_learn_summary *learn, const int *agreed, char *buf, size_t cap);
/* The record's "learning" object, of the same two (a jansson value; NULL: no memory). */
struct json_t *ferry_learn_summary_object(const ferry_learn_summary *learn, const int *agreed);

/* A recommendation needs at least this speedup over auto's rules, measured. */
#define FERRY_LEARN_MIN_GAIN 1.1
/* The job report's recommendation for l, the pattern of `files`' reads
 * (is_write 0) or writes, when learning measured an option at least
 * FERRY_LEARN_MIN_GAIN times faster than the rules' choice: lines ending in
 * a newline, with the FERRY_HINTS pair that pins it. Returns the length,
 * or 0 when there is none. */
int ferry_learn_recommend(const ferry_learn_summary *l, int is_write, const char *files, char *buf, size_t cap);

#endif
