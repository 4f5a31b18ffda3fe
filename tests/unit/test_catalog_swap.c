/*
 * A strategy is one descriptor: every list of strategies is the one list.
 * This test links a list of its own in place of strategy/catalog.c, with
 * strategies ferry does not have and none of those it has, and checks that
 * each place that names strategies follows: the hints accept exactly these
 * names (and ask for them in their warnings), MPI_Init's thread level
 * follows what they need, the store of learned choices keeps exactly the
 * learned ones, learning tries them where they can run, ferry-tune searches
 * them and what tunes them, and the open, flush and close hooks are theirs.
 * No MPI calls.
 */
#include "core/hints.h"
#include "learn/option.h"
#include "strategy/learn_options.h"
#include "tune.h"
#include "unit/check.h"
#include "unit/strategy_fixture.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ferry_learn_setup with what the options come from kept for the test's
 * ctx (one at a time) */
static void learn_setup(ferry_learn_ctx *c, const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes,
                        int is_write, ferry_coll_strategy rule, const char *why)
{
    static ferry_learn_from from;
    from = (ferry_learn_from){f, p, nodes, rule};
    ferry_learn_setup(c, &from, is_write, why);
}

/* ---- the list: collective hop, slab, mesh; independent relay, plain ---- */

static char hooks_seen[64];

static void open_relay(ferry_file *f) { (void)f, strcat(hooks_seen, "open relay;"); }
static int flush_relay(ferry_file *f) { (void)f, strcat(hooks_seen, "flush relay;"); return MPI_ERR_IO; }
static int close_relay(ferry_file *f) { (void)f, strcat(hooks_seen, "close relay;"); return MPI_SUCCESS; }
static void open_hop(ferry_file *f) { (void)f, strcat(hooks_seen, "open hop;"); }
static int flush_hop(ferry_file *f) { (void)f, strcat(hooks_seen, "flush hop;"); return MPI_ERR_OTHER; }
static int close_hop(ferry_file *f) { (void)f, strcat(hooks_seen, "close hop;"); return MPI_ERR_ACCESS; }

static const struct ferry_strategy_code relay_code = {.open = open_relay, .flush = flush_relay, .close = close_relay};
static const struct ferry_strategy_code hop_code = {.open = open_hop, .flush = flush_hop, .close = close_hop};

static const char *const hop_hints[] = {"cb_buffer_size", "cb_nodes", NULL};
static const char *const mesh_hints[] = {"ferry_local_aggregators", NULL};
static const char *const none[] = {NULL};

static const ferry_strategy_desc list[] = {
    {.name = "relay", .kind = FERRY_STRATEGY_INDEPENDENT, .hints = none, .needs = FERRY_NEEDS_THREADS,
     .roles = FERRY_ROLE_TUNED, .fallback = "plain", .code = &relay_code},
    {.name = "hop", .kind = FERRY_STRATEGY_COLLECTIVE, .hints = hop_hints,
     .roles = FERRY_ROLE_LEARNED | FERRY_ROLE_TUNED, .code = &hop_code},
    {.name = "slab", .kind = FERRY_STRATEGY_COLLECTIVE, .hints = none},
    {.name = "mesh", .kind = FERRY_STRATEGY_COLLECTIVE, .hints = mesh_hints,
     .needs = FERRY_NEEDS_NODE_MATES | FERRY_NEEDS_UNORDERED, .roles = FERRY_ROLE_LEARNED | FERRY_ROLE_TUNED,
     .fallback = "hop"},
    {.name = "plain", .kind = FERRY_STRATEGY_INDEPENDENT, .hints = none},
};

int ferry_strategy_count(void) { return (int)(sizeof list / sizeof list[0]); }
const ferry_strategy_desc *ferry_strategy_at(int i) { return i >= 0 && i < ferry_strategy_count() ? &list[i] : NULL; }

/* their ids: their places among the strategies of their kind */
#define HOP ((ferry_coll_strategy)1)
#define SLAB ((ferry_coll_strategy)2)
#define MESH ((ferry_coll_strategy)3)
#define RELAY ((ferry_ind_strategy)1)
#define PLAIN ((ferry_ind_strategy)2)

/* ---- the hints ---- */

static int set(ferry_hints *h, const char *key, const char *value, char *warning, size_t cap)
{
    ferry_hint_warnings w = {0};
    ferry_hints_set(h, key, value, &w);
    snprintf(warning, cap, "%s", w.n ? w.msg[0] : "");
    return w.n == 0;
}

