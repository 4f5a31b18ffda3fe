/*
 * What learning did, as the statistics show it: lines of the FERRY_STATS
 * table and the "learning" member of the JSON record (docs/hints.md).
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats_internal.h"
#include "util/plural.h"

static const char *const dir_kind[2] = {"coll_read", "coll_write"};

/* "1.2 ms", "340 us", "2.1 s" */
static void secs(double s, char *buf, size_t cap)
{
    if (!(s > 0) || !isfinite(s))
        snprintf(buf, cap, "-");
    else if (s >= 1)
        snprintf(buf, cap, "%.2f s", s);
    else if (s >= 1e-3)
        snprintf(buf, cap, "%.2f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.0f us", s * 1e6);
}

void ferry_learn_describe(const ferry_learned_key *k, char *buf, size_t cap)
{
    char piece[32], call[32];
    int64_t avg = k->pieces ? k->bytes / k->pieces : 0;
    ferry_stats_human(avg, piece, sizeof piece);
    ferry_stats_human(k->bytes, call, sizeof call);
    snprintf(buf, cap, "%s per call in %" PRId64 " pieces of %s, %s, %d ranks on %d node%s", call, k->pieces, piece,
             k->span > k->extent ? "interleaved" : "ranks apart", k->ranks, k->nodes, k->nodes == 1 ? "" : "s");
}

int ferry_stats_learn_text(const ferry_stats_total *t, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
#define PUT(...)                                                                    \
    do {                                                                            \
        if (o < cap) {                                                              \
            int n_ = snprintf(buf + o, cap - o, __VA_ARGS__);                       \
            o += n_ > 0 ? ((size_t)n_ < cap - o ? (size_t)n_ : cap - o - 1) : 0;    \
        }                                                                           \
    } while (0)
    for (int d = 1; d >= 0; d--) {
        const ferry_learn_summary *l = &t->learn[d];
        if (!l->active)
            continue;
        char pat[160];
        ferry_learn_describe(&l->key, pat, sizeof pat);
        PUT("  learned for collective %s (%s):\n", d ? "writes" : "reads", pat);
        PUT("    first call: %s (%s)\n", l->first, l->first_why);
        PUT("    %" PRId64 " call%s, %" PRId64 " trial%s%s; tried", l->calls, ferry_s(l->calls), l->trials,
            ferry_s(l->trials), l->from_store ? ", started from the store" : "");
        for (int i = 0; i < l->nopt && i < FERRY_LEARN_SHOWN; i++) {
            char s[32], b[32];
            secs(l->opt[i].typical, s, sizeof s);
            secs(l->opt[i].best, b, sizeof b);
            if (l->opt[i].calls > 2)
                PUT("%s %s %" PRId64 " calls, typically %s (best %s)", i ? "," : "", l->opt[i].name,
                    l->opt[i].calls, s, b);
            else if (l->opt[i].calls)
                PUT("%s %s %" PRId64 " call%s, %s", i ? "," : "", l->opt[i].name, l->opt[i].calls,
                    l->opt[i].calls == 1 ? "" : "s", s);
            else if (l->opt[i].prior)
                PUT("%s %s %s in an earlier run", i ? "," : "", l->opt[i].name, s);
            else
                PUT("%s %s not yet", i ? "," : "", l->opt[i].name);
        }
        PUT("\n    chose %s: %s%s\n", l->chosen, l->why,
            t->learn_agreed[d] ? "" : " (RANKS DISAGREED: a bug, please report it)");
        if (l->patterns > 1)
            PUT("    (%d patterns followed; the one with the most calls is shown)\n", l->patterns);
    }
#undef PUT
    return (int)o;
}

static json_t *key_json(const ferry_learned_key *k)
{
    return json_pack("{s:s,s:s,s:s,s:i,s:i,s:I,s:I,s:I,s:I,s:I}", "fs", k->fs, "mount", k->mount, "op",
                     k->write ? "write" : "read", "ranks", k->ranks, "nodes", k->nodes, "bytes", (json_int_t)k->bytes,
                     "pieces", (json_int_t)k->pieces, "active", (json_int_t)k->active, "extent",
                     (json_int_t)k->extent, "span", (json_int_t)k->span);
}

char *ferry_stats_learn_json(const ferry_stats_total *t)
{
    json_t *all = json_object();
    for (int d = 0; all && d < 2; d++) {
        const ferry_learn_summary *l = &t->learn[d];
        if (!l->active)
            continue;
        json_t *tried = json_array();
        for (int i = 0; tried && i < l->nopt && i < FERRY_LEARN_SHOWN; i++)
            json_array_append_new(tried, json_pack("{s:s,s:I,s:f,s:f,s:b}", "option", l->opt[i].name, "calls",
                                                   (json_int_t)l->opt[i].calls, "best_seconds",
                                                   isfinite(l->opt[i].best) ? l->opt[i].best : 0.0,
                                                   "typical_seconds",
                                                   isfinite(l->opt[i].typical) ? l->opt[i].typical : 0.0,
                                                   "from_store", l->opt[i].prior));
        json_object_set_new(all, dir_kind[d],
                            json_pack("{s:o,s:I,s:I,s:i,s:b,s:s,s:s,s:o,s:s,s:s,s:s,s:b}", "key", key_json(&l->key),
                                      "calls", (json_int_t)l->calls, "trials", (json_int_t)l->trials, "patterns",
                                      l->patterns, "from_store", l->from_store, "first", l->first, "first_why",
                                      l->first_why, "tried", tried ? tried : json_array(), "rule", l->rule, "chosen",
                                      l->chosen, "why", l->why, "agreed", t->learn_agreed[d]));
    }
    char *s = all ? json_dumps(all, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(all);
    return s;
}
