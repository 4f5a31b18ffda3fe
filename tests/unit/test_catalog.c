/*
 * ferry's list of strategies (strategy/catalog.c), checked descriptor by
 * descriptor: each is named by its kind's hints and no other's, at its
 * place; the ids the code names are the strategies it means; what a
 * descriptor says of itself (its hints, its fallback, its roles, its needs)
 * is true of the hints, the store of learned choices, ferry-tune's space
 * and the thread level MPI_Init asks for. test_catalog_swap shows the same
 * places follow any other list. No MPI calls.
 */
#include "core/hints.h"
#include "learn/store.h"
#include "util/strategy_desc.h"
#include "tune.h"
#include "unit/check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const hint_of[2][2] = {{"ferry_read_strategy", "ferry_write_strategy"},
                                          {"ferry_ind_read_strategy", "ferry_ind_write_strategy"}};

/* The id h holds for the strategy hint of kind k (direction d). */
static int held(const ferry_hints *h, ferry_strategy_kind k, int d)
{
    if (k == FERRY_STRATEGY_COLLECTIVE)
        return (int)(d ? h->write_strategy : h->read_strategy);
    return (int)(d ? h->ind_write_strategy : h->ind_read_strategy);
}

static void ids_the_code_names(void)
{
    CHECK_STR(ferry_coll_strategy_name(FERRY_COLL_AUTO), "auto");
    CHECK_STR(ferry_coll_strategy_name(FERRY_COLL_INDEPENDENT), "independent");
    CHECK_STR(ferry_coll_strategy_name(FERRY_COLL_TWOPHASE), "twophase");
    CHECK_STR(ferry_coll_strategy_name(FERRY_COLL_LOCAL), "local");
    CHECK_STR(ferry_ind_strategy_name(FERRY_IND_AUTO), "auto");
    CHECK_STR(ferry_ind_strategy_name(FERRY_IND_DIRECT), "direct");
    CHECK_STR(ferry_ind_strategy_name(FERRY_IND_SIEVE), "sieve");
    CHECK_STR(ferry_ind_strategy_name(FERRY_IND_FORWARD), "forward");
}

static void each_descriptor(void)
{
    int n = ferry_strategy_count(), seen[2] = {0, 0};
    CHECK(n >= 6 && ferry_strategy_at(n) == NULL && ferry_strategy_at(-1) == NULL);
    for (int i = 0; i < n; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        ferry_strategy_kind k = d->kind, other = k == FERRY_STRATEGY_COLLECTIVE ? FERRY_STRATEGY_INDEPENDENT
                                                                               : FERRY_STRATEGY_COLLECTIVE;
        int id = ++seen[k];
        /* a plain lower-case word, unique across the list, not auto */
        CHECK(d->name && d->name[0] && d->about && d->about[0] && d->hints);
        for (const char *c = d->name; *c; c++)
            CHECK_MSG(islower((unsigned char)*c) || *c == '_' || *c == '-', "%s", d->name);
        CHECK(ferry_strategy_id(k, d->name) == id && ferry_strategy_id(other, d->name) < 0);
        CHECK(strcmp(d->name, "auto") && strcmp(d->name, "automatic"));

        /* both hints of its kind take it, at its place; the other kind's refuse it */
        for (int dir = 0; dir < 2; dir++) {
            ferry_hints h;
            ferry_hints_defaults(&h);
            ferry_hint_warnings w = {0};
            ferry_hints_set(&h, hint_of[k][dir], d->name, &w);
            CHECK_MSG(w.n == 0 && held(&h, k, dir) == id, "%s=%s", hint_of[k][dir], d->name);
            char v[64];
            CHECK(ferry_hints_get(&h, hint_of[k][dir], v, sizeof v) == 1);
            CHECK_STR(v, d->name);
            ferry_hints_set(&h, hint_of[other][dir], d->name, &w);
            CHECK_MSG(w.n == 1 && strstr(w.msg[0], "expected ") != NULL, "%s=%s", hint_of[other][dir], d->name);
            /* ... and the warning names what it takes */
            ferry_hints_set(&h, hint_of[k][dir], "no-such-strategy", &w);
            CHECK_MSG(w.n == 2 && strstr(w.msg[1], d->name) != NULL, "%s", w.n == 2 ? w.msg[1] : "");
        }

        /* every hint it lists is one of ferry's */
        for (const char *const *hint = d->hints; *hint; hint++) {
            ferry_hints h;
            ferry_hints_defaults(&h);
            char v[FERRY_HINT_STR];
            CHECK_MSG(ferry_hints_get(&h, *hint, v, sizeof v) == 1, "%s lists %s", d->name, *hint);
        }
        /* a fallback is another strategy of its kind */
        if (d->fallback)
            CHECK_MSG(ferry_strategy_id(k, d->fallback) > 0 && strcmp(d->fallback, d->name), "%s", d->name);
        /* learning and its store: collective strategies only, and the store
         * keeps exactly the ones learning tries */
        if (d->roles & FERRY_ROLE_LEARNED)
            CHECK(k == FERRY_STRATEGY_COLLECTIVE);
        CHECK_MSG((ferry_learned_strategy_id(d->name) == id) == (k == FERRY_STRATEGY_COLLECTIVE &&
                                                                  (d->roles & FERRY_ROLE_LEARNED)),
                  "%s", d->name);
        /* MPI_Init asks for threads where a hint names a strategy that needs them */
        char spec[96];
        snprintf(spec, sizeof spec, "*:%s=%s", hint_of[k][1], d->name);
        setenv("FERRY_HINTS", spec, 1);
        CHECK_MSG(ferry_hints_env_may_forward() == !!(d->needs & FERRY_NEEDS_THREADS), "%s", d->name);
        unsetenv("FERRY_HINTS");
    }
    CHECK(seen[0] >= 3 && seen[1] >= 3);
}