static void hints(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    char warn[200], v[64];
    CHECK(set(&h, "ferry_write_strategy", "mesh", warn, sizeof warn) && h.write_strategy == MESH);
    CHECK(ferry_hints_get(&h, "ferry_write_strategy", v, sizeof v) == 1);
    CHECK_STR(v, "mesh");
    CHECK(set(&h, "ferry_read_strategy", "Slab", warn, sizeof warn) && h.read_strategy == SLAB);
    CHECK(set(&h, "ferry_ind_write_strategy", "relay", warn, sizeof warn) && h.ind_write_strategy == RELAY);
    CHECK(set(&h, "ferry_ind_read_strategy", "plain", warn, sizeof warn) && h.ind_read_strategy == PLAIN);
    CHECK(set(&h, "ferry_ind_read_strategy", "auto", warn, sizeof warn) && h.ind_read_strategy == FERRY_IND_AUTO);
    /* ferry's own names are not in this list, and a kind takes only its own */
    CHECK(!set(&h, "ferry_write_strategy", "twophase", warn, sizeof warn) && h.write_strategy == MESH);
    CHECK_MSG(strstr(warn, "expected hop, slab, mesh or auto") != NULL, "%s", warn);
    CHECK(!set(&h, "ferry_ind_write_strategy", "hop", warn, sizeof warn) && h.ind_write_strategy == RELAY);
    CHECK_MSG(strstr(warn, "expected relay, plain or auto") != NULL, "%s", warn);
    CHECK(!set(&h, "ferry_ind_write_strategy", "sieve", warn, sizeof warn));
    CHECK_STR(ferry_coll_strategy_name(HOP), "hop");
    CHECK_STR(ferry_ind_strategy_name(PLAIN), "plain");

    /* what MPI_Init asks for follows what the strategies named need */
    setenv("FERRY_HINTS", "*:ferry_ind_write_strategy=relay", 1);
    CHECK(ferry_hints_env_may_forward() == 1);
    setenv("FERRY_HINTS", "*:ferry_ind_write_strategy=plain:ferry_write_strategy=mesh", 1);
    CHECK(ferry_hints_env_may_forward() == 0);
    unsetenv("FERRY_HINTS");
}

/* ---- the store of learned choices and the option's text ---- */

static const char *entry_with(const char *choice, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "{\"ferry_learned\": 1, \"entries\": [{\"fs\":\"tmpfs\",\"mount\":\"/x\",\"op\":\"write\",\"ranks\":4,"
             "\"nodes\":1,\"bytes\":1,\"pieces\":1,\"active\":4,\"extent\":1,\"span\":1,"
             "\"choice\":{\"strategy\":\"%s\"},\"tried\":[],\"source\":\"online\",\"updated\":1}]}",
             choice);
    return buf;
}

static void store(void)
{
    char text[512], why[128];
    ferry_learned s;
    /* learned strategies are kept, the others are malformed entries */
    const char *kept[] = {"hop", "mesh"}, *dropped[] = {"slab", "twophase", "Hop", "relay"};
    for (int i = 0; i < 2; i++) {
        entry_with(kept[i], text, sizeof text);
        CHECK(ferry_learned_parse(text, strlen(text), &s, why, sizeof why) == FERRY_LEARNED_OK);
        CHECK_MSG(s.n == 1 && s.skipped == 0, "%s", kept[i]);
        ferry_learned_free(&s);
    }
    for (int i = 0; i < 4; i++) {
        entry_with(dropped[i], text, sizeof text);
        CHECK(ferry_learned_parse(text, strlen(text), &s, why, sizeof why) == FERRY_LEARNED_OK);
        CHECK_MSG(s.n == 0 && s.skipped == 1, "%s", dropped[i]);
        ferry_learned_free(&s);
    }
    CHECK(ferry_learned_strategy_id("hop") == (int)HOP && ferry_learned_strategy_id("mesh") == (int)MESH);
    CHECK(ferry_learned_strategy_id("slab") < 0 && ferry_learned_strategy_id("local") < 0);

    /* an option made once, spelt for statistics, the store and the hints */
    ferry_coll_option o = {HOP, 2}, back;
    char name[64];
    ferry_coll_option_name(&o, name, sizeof name);
    CHECK_STR(name, "hop cb_nodes=2");
    CHECK(ferry_coll_option_parse(name, &back) == 0 && back.strategy == HOP && back.cb_nodes == 2);
    CHECK(ferry_coll_option_parse("twophase cb_nodes=2", &back) != 0);
    ferry_coll_option_hint(&o, 1, name, sizeof name);
    CHECK_STR(name, "ferry_write_strategy=hop:cb_nodes=2");
    ferry_learned_option st;
    ferry_coll_option_to_store(&o, &st);
    CHECK_STR(st.strategy, "hop");
    CHECK(ferry_coll_option_from_store(&st, &back) == 0 && back.strategy == HOP && back.cb_nodes == 2);
}

