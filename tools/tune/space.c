/*
 * The search space: one dimension per hint that affects speed, each with
 * value 0 = "not set" (ferry's default, whatever it is) and a few values
 * around the default the library reported in a default run. Nothing here
 * knows a default value: ladders are built from the probe's "hints" record.
 *
 * Which hints matter depends on the others (cb_nodes only under two-phase,
 * the sieving buffers only when independent I/O has holes); canon() resets
 * a value that cannot matter, so the search measures each distinct
 * configuration once. The rules mirror docs/collective.md and docs/hints.md.
 */
#define _GNU_SOURCE /* strdup, strtok_r, strcasecmp */
#include "tune.h"
#include "util/strategy_desc.h"
#include "util/size.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- values ---- */

void tune_space_default_value(const tune_facts *f, const char *key, char *buf, size_t len)
{
    const json_t *v = f->have_defaults ? tj_at(f->defaults, key) : NULL;
    if (!v)
        snprintf(buf, len, "?");
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_number(v) && !strcmp(key, "ferry_local_aggregators") && json_number_value(v) >= 2147483647.0)
        snprintf(buf, len, "all");
    else if (json_is_number(v))
        snprintf(buf, len, "%.0f", json_number_value(v));
    else
        snprintf(buf, len, "?");
}

static double default_num(const tune_facts *f, const char *key, double def)
{
    return f->have_defaults ? tj_num(f->defaults, key, def) : def;
}

static int find(const tune_space *s, const char *key)
{
    for (int d = 0; d < s->ndims; d++)
        if (!strcmp(s->dim[d].key, key))
            return d;
    return -1;
}

/* The effective value of hint key at point v: the set value, or the default. */
static void value_at(const tune_space *s, const int *v, const char *key, char *buf, size_t len)
{
    int d = find(s, key);
    if (d >= 0 && s->dim[d].val[v[d]])
        snprintf(buf, len, "%s", s->dim[d].val[v[d]]);
    else
        tune_space_default_value(s->facts, key, buf, len);
}

static int add_dim(tune_space *s, const char *key, const char *why)
{
    if (s->ndims >= TUNE_MAX_DIMS)
        return -1;
    tune_dim *d = &s->dim[s->ndims];
    memset(d, 0, sizeof *d);
    d->key = key;
    d->why = why;
    d->nvals = 1; /* val[0] = NULL: ferry's default */
    return s->ndims++;
}

static void add_val(tune_space *s, int d, const char *v)
{
    if (d < 0)
        return;
    tune_dim *t = &s->dim[d];
    char def[256];
    tune_space_default_value(s->facts, t->key, def, sizeof def);
    if (!strcasecmp(v, def) || t->nvals >= TUNE_MAX_VALS)
        return;
    for (int i = 1; i < t->nvals; i++)
        if (!strcmp(t->val[i], v))
            return;
    t->val[t->nvals++] = strdup(v);
}

static void add_size(tune_space *s, int d, int64_t v)
{
    if (d < 0 || v <= 0)
        return;
    if ((double)v == default_num(s->facts, s->dim[d].key, -1))
        return;
    char b[32];
    ferry_size_format((double)v, FERRY_SIZE_HINT, b, sizeof b);
    add_val(s, d, b);
}

static void note(tune_space *s, const char *fmt, const char *a, const char *b)
{
    size_t at = strlen(s->notes);
    snprintf(s->notes + at, sizeof s->notes - at, fmt, a, b);
}

/* ---- which dimensions the user asked for ---- */

static const char *only_entry(const tune_space_opts *o, const char *key)
{
    for (int i = 0; i < o->nonly; i++) {
        size_t n = strcspn(o->only[i], "=");
        if (strlen(key) == n && !strncmp(o->only[i], key, n))
            return o->only[i];
    }
    return NULL;
}

static int wanted(const tune_space_opts *o, const char *key)
{
    for (int i = 0; i < o->nexclude; i++)
        if (!strcmp(o->exclude[i], key))
            return 0;
    return o->nonly == 0 || only_entry(o, key) != NULL;
}

/* --only KEY=V1|V2: exactly these values ("default" = not set). */
static void forced_values(tune_space *s, int d, const char *list)
{
    tune_dim *t = &s->dim[d];
    for (int i = 1; i < t->nvals; i++)
        free(t->val[i]);
    t->nvals = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *v = strtok_r(copy, "|", &save); v && t->nvals < TUNE_MAX_VALS; v = strtok_r(NULL, "|", &save)) {
        while (isspace((unsigned char)*v))
            v++;
        t->val[t->nvals++] = !strcasecmp(v, "default") ? NULL : strdup(v);
    }
    free(copy);
    if (t->nvals == 0)
        t->nvals = 1;
}