static const char *defaults_json =
    "{\"cb_buffer_size\":16777216,\"cb_nodes\":0,\"cb_config_list\":\"*:1\",\"ferry_write_strategy\":\"auto\","
    "\"ferry_read_strategy\":\"auto\",\"ferry_ind_write_strategy\":\"auto\",\"ferry_ind_read_strategy\":\"auto\","
    "\"ferry_local_aggregators\":1,\"ferry_ds_threshold\":65536,\"striping_unit\":0}";

static int has_value(const tune_space *s, const char *key, const char *v)
{
    for (int d = 0; d < s->ndims; d++)
        for (int i = 1; !strcmp(s->dim[d].key, key) && i < s->dim[d].nvals; i++)
            if (!strcmp(s->dim[d].val[i], v))
                return 1;
    return 0;
}

/* ferry-tune searches exactly the strategies whose descriptors say so (with
 * a node mate each, where a strategy needs one) */
static void searched_by_ferry_tune(void)
{
    char err[256];
    tune_facts f;
    memset(&f, 0, sizeof f);
    f.ranks = 8, f.nodes = 2, f.ppn = 4;
    f.coll_w = f.coll_r = f.ind_w = f.ind_r = f.forward = 1;
    CHECK((f.defaults = tj_parse(defaults_json, strlen(defaults_json), err, sizeof err)) != NULL);
    f.have_defaults = 1;
    tune_space_opts o;
    memset(&o, 0, sizeof o);
    tune_space s;
    CHECK(tune_space_build(&s, &f, &o, err, sizeof err) == 0);
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        int tuned = (d->roles & FERRY_ROLE_TUNED) != 0;
        CHECK_MSG(has_value(&s, hint_of[d->kind][1], d->name) == tuned, "%s", d->name);
        CHECK_MSG(has_value(&s, hint_of[d->kind][0], d->name) == tuned, "%s", d->name);
    }
    tune_space_free(&s);
    json_decref((json_t *)f.defaults);
}

int main(void)
{
    ids_the_code_names();
    each_descriptor();
    searched_by_ferry_tune();
    if (check_failures)
        fprintf(stderr, "test_catalog: %d checks failed\n", check_failures);
    else
        printf("test_catalog: all checks passed\n");
    return check_failures != 0;
}