/* ---- learning's options ---- */

static int has(const ferry_learn_ctx *c, int s, int cb)
{
    for (int i = 0; i < c->nopt; i++)
        if (c->opt[i].s == s && c->opt[i].cb_nodes == cb)
            return 1;
    return 0;
}

static void learning(void)
{
    ferry_learn_ctx c;
    /* 8 ranks on one node, small interleaved pieces over 4 MiB; two-phase
     * style aggregators: four per node by default */
    ferry_file *f = file_of(FERRY_FS_CLASS_LOCAL, 8);
    ferry_hints_set(&f->hints, "cb_config_list", "*:4", NULL);
    ferry_nodes one = nodes_of(8, 1), each = nodes_of(8, 8);
    ferry_pattern p = pat(8, 1024, 512, 4 * MiB, 4 * MiB);
    learn_setup(&c, f, &p, &one, 1, HOP, "hop: the rules");
    CHECK(ferry_learn_worth(&c));
    /* the rules' choice first, then every learned strategy that can run,
     * then fewer aggregators for one that takes cb_nodes */
    CHECK_MSG(c.nopt == 3 && c.opt[0].s == HOP && c.opt[1].s == MESH &&
                  has(&c, HOP, 1) && !has(&c, SLAB, 0) && !has(&c, MESH, 1),
              "%d options", c.nopt);
    /* alone on their nodes, mesh cannot merge anything; atomic writes it cannot order */
    learn_setup(&c, f, &p, &each, 1, HOP, "hop: the rules");
    ferry_learn_worth(&c);
    CHECK(has(&c, HOP, 0) && !has(&c, MESH, 0));
    f->atomic = 1;
    learn_setup(&c, f, &p, &one, 1, HOP, "hop: the rules");
    ferry_learn_worth(&c);
    CHECK(!has(&c, MESH, 0));
    f->atomic = 0;
    /* the store's entry for learning: in the list's spelling */
    char why[FERRY_REASON_LEN];
    ferry_learner l;
    memset(&l, 0, sizeof l);
    learn_setup(&c, f, &p, &one, 1, HOP, "hop: the rules");
    ferry_learn_slot *s = ferry_learn_pick(&l, &c, why, sizeof why);
    CHECK(s != NULL);
    if (s) {
        ferry_learn_done(&l, s, 1e-3);
        ferry_learned_entry e;
        CHECK(ferry_learn_entry(s, FERRY_LEARN_AUTO, &e) == 1);
        CHECK_STR(e.choice.strategy, "hop");
    }
    free(one.node_of);
    free(each.node_of);
    free(f);
}

/* ---- ferry-tune: the space and the store ---- */

static const char *defaults_json =
    "{\"cb_buffer_size\":16777216,\"cb_nodes\":0,\"cb_config_list\":\"*:1\",\"ferry_write_strategy\":\"auto\","
    "\"ferry_read_strategy\":\"auto\",\"ferry_ind_write_strategy\":\"auto\",\"ferry_ind_read_strategy\":\"auto\","
    "\"ferry_local_aggregators\":1,\"ferry_ds_threshold\":65536,\"striping_unit\":0,"
    "\"ind_rd_buffer_size\":4194304,\"ind_wr_buffer_size\":524288}";

static int dim_of(const tune_space *s, const char *key)
{
    for (int d = 0; d < s->ndims; d++)
        if (!strcmp(s->dim[d].key, key))
            return d;
    return -1;
}

static int value_of(const tune_space *s, int d, const char *v)
{
    for (int i = 1; d >= 0 && i < s->dim[d].nvals; i++)
        if (!strcmp(s->dim[d].val[i], v))
            return i;
    return -1;
}