/* ---- the space ---- */

static int strategy_possible(const char *eff, const char *name)
{
    return !strcasecmp(eff, name) || !strcasecmp(eff, "auto") || !strcasecmp(eff, "automatic");
}

/* Strategy i of the list when ferry-tune searches it and it is of `kind`, else NULL. */
static const ferry_strategy_desc *searched(int i, ferry_strategy_kind kind)
{
    const ferry_strategy_desc *d = ferry_strategy_at(i);
    return d && d->kind == kind && (d->roles & FERRY_ROLE_TUNED) ? d : NULL;
}

/* Can the collective strategy eff end up as name? auto ends up where the
 * default run saw it go (auto decides from the access pattern, which no hint
 * of the space changes but the stripe size; see docs/collective.md). */
static int strategy_runs(const char *eff, const char *chosen, const char *name)
{
    if ((!strcasecmp(eff, "auto") || !strcasecmp(eff, "automatic")) && chosen[0])
        return !strcasecmp(chosen, name);
    return strategy_possible(eff, name);
}

int tune_space_build(tune_space *s, const tune_facts *f, const tune_space_opts *o, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->facts = f;
    int P = f->ranks, ppn = f->ppn > 0 ? f->ppn : 1;

#define DIM(key, cond, why, skipwhy)                                                                                   \
    ((cond) && wanted(o, key) ? add_dim(s, key, why)                                                                   \
                              : (wanted(o, key) && (skipwhy)[0] ? (note(s, "  %s: %s\n", key, skipwhy), -1) : -1))

    int ws = DIM("ferry_write_strategy", f->coll_w, "strategy of collective writes",
                 "left out: the workload makes no collective writes");
    int rs = DIM("ferry_read_strategy", f->coll_r, "strategy of collective reads",
                 "left out: the workload makes no collective reads");
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = searched(i, FERRY_STRATEGY_COLLECTIVE);
        if (!d)
            continue;
        if ((d->needs & FERRY_NEEDS_NODE_MATES) && ppn < 2) {
            char what[64];
            snprintf(what, sizeof what, "strategy %s", d->name);
            if (ws >= 0 || rs >= 0)
                note(s, "  %s: %s\n", what, "left out: one rank per node, nothing to merge on a node");
            continue;
        }
        add_val(s, ws, d->name);
        add_val(s, rs, d->name);
    }

    int coll_any = f->coll_w || f->coll_r;
    int cbs = DIM("cb_buffer_size", coll_any, "collective buffer per aggregator and round (two-phase, local)",
                  "left out: no collective calls");
    int64_t cbd = (int64_t)default_num(f, "cb_buffer_size", 0);
    if (cbd > 0) {
        add_size(s, cbs, cbd / 16);
        add_size(s, cbs, cbd / 4);
        add_size(s, cbs, cbd * 4);
    }
    int cbl = DIM("cb_config_list", coll_any && ppn > 1, "aggregators per node (two-phase)",
                  coll_any ? "left out: one rank per node" : "");
    for (int k = 2; k < ppn; k *= 2) {
        char b[32];
        snprintf(b, sizeof b, "*:%d", k);
        add_val(s, cbl, b);
    }
    add_val(s, cbl, "*:*");
    int cbn = DIM("cb_nodes", coll_any && P > 1, "number of aggregators (two-phase)", "");
    for (int k = 1; k < P; k *= 2) {
        char b[32];
        snprintf(b, sizeof b, "%d", k);
        add_val(s, cbn, b);
    }
    int la = DIM("ferry_local_aggregators", coll_any && ppn > 1, "ranks per node that write in local aggregation",
                 "");
    for (int k = 2; k < ppn; k *= 2) {
        char b[32];
        snprintf(b, sizeof b, "%d", k);
        add_val(s, la, b);
    }
    add_val(s, la, "all");

    /* sieving: for independent I/O with holes (and collective calls that
     * may run as independent ones) */
    int sw_any = (f->ind_w || f->coll_w) && f->gaps_w != 0, sr_any = (f->ind_r || f->coll_r) && f->gaps_r != 0;
    const char *no_holes = "left out: the workload's independent accesses have no holes, nothing to sieve";
    int dsw = DIM("romio_ds_write", sw_any, "data sieving for independent writes", no_holes);
    int dsr = DIM("romio_ds_read", sr_any, "data sieving for independent reads", no_holes);
    add_val(s, dsw, "enable");
    add_val(s, dsr, "enable");
    /* disabling what the default run never did is the default again */
    if (f->sieved_w)
        add_val(s, dsw, "disable");
    if (f->sieved_r)
        add_val(s, dsr, "disable");
    int iwb = DIM("ind_wr_buffer_size", sw_any, "sieving buffer for independent writes", "");
    int irb = DIM("ind_rd_buffer_size", sr_any, "sieving buffer for independent reads", "");
    int64_t iwd = (int64_t)default_num(f, "ind_wr_buffer_size", 0), ird = (int64_t)default_num(f, "ind_rd_buffer_size", 0);
    add_size(s, iwb, iwd / 4);
    add_size(s, iwb, iwd * 4);
    add_size(s, iwb, iwd * 16);
    add_size(s, irb, ird / 4);
    add_size(s, irb, ird * 4);
    int dst = DIM("ferry_ds_threshold", sw_any || sr_any, "automatic sieving when the mean gap is below this", "");
    int64_t dtd = (int64_t)default_num(f, "ferry_ds_threshold", 0);
    add_size(s, dst, dtd / 4);
    add_size(s, dst, dtd * 4);
    add_size(s, dst, dtd * 16);

    /* alignment of two-phase file domains to the stripe */
    int su = DIM("striping_unit", coll_any, "stripe size: two-phase file domains align to it", "");
    int64_t sud = (int64_t)default_num(f, "striping_unit", 0);
    add_size(s, su, sud > 0 ? sud / 4 : (int64_t)1 << 20);
    add_size(s, su, sud > 0 ? sud * 4 : (int64_t)4 << 20);
    int sf = DIM("striping_factor", coll_any && f->striped_fs, "stripe count at create (Lustre, GPFS)",
                 coll_any ? "left out: the test file is not on a striped file system" : "");
    for (int k = 2; k <= 4 * P && k <= 64; k *= 2) {
        char b[32];
        snprintf(b, sizeof b, "%d", k);
        add_val(s, sf, b);
    }
    int pl = DIM("ferry_aggregator_placement", coll_any && f->topology, "aggregator placement (two-phase)",
                 coll_any ? "left out: placement=topology needs FERRY_TOPOLOGY; without it both placements are the same"
                          : "");
    add_val(s, pl, "spread");
    add_val(s, pl, "topology");

    /* forwarding: only when the library reports it */
    const char *fwd = "left out: a probe run with ferry_ind_*_strategy=forward did not forward (its statistics "
                      "name another strategy: no forwarding in this ferry, or no MPI_THREAD_MULTIPLE)";
    /* only independent calls forward: collective calls served independently
     * take the direct and sieving path (src/strategy/independent.c) */
    int fw = DIM("ferry_ind_write_strategy", f->ind_w && f->forward, "forwarding of independent writes",
                 f->ind_w ? (f->forward ? "" : fwd) : "");
    int fr = DIM("ferry_ind_read_strategy", f->ind_r && f->forward, "forwarding of independent reads",
                 f->ind_r && !f->forward && !f->ind_w ? fwd : "");
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = searched(i, FERRY_STRATEGY_INDEPENDENT);
        if (!d)
            continue;
        add_val(s, fw, d->name);
        add_val(s, fr, d->name);
    }
    /* node mates' records coalesce on collectors before the forwarder: with
     * one rank per node there is nothing to coalesce */
    int fc = DIM("ferry_forward_collectors", (fw >= 0 || fr >= 0) && ppn > 1,
                 "ranks per node that coalesce records for the forwarder", "");
    add_val(s, fc, "0");
    for (int k = 2; k < ppn; k *= 2) {
        char b[32];
        snprintf(b, sizeof b, "%d", k);
        add_val(s, fc, b);
    }
