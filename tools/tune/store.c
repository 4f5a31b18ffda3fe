/*
 * The store of learned choices, from ferry-tune's side: the same file and
 * the same code (src/learn/store.c) as the library's online learning. A
 * search whose best configuration names a collective strategy adds it for
 * the workload's patterns, so the next run of the workload starts there;
 * --show-store lists what the store holds.
 */
#define _GNU_SOURCE
#include "tune.h"
#include "learn/store.h"
#include "learn/option.h"
#include "util/strategy_desc.h"
#include "util/size.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "twophase cb_nodes=1": an option of the store as ferry names it */
static void option_name(const ferry_learned_option *o, char *buf, size_t cap)
{
    ferry_coll_option c;
    if (ferry_coll_option_from_store(o, &c) == 0)
        ferry_coll_option_name(&c, buf, cap);
    else
        snprintf(buf, cap, "%s", o->strategy); /* the store's parse keeps no other */
}

int tune_store_list(const char *path, FILE *out)
{
    if (!path) {
        fprintf(out, "no store of learned choices (FERRY_LEARN_CACHE=off, or no home directory)\n");
        return 0;
    }
    ferry_learned s;
    char why[256];
    int rc = ferry_learned_load(path, &s, why, sizeof why);
    if (rc != FERRY_LEARNED_OK) {
        fprintf(stderr, "ferry-tune: %s: %s\n", path, why);
        return 1;
    }
    fprintf(out, "store of learned choices %s: %d entr%s%s\n", path, s.n, s.n == 1 ? "y" : "ies",
            s.skipped ? " (and malformed ones, skipped)" : "");
    for (int i = 0; i < s.n; i++) {
        const ferry_learned_entry *e = &s.e[i];
        char per[32], piece[32], when[32];
        ferry_size_format((double)e->key.bytes, FERRY_SIZE_TENTHS, per, sizeof per);
        ferry_size_format(e->key.pieces ? (double)(e->key.bytes / e->key.pieces) : 0, FERRY_SIZE_TENTHS, piece,
                          sizeof piece);
        time_t t = (time_t)e->updated;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&t));
        fprintf(out, "  %s %s (%s), %d ranks on %d node%s: %s per call in %lld pieces of %s, %s\n", e->key.write ? "writes" : "reads",
                e->key.mount[0] ? e->key.mount : "?", e->key.fs, e->key.ranks, e->key.nodes,
                e->key.nodes == 1 ? "" : "s", per, (long long)e->key.pieces, piece,
                e->key.span > e->key.extent ? "interleaved" : "ranks apart");
        char name[64];
        option_name(&e->choice, name, sizeof name);
        fprintf(out, "    choice %s (%s, %s);", name, e->source, when);
        for (int k = 0; k < e->ntried; k++) {
            const ferry_learned_try *t2 = &e->tried[k];
            option_name(&t2->opt, name, sizeof name);
            fprintf(out, "%s %s %.3g s x %lld", k ? "," : " measured", name, t2->seconds, (long long)t2->calls);
        }
        fprintf(out, "\n");
    }
    ferry_learned_free(&s);
    return 0;
}

/* The value of key in a FERRY_HINTS string ("*:a=1:b=2"), or "" */
static void hint_value(const char *hints, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    size_t k = strlen(key);
    for (const char *p = hints; p && *p; p = strchr(p + 1, ':')) {
        const char *item = *p == ':' ? p + 1 : p;
        if (!strncmp(item, key, k) && item[k] == '=') {
            size_t n = strcspn(item + k + 1, ":,");
            snprintf(out, cap, "%.*s", (int)n, item + k + 1);
            return;
        }
    }
}

static int key_of(const json_t *k, ferry_learned_key *key)
{
    memset(key, 0, sizeof *key);
    const char *op = tj_str(k, "op", "");
    snprintf(key->fs, sizeof key->fs, "%s", tj_str(k, "fs", ""));
    snprintf(key->mount, sizeof key->mount, "%s", tj_str(k, "mount", ""));
    key->write = !strcmp(op, "write");
    key->ranks = (int)tj_num(k, "ranks", 0);
    key->nodes = (int)tj_num(k, "nodes", 0);
    key->bytes = (int64_t)tj_num(k, "bytes", -1);
    key->pieces = (int64_t)tj_num(k, "pieces", -1);
    key->active = (int64_t)tj_num(k, "active", -1);
    key->extent = (int64_t)tj_num(k, "extent", -1);
    key->span = (int64_t)tj_num(k, "span", -1);
    return key->ranks > 0 && key->nodes > 0 && key->bytes >= 0 && (!strcmp(op, "write") || !strcmp(op, "read"))
               ? 0 : -1;
}

int tune_store_add(const char *path, const char *best_hints, double best_seconds, const json_t *probe,
                   FILE *log)
{
    if (!path || !probe)
        return 0;
    ferry_learned_entry add[2];
    int n = 0;
    char cb[32];
    hint_value(best_hints, "cb_nodes", cb, sizeof cb);
    for (int d = 1; d >= 0; d--) {
        char s[16];
        hint_value(best_hints, d ? "ferry_write_strategy" : "ferry_read_strategy", s, sizeof s);
        int id = ferry_learned_strategy_id(s);
        if (id < 0)
            continue; /* auto, or no strategy the store keeps: nothing to start from */
        /* the pattern as the library keys it: its learning record of the probe run */
        const json_t *learn = tj_at(probe, d ? "ferry_stats.write.learning.coll_write" : "ferry_stats.read.learning.coll_read");
        ferry_learned_entry *e = &add[n];
        memset(e, 0, sizeof *e);
        if (!learn || key_of(tj_at(learn, "key"), &e->key) != 0)
            continue; /* the library does not learn this pattern: the hints file is the way */
        /* the aggregator count belongs to the option when its strategy takes one */
        ferry_coll_option o = {id, 0};
        if (cb[0] && ferry_strategy_takes(ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, id), "cb_nodes"))
            o.cb_nodes = atoi(cb);
        ferry_coll_option_to_store(&o, &e->choice);
        e->ntried = 1;
        e->tried[0].opt = e->choice;
        double calls = tj_num(learn, "calls", 1);
        e->tried[0].seconds = best_seconds / (calls > 0 ? calls : 1); /* the search's median, per call */
        e->tried[0].calls = 1;
        snprintf(e->source, sizeof e->source, "ferry-tune");
        e->updated = (int64_t)time(NULL);
        n++;
    }
    if (!n)
        return 0;
    char why[256];
    if (ferry_learned_save(path, add, n, why, sizeof why) != 0) {
        fprintf(stderr, "ferry-tune: store of learned choices %s: %s: not updated\n", path, why);
        return -1;
    }
    if (log)
        fprintf(log, "ferry-tune: %d pattern%s added to the store of learned choices %s\n", n, n == 1 ? "" : "s",
                path);
    return n;
}
