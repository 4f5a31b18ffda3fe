/*
 * libFuzzer harness for the store of learned choices (learn/store.c): any
 * bytes as a store file. Parsing must not crash or leak; whatever it accepts
 * must be in range, and must come back the same through format and parse
 * again. Any violation aborts, so libFuzzer keeps the input.
 */
#include "learn/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                  \
    do {                                                                            \
        if (!(c)) {                                                                 \
            fprintf(stderr, "fuzz_learned: %s:%d: %s\n", __FILE__, __LINE__, #c);   \
            abort();                                                                \
        }                                                                           \
    } while (0)

static int same(const ferry_learned_entry *a, const ferry_learned_entry *b)
{
    if (!ferry_learned_key_equal(&a->key, &b->key) || strcmp(a->choice.strategy, b->choice.strategy) ||
        a->choice.cb_nodes != b->choice.cb_nodes || a->ntried != b->ntried || strcmp(a->source, b->source) ||
        a->updated != b->updated)
        return 0;
    for (int i = 0; i < a->ntried; i++)
        if (strcmp(a->tried[i].opt.strategy, b->tried[i].opt.strategy) ||
            a->tried[i].opt.cb_nodes != b->tried[i].opt.cb_nodes || a->tried[i].calls != b->tried[i].calls)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ferry_learned s, back;
    char why[200];
    int rc = ferry_learned_parse((const char *)data, size, &s, why, sizeof why);
    REQUIRE(rc == FERRY_LEARNED_OK || rc == FERRY_LEARNED_BAD || rc == FERRY_LEARNED_FOREIGN);
    if (rc != FERRY_LEARNED_OK) {
        REQUIRE(s.n == 0 && s.e == NULL && memchr(why, '\0', sizeof why));
        return 0;
    }
    for (int i = 0; i < s.n; i++) {
        const ferry_learned_entry *e = &s.e[i];
        REQUIRE(e->key.ranks >= 1 && e->key.nodes >= 1 && e->key.nodes <= e->key.ranks);
        REQUIRE(e->key.bytes >= 0 && e->ntried >= 0 && e->ntried <= FERRY_LEARNED_MAX_TRIED);
        for (int t = 0; t < e->ntried; t++)
            REQUIRE(e->tried[t].seconds >= 0 && e->tried[t].calls >= 1);
    }
    char *text = ferry_learned_format(&s);
    REQUIRE(text);
    REQUIRE(ferry_learned_parse(text, strlen(text), &back, why, sizeof why) == FERRY_LEARNED_OK);
    REQUIRE(back.n == s.n && back.skipped == 0);
    for (int i = 0; i < s.n; i++)
        REQUIRE(same(&s.e[i], &back.e[i]));
    free(text);
    ferry_learned_free(&back);
    ferry_learned_free(&s);
    return 0;
}