#undef DIM
    if (wanted(o, "direct_read") || wanted(o, "direct_write"))
        note(s, "  %s: %s\n", "direct_read, direct_write",
             "left out: ferry accepts them but does not act on them yet (no effect on speed)");

    /* --only KEY=V1|V2 overrides the values; a key the space lacks is added
     * when values are given */
    for (int i = 0; i < o->nonly; i++) {
        const char *eq = strchr(o->only[i], '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq ? eq - o->only[i] : (long)strlen(o->only[i])), o->only[i]);
        if (!wanted(o, key))
            continue; /* --exclude wins */
        int d = find(s, key);
        if (d < 0 && !eq) {
            snprintf(err, errlen,
                     "--only %s: not in the space for this workload (see --list); give values: --only '%s=V1|V2'", key,
                     key);
            return -1;
        }
        if (d < 0) {
            char *k = strdup(key); /* owned: freed with the space */
            d = add_dim(s, k, "given with --only");
            if (d < 0) {
                free(k);
                snprintf(err, errlen, "too many dimensions");
                return -1;
            }
            s->dim[d].why = NULL; /* marks an owned key */
        }
        if (eq)
            forced_values(s, d, eq + 1);
    }
    if (s->ndims == 0) {
        snprintf(err, errlen, "the search space is empty for this workload");
        return -1;
    }

    /* the problem's shape; anchors: every collective strategy set to one value */
    tune_problem *pb = &s->pb;
    pb->ndims = s->ndims;
    s->origin_is_default = 1;
    for (int d = 0; d < s->ndims; d++) {
        pb->nvals[d] = s->dim[d].nvals;
        pb->order[d] = d;
        pb->origin[d] = 0;
        if (s->dim[d].val[0])
            s->origin_is_default = 0;
    }
    int wsd = find(s, "ferry_write_strategy"), rsd = find(s, "ferry_read_strategy");
    for (int i = 0; i < ferry_strategy_count() && pb->nanchors < TUNE_MAX_ANCHORS; i++) {
        const ferry_strategy_desc *c = searched(i, FERRY_STRATEGY_COLLECTIVE);
        int a[TUNE_MAX_DIMS] = {0}, any = 0;
        for (int k = 0; c && k < 2; k++) {
            int d = k ? rsd : wsd;
            if (d < 0)
                continue;
            for (int x = 0; x < s->dim[d].nvals; x++)
                if (s->dim[d].val[x] && !strcmp(s->dim[d].val[x], c->name))
                    a[d] = x, any = 1;
        }
        if (any)
            memcpy(pb->anchors[pb->nanchors++], a, sizeof a);
    }
    return 0;
}

