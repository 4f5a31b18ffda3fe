/*
 * What learning did, as the statistics show it (summary.h): lines of the FERRY_STATS
 * table and the "learning" member of the JSON record (docs/hints.md).
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/summary.h"
#include "learn/option.h"
#include "util/json.h"
#include "util/plural.h"
#include "util/size.h"

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
    ferry_size_format((double)avg, FERRY_SIZE_TENTHS, piece, sizeof piece);
    ferry_size_format((double)k->bytes, FERRY_SIZE_TENTHS, call, sizeof call);
    snprintf(buf, cap, "%s per call in %" PRId64 " pieces of %s, %s, %d ranks on %d node%s", call, k->pieces, piece,
             k->span > k->extent ? "interleaved" : "ranks apart", k->ranks, k->nodes, k->nodes == 1 ? "" : "s");
}

int ferry_learn_summary_text(const ferry_learn_summary *learn, const int *agreed, char *buf, size_t cap)
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
        const ferry_learn_summary *l = &learn[d];
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
            agreed[d] ? "" : " (RANKS DISAGREED: a bug, please report it)");
        if (l->patterns > 1)
            PUT("    (%d patterns followed; the one with the most calls is shown)\n", l->patterns);
    }
#undef PUT
    return (int)o;
}

static json_t *option_json(const struct ferry_learn_opt_summary *o)
{
    return json_pack("{s:o,s:I,s:o,s:o,s:b}", "option", ferry_json_str(o->name), "calls", (json_int_t)o->calls,
                     "best_seconds", ferry_json_real(o->best, 6), "typical_seconds", ferry_json_real(o->typical, 6),
                     "from_store", o->prior);
}

static json_t *direction_json(const ferry_learn_summary *l, int agreed, int *ok)
{
    json_t *tried = json_array();
    for (int i = 0; i < l->nopt && i < FERRY_LEARN_SHOWN; i++)
        ferry_json_push(tried, option_json(&l->opt[i]), ok);
    json_t *j = json_pack("{s:o,s:I,s:I,s:i,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "key", ferry_learned_key_json(&l->key),
                          "calls", (json_int_t)l->calls, "trials", (json_int_t)l->trials, "patterns", l->patterns,
                          "from_store", l->from_store, "first", ferry_json_str(l->first), "first_why",
                          ferry_json_str(l->first_why), "tried", tried, "rule", ferry_json_str(l->rule), "chosen",
                          ferry_json_str(l->chosen), "why", ferry_json_str(l->why), "agreed", agreed);
    if (!j)
        *ok = 0;
    return j;
}

json_t *ferry_learn_summary_object(const ferry_learn_summary *learn, const int *agreed)
{
    int ok = 1;
    json_t *all = json_object();
    for (int d = 0; d < 2; d++)
        if (learn[d].active)
            ferry_json_set(all, dir_kind[d], direction_json(&learn[d], agreed[d], &ok), &ok);
    if (!ok) {
        json_decref(all);
        return NULL;
    }
    return all;
}

static int find_opt(const ferry_learn_summary *l, const char *name)
{
    for (int i = 0; i < l->nopt && i < FERRY_LEARN_SHOWN; i++)
        if (!strcmp(l->opt[i].name, name))
            return i;
    return -1;
}

int ferry_learn_recommend(const ferry_learn_summary *l, int is_write, const char *files, char *buf, size_t cap)
{
    int c = find_opt(l, l->chosen), ru = find_opt(l, l->rule);
    if (c < 0 || ru < 0 || c == ru || !(l->opt[c].typical > 0) || !(l->opt[ru].typical > 0))
        return 0;
    double gain = l->opt[ru].typical / l->opt[c].typical;
    ferry_coll_option chosen;
    if (gain < FERRY_LEARN_MIN_GAIN || ferry_coll_option_parse(l->chosen, &chosen) != 0)
        return 0;
    char hint[96];
    ferry_coll_option_hint(&chosen, is_write, hint, sizeof hint);
    int n = snprintf(buf, cap,
                     "  - %s of %s were %.2fx faster with %s than with %s, auto's rules' choice "
                     "(typical call %.3g s against %.3g s, %s).\n"
                     "    ferry's store starts the next run there; to pin it everywhere: FERRY_HINTS=\"%s:%s\"\n",
                     is_write ? "writes" : "reads", files, gain, l->chosen, l->rule, l->opt[c].typical,
                     l->opt[ru].typical, l->opt[ru].prior ? "the latter from an earlier run" : "both measured in this run",
                     files, hint);
    return n > 0 ? n : 0;
}