static void tune(void)
{
    char err[256];
    tune_facts f;
    memset(&f, 0, sizeof f);
    f.ranks = 8, f.nodes = 2, f.ppn = 4;
    f.coll_w = 1, f.ind_w = 1, f.forward = 1;
    CHECK((f.defaults = tj_parse(defaults_json, strlen(defaults_json), err, sizeof err)) != NULL);
    f.have_defaults = 1;
    tune_space_opts o;
    memset(&o, 0, sizeof o);
    tune_space s;
    CHECK(tune_space_build(&s, &f, &o, err, sizeof err) == 0);
    int ws = dim_of(&s, "ferry_write_strategy"), iw = dim_of(&s, "ferry_ind_write_strategy");
    CHECK(ws >= 0 && s.dim[ws].nvals == 3 && value_of(&s, ws, "hop") > 0 && value_of(&s, ws, "mesh") > 0);
    CHECK(iw >= 0 && s.dim[iw].nvals == 2 && value_of(&s, iw, "relay") > 0);
    CHECK(s.pb.nanchors == 2);
    /* what tunes a strategy matters where it runs */
    int cbn = dim_of(&s, "cb_nodes"), la = dim_of(&s, "ferry_local_aggregators");
    CHECK(cbn >= 0 && la >= 0);
    if (ws >= 0 && cbn >= 0 && la >= 0) {
        int v[TUNE_MAX_DIMS] = {0};
        v[ws] = value_of(&s, ws, "hop"), v[cbn] = 1, v[la] = 1;
        tune_space_canon(&s, v);
        CHECK(v[cbn] == 1 && v[la] == 0);
        memset(v, 0, sizeof v);
        v[ws] = value_of(&s, ws, "mesh"), v[cbn] = 1, v[la] = 1;
        tune_space_canon(&s, v);
        CHECK(v[cbn] == 0 && v[la] == 1);
    }
    tune_space_free(&s);
    /* one rank per node: what merges a node's pieces is left out, and said */
    f.nodes = 8, f.ppn = 1;
    CHECK(tune_space_build(&s, &f, &o, err, sizeof err) == 0);
    ws = dim_of(&s, "ferry_write_strategy");
    CHECK(ws >= 0 && s.dim[ws].nvals == 2 && value_of(&s, ws, "mesh") < 0);
    CHECK_MSG(strstr(s.notes, "strategy mesh: left out: one rank per node") != NULL, "%s", s.notes);
    tune_space_free(&s);
    json_decref((json_t *)f.defaults);

    /* the store: a best configuration naming a learned strategy starts the
     * next run there; one the store does not keep adds nothing */
    char path[] = "/tmp/ferry_catalog_swap_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    unlink(path);
    const char *probe_text =
        "{\"ferry_stats\":{\"write\":{\"learning\":{\"coll_write\":{\"calls\":4,\"key\":{\"fs\":\"tmpfs\","
        "\"mount\":\"/x\",\"op\":\"write\",\"ranks\":4,\"nodes\":1,\"bytes\":1,\"pieces\":1,\"active\":4,"
        "\"extent\":1,\"span\":1}}}}}}";
    json_t *probe = tj_parse(probe_text, strlen(probe_text), err, sizeof err);
    CHECK(probe != NULL);
    CHECK(tune_store_add(path, "*:ferry_write_strategy=slab", 1.0, probe, NULL) == 0);
    CHECK(tune_store_add(path, "*:ferry_write_strategy=hop:cb_nodes=2", 1.0, probe, NULL) == 1);
    ferry_learned st;
    char why[128];
    CHECK(ferry_learned_load(path, &st, why, sizeof why) == FERRY_LEARNED_OK && st.n == 1);
    if (st.n == 1) {
        CHECK_STR(st.e[0].choice.strategy, "hop");
        CHECK(st.e[0].choice.cb_nodes == 2);
    }
    ferry_learned_free(&st);
    json_decref(probe);
    unlink(path);
    char lock[sizeof path + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
}

/* ---- the hooks ---- */

static void hooks(void)
{
    ferry_file f;
    memset(&f, 0, sizeof f);
    ferry_strategy_open_all(&f);
    CHECK_STR(hooks_seen, "open relay;open hop;");
    hooks_seen[0] = '\0';
    CHECK(ferry_strategy_flush_all(&f) == MPI_ERR_IO); /* every hook runs; the first error is returned */
    CHECK_STR(hooks_seen, "flush relay;flush hop;");
    hooks_seen[0] = '\0';
    CHECK(ferry_strategy_close_all(&f) == MPI_ERR_ACCESS);
    CHECK_STR(hooks_seen, "close relay;close hop;");
}

int main(void)
{
    hints();
    store();
    learning();
    tune();
    hooks();
    if (check_failures)
        fprintf(stderr, "test_catalog_swap: %d checks failed\n", check_failures);
    else
        printf("test_catalog_swap: all checks passed\n");
    return check_failures != 0;
}