void tune_space_free(tune_space *s)
{
    for (int d = 0; d < s->ndims; d++) {
        for (int i = 0; i < s->dim[d].nvals; i++)
            free(s->dim[d].val[i]);
        if (!s->dim[d].why)
            free((char *)s->dim[d].key);
    }
    s->ndims = 0;
}

/* Aggregators per node that cb_config_list allows ("*:k", "*:*"); the
 * ranks per node for a list naming hosts (never resets what may matter). */
static int per_node(const char *list, int ppn)
{
    if (!strncmp(list, "*:", 2)) {
        if (list[2] == '*')
            return ppn;
        int k = atoi(list + 2);
        return k > 0 ? (k < ppn ? k : ppn) : ppn;
    }
    return ppn;
}

/* 1 when a collective strategy lists hint among those that tune it. */
static int coll_tuned(const char *hint)
{
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind == FERRY_STRATEGY_COLLECTIVE && ferry_strategy_takes(d, hint))
            return 1;
    }
    return 0;
}

/* 1 when a collective strategy that takes hint may run under the write and
 * read strategies w and r (alone on its node, one that merges a node's
 * pieces does not run). */
static int coll_takes(const tune_facts *f, const char *w, const char *r, const char *hint)
{
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != FERRY_STRATEGY_COLLECTIVE || !ferry_strategy_takes(d, hint) ||
            ((d->needs & FERRY_NEEDS_NODE_MATES) && f->ppn <= 1))
            continue;
        if ((f->coll_w && strategy_runs(w, f->chosen_w, d->name)) || (f->coll_r && strategy_runs(r, f->chosen_r, d->name)))
            return 1;
    }
    return 0;
}

