/*
 * The store of what `auto` learned: which collective strategy was fastest
 * for a pattern on a file system, kept in a small JSON file across runs
 * (docs/collective.md, "Learning"). The library reads it at open and adds
 * to it at close; ferry-tune reads and writes the same file through this
 * same code, so offline tuning and online learning are one mechanism.
 *
 * No MPI here: ferry-tune compiles this file on its own. Many processes may
 * write one store at once: each write takes a lock file, merges with what is
 * there and replaces the file by rename, so a reader sees the old or the
 * new file, never a torn one. Anything that is not a store of this version
 * is never overwritten.
 */
#ifndef FERRY_LEARN_STORE_H
#define FERRY_LEARN_STORE_H

#include <stddef.h>
#include <stdint.h>

#define FERRY_LEARNED_VERSION 1
#define FERRY_LEARNED_MAX_TRIED 6       /* options measured per pattern */
#define FERRY_LEARNED_MAX_ENTRIES 512   /* the oldest go beyond this */
#define FERRY_LEARNED_MAX_BYTES (1 << 20)

/* One way to run a collective call, as the store spells it: a collective
 * strategy that learning tries (strategy/catalog.c) and, for one that takes
 * cb_nodes, an aggregator count (0: the file's own cb_nodes). The library
 * passes it on as a ferry_coll_option (option.h). */
typedef struct ferry_learned_option {
    char strategy[16];
    int cb_nodes;
} ferry_learned_option;

typedef struct ferry_learned_try {
    ferry_learned_option opt;
    double seconds;                     /* the fastest call measured (max over ranks) */
    int64_t calls;                      /* calls measured */
} ferry_learned_try;

/* What a pattern is remembered by: the file system (type and mount point),
 * the direction, the job's shape and the call's global summary. */
typedef struct ferry_learned_key {
    char fs[32];
    char mount[128];
    int write;
    int ranks, nodes;
    int64_t bytes, pieces, active, extent, span;
} ferry_learned_key;

/* The source an open sees on what an earlier open of this process learned
 * (not yet in the store file: remember.c); never written to a store. */
#define FERRY_LEARNED_THIS_JOB "this job"

typedef struct ferry_learned_entry {
    ferry_learned_key key;
    ferry_learned_option choice;
    int ntried;
    ferry_learned_try tried[FERRY_LEARNED_MAX_TRIED];
    char source[16];                    /* "online" or "ferry-tune"; FERRY_LEARNED_THIS_JOB at open */
    int64_t updated;                    /* unix seconds */
    /* over every run so far: seconds of the pattern's calls, and what its
     * trials took beyond the fastest option known then (the trial budget) */
    double spent, overhead;
} ferry_learned_entry;

typedef struct ferry_learned {
    ferry_learned_entry *e;
    int n, cap;
    int skipped;                        /* entries dropped as malformed */
} ferry_learned;

/* What a store file turned out to be. */
enum {
    FERRY_LEARNED_OK = 0,
    FERRY_LEARNED_BAD = -1,             /* unreadable, not JSON, or not a store at all: left alone */
    FERRY_LEARNED_FOREIGN = -2,         /* a store of another version: left alone */
};

void ferry_learned_free(ferry_learned *s);
/* Parses store text (need not be terminated). Malformed entries are skipped
 * and counted; a text that is not a store gives BAD or FOREIGN with *why. */
int ferry_learned_parse(const char *text, size_t len, ferry_learned *out, char *why, size_t cap);
/* The store as JSON text, one entry per line (malloc'd; NULL: no memory). */
char *ferry_learned_format(const ferry_learned *s);
/* A key as the store writes it, and as the statistics record's "learning"
 * shows it (a jansson object; NULL when memory runs out). */
struct json_t *ferry_learned_key_json(const ferry_learned_key *k);
/* Reads path (a missing or empty file is an empty store). */
int ferry_learned_load(const char *path, ferry_learned *out, char *why, size_t cap);
/* Under the lock: loads path, puts each of add[0..n) in (an entry of the
 * same key is replaced, keeping its measurements of options this one did
 * not measure), drops the oldest beyond the limit and renames the result
 * over path. 0, or -1 with *why (nothing changed). */
int ferry_learned_save(const char *path, const ferry_learned_entry *add, int n, char *why, size_t cap);

int ferry_learned_key_equal(const ferry_learned_key *a, const ferry_learned_key *b);
/* The id of the collective strategy `name`, when the store keeps it (one
 * that learning tries, spelt as the list spells it); else -1. */
int ferry_learned_strategy_id(const char *name);
/* Adds or replaces (same key) one entry in memory. -1: no memory. */
int ferry_learned_put(ferry_learned *s, const ferry_learned_entry *e);
/* The entry of key, or NULL. */
const ferry_learned_entry *ferry_learned_find(const ferry_learned *s, const ferry_learned_key *key);

/* Where the store is: FERRY_LEARN_CACHE (a path, or off/0/none: no store),
 * else $XDG_CACHE_HOME/ferry/learned.json, else $HOME/.cache/ferry/learned.json.
 * `hint` (the ferry_learn_cache hint; NULL, empty or "default": none) wins over both.
 * Returns buf, or NULL when there is no store. */
const char *ferry_learned_path(const char *hint, char *buf, size_t cap);

#endif