void tune_space_canon(const tune_space *s, int *v)
{
    const tune_facts *f = s->facts;
    char w[64], r[64], list[256], dsw[64], dsr[64];
    value_at(s, v, "ferry_write_strategy", w, sizeof w);
    value_at(s, v, "ferry_read_strategy", r, sizeof r);
    const char *cw = f->chosen_w, *cr = f->chosen_r;
    /* forwarded independent calls neither sieve nor write directly; collective
     * calls served independently never forward */
    char fw[64], fr[64];
    value_at(s, v, "ferry_ind_write_strategy", fw, sizeof fw);
    value_at(s, v, "ferry_ind_read_strategy", fr, sizeof fr);
    int fwd_w = f->ind_w && !strcasecmp(fw, "forward"), fwd_r = f->ind_r && !strcasecmp(fr, "forward");
    int iw = (f->ind_w && !fwd_w) || (f->coll_w && strategy_runs(w, cw, "independent"));
    int ir = (f->ind_r && !fwd_r) || (f->coll_r && strategy_runs(r, cr, "independent"));
    int sw = iw && f->gaps_w != 0, sr = ir && f->gaps_r != 0;
    value_at(s, v, "romio_ds_write", dsw, sizeof dsw);
    value_at(s, v, "romio_ds_read", dsr, sizeof dsr);
    /* automatic sieving that the default run did not do stays off unless the
     * threshold moves: its buffers cannot matter */
    int dtd = find(s, "ferry_ds_threshold"), threshold_set = dtd >= 0 && s->dim[dtd].val[v[dtd]];
    int sieve_w = strcasecmp(dsw, "disable") && (strcasecmp(dsw, "automatic") || f->sieved_w || threshold_set);
    int sieve_r = strcasecmp(dsr, "disable") && (strcasecmp(dsr, "automatic") || f->sieved_r || threshold_set);

    for (int d = 0; d < s->ndims; d++) {
        const char *k = s->dim[d].key;
        int matters = 1;
        if (!strcmp(k, "striping_unit")) /* also a threshold of auto's */
            matters = coll_takes(f, w, r, k) || (f->coll_w && strategy_possible(w, "auto")) ||
                      (f->coll_r && strategy_possible(r, "auto"));
        else if (!strcmp(k, "cb_nodes")) {
            value_at(s, v, "cb_config_list", list, sizeof list);
            const char *val = s->dim[d].val[v[d]];
            matters = coll_takes(f, w, r, k) && (!val || atoi(val) < f->nodes * per_node(list, f->ppn));
        } else if (coll_tuned(k))
            matters = coll_takes(f, w, r, k);
        else if (!strcmp(k, "ferry_ind_write_strategy"))
            matters = f->ind_w;
        else if (!strcmp(k, "ferry_ind_read_strategy"))
            matters = f->ind_r;
        else if (!strcmp(k, "ferry_forward_collectors"))
            matters = fwd_w || fwd_r;
        else if (!strcmp(k, "romio_ds_write"))
            matters = sw;
        else if (!strcmp(k, "romio_ds_read"))
            matters = sr;
        else if (!strcmp(k, "ind_wr_buffer_size"))
            matters = sw && sieve_w;
        else if (!strcmp(k, "ind_rd_buffer_size"))
            matters = sr && sieve_r;
        else if (!strcmp(k, "ferry_ds_threshold"))
            matters = (sw && strategy_possible(dsw, "automatic")) || (sr && strategy_possible(dsr, "automatic"));
        if (!matters)
            v[d] = 0;
    }
}

int tune_space_set_count(const tune_space *s, const int *v)
{
    int n = 0;
    for (int d = 0; d < s->ndims; d++)
        n += s->dim[d].val[v[d]] != NULL;
    return n;
}

void tune_space_hints(const tune_space *s, const int *v, const char *fixed, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    int any = fixed && *fixed;
    if (any)
        at += (size_t)snprintf(buf, len, "*:%s", fixed);
    /* cb_config_list last: its value holds ':' and ',' */
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < s->ndims && at < len; d++) {
            const char *val = s->dim[d].val[v[d]];
            if (!val || (pass == 0) != (strcmp(s->dim[d].key, "cb_config_list") != 0))
                continue;
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", any ? ":" : "*:", s->dim[d].key, val);
            any = 1;
        }
}

void tune_space_describe(const tune_space *s, const int *v, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < s->ndims && at < len; d++)
        if (s->dim[d].val[v[d]])
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", s->dim[d].key, s->dim[d].val[v[d]]);
    if (!at)
        snprintf(buf, len, "%s", "defaults");
}

void tune_space_print(const tune_space *s, FILE *out)
{
    fprintf(out, "search space: %d hints\n", s->ndims);
    for (int d = 0; d < s->ndims; d++) {
        char def[256];
        tune_space_default_value(s->facts, s->dim[d].key, def, sizeof def);
        fprintf(out, "  %-28s default %-12s values:", s->dim[d].key, def);
        for (int i = 0; i < s->dim[d].nvals; i++)
            fprintf(out, " %s", s->dim[d].val[i] ? s->dim[d].val[i] : "(default)");
        fprintf(out, "\n    %s\n", s->dim[d].why ? s->dim[d].why : "given with --only");
    }
    if (s->notes[0])
        fprintf(out, "not searched:\n%s", s->notes);
}
