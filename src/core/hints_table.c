/*
 * The table of every hint ferry knows, and the parsers and formatters of
 * their values. Everything else in the hints module walks this table, so a
 * new hint is one line here (plus its field in ferry_hints).
 *
 * The parsers are written to be fuzzed: bounded copies only, strtoll with
 * errno checks, overflow checked before every multiplication.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hints_internal.h"
#include "util/strategy_desc.h"
#include "util/size.h"
#include "util/suggest.h"

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define TiB ((int64_t)1 << 40)

_Static_assert(sizeof(ferry_tri) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_coll_strategy) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_ind_strategy) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_placement) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_fwd_assign) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_fwd_errors) == sizeof(int), "enum hints are stored as int");
_Static_assert(sizeof(ferry_learn_mode) == sizeof(int), "enum hints are stored as int");

#define OFF(f) offsetof(ferry_hints, f)

/* clang-format off */
const hint_def ferry_hint_table[] = {
    /* name                      kind         offset                        field alias agree default        min  max            def_str help */
    {"cb_buffer_size",           HK_SIZE,     OFF(cb_buffer_size),          0,  0, 1, 16 * MiB,          1,   TiB,           NULL, "collective buffer per aggregator and round"},
    {"cb_nodes",                 HK_INT,      OFF(cb_nodes),                1,  0, 1, 0,                 0,   1 << 24,       NULL, "number of aggregators (0: one per node, set at open)"},
    {"cb_config_list",           HK_CBLIST,   OFF(cb_config_list),          2,  0, 1, 0,                 0,   0,             "*:1", "aggregators per host: host[:n|*],... (first match wins)"},
    {"romio_cb_read",            HK_CBTRI,    OFF(read_strategy),           13, 1, 1, FERRY_COLL_AUTO,   0,   0,             NULL, "alias of ferry_read_strategy: enable=twophase disable=independent"},
    {"romio_cb_write",           HK_CBTRI,    OFF(write_strategy),          12, 1, 1, FERRY_COLL_AUTO,   0,   0,             NULL, "alias of ferry_write_strategy: enable=twophase disable=independent"},
    {"romio_ds_read",            HK_TRI,      OFF(romio_ds_read),           3,  0, 1, FERRY_TRI_AUTO,    0,   0,             NULL, "data sieving for independent reads"},
    {"romio_ds_write",           HK_TRI,      OFF(romio_ds_write),          4,  0, 1, FERRY_TRI_AUTO,    0,   0,             NULL, "data sieving for independent writes"},
    {"ind_rd_buffer_size",       HK_SIZE,     OFF(ind_rd_buffer_size),      5,  0, 0, 4 * MiB,           1,   TiB,           NULL, "sieving buffer for independent reads"},
    {"ind_wr_buffer_size",       HK_SIZE,     OFF(ind_wr_buffer_size),      6,  0, 0, 512 * KiB,         1,   TiB,           NULL, "sieving buffer for independent writes"},
    {"romio_no_indep_rw",        HK_BOOL,     OFF(romio_no_indep_rw),       7,  0, 1, 0,                 0,   1,             NULL, "program promises collective I/O only (deferred open)"},
    {"striping_factor",          HK_INT,      OFF(striping_factor),         8,  0, 1, 0,                 0,   1000000,       NULL, "stripe count at create (0: file system default)"},
    {"striping_unit",            HK_SIZE,     OFF(striping_unit),           9,  0, 1, 0,                 0,   TiB,           NULL, "stripe size at create (0: file system default)"},
    {"direct_read",              HK_BOOL,     OFF(direct_read),             10, 0, 0, 0,                 0,   1,             NULL, "O_DIRECT reads"},
    {"direct_write",             HK_BOOL,     OFF(direct_write),            11, 0, 0, 0,                 0,   1,             NULL, "O_DIRECT writes"},
    {"ferry_write_strategy",     HK_COLL,     OFF(write_strategy),          12, 0, 1, FERRY_COLL_AUTO,   0,   0,             NULL, "collective writes: a collective strategy, or auto"},
    {"ferry_read_strategy",      HK_COLL,     OFF(read_strategy),           13, 0, 1, FERRY_COLL_AUTO,   0,   0,             NULL, "collective reads: a collective strategy, or auto"},
    {"ferry_ind_write_strategy", HK_IND,      OFF(ind_write_strategy),      14, 0, 1, FERRY_IND_AUTO,    0,   0,             NULL, "independent writes: an independent strategy, or auto"},
    {"ferry_ind_read_strategy",  HK_IND,      OFF(ind_read_strategy),       15, 0, 1, FERRY_IND_AUTO,    0,   0,             NULL, "independent reads: an independent strategy, or auto"},
    {"ferry_local_aggregators",  HK_LOCALAGG, OFF(local_aggregators),       16, 0, 1, 1,                 1,   1 << 20,       NULL, "ranks per node that write in local aggregation (or all)"},
    {"ferry_aggregator_placement", HK_PLACE,  OFF(aggregator_placement),    17, 0, 1, FERRY_PLACE_SPREAD, 0,  0,             NULL, "spread|topology"},
    {"ferry_ds_threshold",       HK_SIZE,     OFF(ds_threshold),            18, 0, 1, 64 * KiB,          0,   TiB,           NULL, "auto sieves when the mean gap is below this"},
    {"ferry_forward_collectors", HK_INT,      OFF(forward_collectors),      19, 0, 1, 1,                 0,   1 << 20,       NULL, "forwarding: ranks per node that coalesce its records (0: none)"},
    {"ferry_forward_assign",     HK_FWDASSIGN, OFF(forward_assign),         20, 0, 1, FERRY_FWD_AUTO, 0, 0,                NULL, "forwarding gateways on FERRY_TOPOLOGY: auto (the model's advice)|default|route-aware|load-aware|refined"},
    {"ferry_forward_errors",     HK_FWDERR,   OFF(forward_errors),          21, 0, 0, FERRY_FWD_ERR_CALL, 0, 0,            NULL, "forwarded write errors: call (the write waits for the forwarder) or deferred (write-behind: next call, sync, close)"},
    {"ferry_cache_coherent",     HK_TRI,      OFF(cache_coherent),          22, 0, 1, FERRY_TRI_AUTO,    0,   0,             NULL, "client caches coherent between processes: auto (detected), enable (vouched for), disable"},
    {"ferry_io_timeout",         HK_INT,      OFF(io_timeout),              26, 0, 0, 0,                 0,   1 << 24,       NULL, "seconds one system call on the file may wait before ferry ends the job (0: as long as the file system waits)"},
    {"ferry_io_nodes",           HK_HOSTS,    OFF(io_nodes),                27, 0, 1, 0,                 0,   0,             "none", "I/O nodes for the ionode strategy's aggregators: host,host,... (a server on each), a count N (N servers where the launcher puts them), or none"},
    {"ferry_learn",              HK_LEARN,    OFF(learn),                   23, 0, 1, FERRY_LEARN_AUTO,  0,   0,             NULL, "auto measures: auto (trials on repeats, within a tenth of the time, kept in the store), explore (no such limit), reuse (the store only), off (the rules)"},
    {"ferry_learn_trials",       HK_INT,      OFF(learn_trials),            24, 0, 1, 8,                 0,   1000,          NULL, "trial calls per pattern and open under ferry_learn"},
    {"ferry_learn_cache",        HK_PATH,     OFF(learn_cache),             25, 0, 0, 0,                 0,   0,             "default", "the store of learned choices: a path, off, or default (FERRY_LEARN_CACHE, else ~/.cache/ferry/learned.json)"},
};
/* clang-format on */
const int ferry_hint_count = (int)(sizeof ferry_hint_table / sizeof ferry_hint_table[0]);
_Static_assert(sizeof ferry_hint_table / sizeof ferry_hint_table[0] <= FERRY_HINT_NFIELDS,
               "FERRY_HINT_NFIELDS too small");

typedef struct {
    const char *name;
    int value;
} enum_name;

static const enum_name tri_names[] = {
    {"enable", FERRY_TRI_ENABLE}, {"disable", FERRY_TRI_DISABLE},
    {"automatic", FERRY_TRI_AUTO}, {"auto", FERRY_TRI_AUTO}, {NULL, 0}};
static const enum_name cbtri_names[] = {
    {"enable", FERRY_COLL_TWOPHASE}, {"disable", FERRY_COLL_INDEPENDENT},
    {"automatic", FERRY_COLL_AUTO}, {"auto", FERRY_COLL_AUTO}, {NULL, 0}};
static const enum_name place_names[] = {
    {"spread", FERRY_PLACE_SPREAD}, {"topology", FERRY_PLACE_TOPOLOGY}, {NULL, 0}};
static const enum_name fwdassign_names[] = {
    {"auto", FERRY_FWD_AUTO}, {"route-aware", FERRY_FWD_ROUTE_AWARE}, {"default", FERRY_FWD_DEFAULT},
    {"refined", FERRY_FWD_REFINED}, {"load-aware", FERRY_FWD_LOAD_AWARE}, {NULL, 0}};
static const enum_name fwderr_names[] = {{"deferred", FERRY_FWD_ERR_DEFERRED}, {"call", FERRY_FWD_ERR_CALL}, {NULL, 0}};
static const enum_name learn_names[] = {
    {"auto", FERRY_LEARN_AUTO}, {"off", FERRY_LEARN_OFF}, {"reuse", FERRY_LEARN_REUSE},
    {"explore", FERRY_LEARN_EXPLORE}, {"automatic", FERRY_LEARN_AUTO}, {NULL, 0}};
static const enum_name bool_names[] = {
    {"true", 1}, {"false", 0}, {"enable", 1}, {"disable", 0}, {"yes", 1}, {"no", 0},
    {"1", 1}, {"0", 0}, {"on", 1}, {"off", 0}, {NULL, 0}};

const hint_def *ferry_hint_find(const char *key)
{
    if (!key)
        return NULL;
    for (int i = 0; i < ferry_hint_count; i++)
        if (strcmp(ferry_hint_table[i].name, key) == 0)
            return &ferry_hint_table[i];
    return NULL;
}

/* ---- field access (memcpy: no aliasing questions) ---- */

static int64_t get_i64(const ferry_hints *h, size_t off)
{
    int64_t v;
    memcpy(&v, (const char *)h + off, sizeof v);
    return v;
}
static void set_i64(ferry_hints *h, size_t off, int64_t v) { memcpy((char *)h + off, &v, sizeof v); }
static int get_int(const ferry_hints *h, size_t off)
{
    int v;
    memcpy(&v, (const char *)h + off, sizeof v);
    return v;
}
static void set_int(ferry_hints *h, size_t off, int v) { memcpy((char *)h + off, &v, sizeof v); }

/* ---- value parsers ---- */

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static int parse_enum(const enum_name *names, const char *s, int *out)
{
    for (const enum_name *e = names; e->name; e++)
        if (ieq(e->name, s)) {
            *out = e->value;
            return 0;
        }
    return -1;
}

/* The names of an enumerated kind's values, each value's printed name first. */
static const enum_name *names_of(hint_kind kind)
{
    switch (kind) {
    case HK_BOOL: return bool_names;
    case HK_TRI: return tri_names;
    case HK_CBTRI: return cbtri_names;
    case HK_PLACE: return place_names;
    case HK_FWDASSIGN: return fwdassign_names;
    case HK_FWDERR: return fwderr_names;
    case HK_LEARN: return learn_names;
    default: return NULL;
    }
}

static const char *enum_str(const enum_name *names, int v)
{
    for (const enum_name *e = names; e->name; e++)
        if (e->value == v)
            return e->name;
    return "?";
}

/* A non-negative decimal integer; a size goes through the one size parser
 * (util/size.h) that the tools use too. */
static int parse_number(const char *s, int is_size, int64_t *out, char *why, size_t whylen)
{
    if (is_size)
        return ferry_size_parse(s, out, why, whylen);
    if (!*s) {
        snprintf(why, whylen, "empty value");
        return -1;
    }
    if (*s == '-') {
        snprintf(why, whylen, "negative");
        return -1;
    }
    if (!isdigit((unsigned char)*s)) {
        snprintf(why, whylen, "not a number");
        return -1;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE) {
        snprintf(why, whylen, "too large");
        return -1;
    }
    if (errno != 0 || end == s || v < 0) {
        snprintf(why, whylen, "not a number");
        return -1;
    }
    if (*end) {
        snprintf(why, whylen, "not an integer");
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int in_range(const hint_def *d, int64_t v, char *why, size_t whylen)
{
    if (v < d->min || v > d->max) {
        if (v == 0 && d->min > 0)
            snprintf(why, whylen, "must not be zero");
        else
            snprintf(why, whylen, "out of range [%" PRId64 ", %" PRId64 "]", d->min, d->max);
        return -1;
    }
    return 0;
}

static int host_char(int c) { return isalnum(c) || c == '.' || c == '-' || c == '_'; }
static int count_char(int c) { return isdigit(c); }

/* Appends the n characters at f, one field of a cb_config_list entry, to
 * out at *o, after sep unless sep is 0. The field is * or characters ok
 * accepts; bad says what is wrong with any other. */
static int put_field(char *out, size_t *o, size_t outlen, char sep, const char *f, size_t n, int (*ok)(int),
                     const char *bad, char *why, size_t whylen)
{
    if (!(n == 1 && f[0] == '*'))
        for (size_t i = 0; i < n; i++)
            if (!ok((unsigned char)f[i])) {
                snprintf(why, whylen, "%s", bad);
                return -1;
            }
    if (*o + n + (sep ? 2 : 1) >= outlen) {
        snprintf(why, whylen, "too long");
        return -1;
    }
    if (sep)
        out[(*o)++] = sep;
    memcpy(out + *o, f, n);
    *o += n;
    return 0;
}

/* cb_config_list: host[:n|:*](,host[:n|:*])*, host = * or a host name. The
 * canonical form (spaces around entries removed) goes to out. */
static int parse_cblist(const char *s, char *out, size_t outlen, char *why, size_t whylen)
{
    size_t o = 0;
    const char *p = s;
    if (!*s) {
        snprintf(why, whylen, "empty value");
        return -1;
    }
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *h = p;
        while (*p && *p != ':' && *p != ',' && *p != ' ' && *p != '\t')
            p++;
        size_t hl = (size_t)(p - h);
        if (hl == 0) {
            snprintf(why, whylen, "empty host in entry");
            return -1;
        }
        if (put_field(out, &o, outlen, 0, h, hl, host_char, "bad host name", why, whylen))
            return -1;
        if (*p == ':') {
            p++;
            const char *c = p;
            while (*p && *p != ',' && *p != ' ' && *p != '\t')
                p++;
            size_t cl = (size_t)(p - c);
            if (cl == 0) {
                snprintf(why, whylen, "missing count after ':'");
                return -1;
            }
            if (cl > 7) { /* never the * form */
                snprintf(why, whylen, "count too large");
                return -1;
            }
            if (put_field(out, &o, outlen, ':', c, cl, count_char, "count is not a number or *", why, whylen))
                return -1;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        if (*p != ',') {
            snprintf(why, whylen, "expected ',' between entries");
            return -1;
        }
        p++;
        if (o + 2 >= outlen) {
            snprintf(why, whylen, "too long");
            return -1;
        }
        out[o++] = ',';
    }
    out[o] = '\0';
    return 0;
}

int ferry_hint_parse(ferry_hints *h, const hint_def *d, const char *value, char *why, size_t whylen)
{
    int64_t v = 0;
    int e = 0;
    switch (d->kind) {
    case HK_SIZE:
    case HK_INT:
        if (parse_number(value, d->kind == HK_SIZE, &v, why, whylen) || in_range(d, v, why, whylen))
            return -1;
        if (d->kind == HK_SIZE)
            set_i64(h, d->offset, v);
        else
            set_int(h, d->offset, (int)v);
        return 0;
    case HK_LOCALAGG:
        if (ieq(value, "all")) {
            set_int(h, d->offset, FERRY_LOCAL_AGG_ALL);
            return 0;
        }
        if (parse_number(value, 0, &v, why, whylen) || in_range(d, v, why, whylen)) {
            size_t n = strlen(why);
            if (n < whylen)
                snprintf(why + n, whylen - n, " (or all)");
            return -1;
        }
        set_int(h, d->offset, (int)v);
        return 0;
    case HK_COLL:
    case HK_IND: {
        /* the strategies' own list names them (util/strategy_desc.h) */
        ferry_strategy_kind kind = d->kind == HK_COLL ? FERRY_STRATEGY_COLLECTIVE : FERRY_STRATEGY_INDEPENDENT;
        e = ferry_strategy_id(kind, value);
        if (e < 0) {
            char choices[160];
            ferry_strategy_choices(kind, choices, sizeof choices);
            snprintf(why, whylen, "expected %s", choices);
            return -1;
        }
        set_int(h, d->offset, e);
        return 0;
    }
    case HK_BOOL:
    case HK_TRI:
    case HK_CBTRI:
    case HK_PLACE:
    case HK_FWDASSIGN:
    case HK_FWDERR:
    case HK_LEARN: {
        if (parse_enum(names_of(d->kind), value, &e)) {
            const char *expect = d->kind == HK_BOOL   ? "true or false"
                                 : d->kind == HK_TRI || d->kind == HK_CBTRI
                                     ? "enable, disable or automatic"
                                 : d->kind == HK_PLACE ? "spread or topology"
                                 : d->kind == HK_FWDERR ? "deferred or call"
                                 : d->kind == HK_LEARN ? "auto, explore, reuse or off"
                                                      : "route-aware, default or refined";
            snprintf(why, whylen, "expected %s", expect);
            return -1;
        }
        set_int(h, d->offset, e);
        return 0;
    }
    case HK_CBLIST: {
        char canon[FERRY_HINT_STR];
        if (parse_cblist(value, canon, sizeof canon, why, whylen))
            return -1;
        memcpy((char *)h + d->offset, canon, strlen(canon) + 1);
        return 0;
    }
    case HK_HOSTS: {
        char *end;
        errno = 0;
        long k = strtol(value, &end, 10);
        if (strcmp(value, "none") == 0 || (end != value && *end == '\0' && errno == 0 && k >= 1 && k <= 4096)) {
            snprintf((char *)h + d->offset, FERRY_HINT_STR, "%s", value);
            return 0;
        }
        size_t n = strlen(value);
        if (n == 0 || n >= FERRY_HINT_STR) {
            snprintf(why, whylen, n ? "too long" : "empty value");
            return -1;
        }
        if (strspn(value, "0123456789") == n) {
            snprintf(why, whylen, "a count is from 1 to 4096");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)value[i];
            int sep = c == ',' && i > 0 && i + 1 < n && value[i + 1] != ',';
            if (!sep && !isalnum(c) && c != '-' && c != '.' && c != '_') {
                snprintf(why, whylen, "expected none, a count from 1 to 4096, or host,host,...");
                return -1;
            }
        }
        memcpy((char *)h + d->offset, value, n + 1);
        return 0;
    }
    case HK_PATH: {
        size_t n = strlen(value);
        if (n == 0) {
            snprintf(why, whylen, "empty value");
            return -1;
        }
        if (n >= FERRY_HINT_STR) {
            snprintf(why, whylen, "too long");
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) {
                snprintf(why, whylen, "holds a control character");
                return -1;
            }
        memcpy((char *)h + d->offset, value, n + 1);
        return 0;
    }
    }
    snprintf(why, whylen, "internal: unknown kind");
    return -1;
}

size_t ferry_hint_raw(const ferry_hints *h, const hint_def *d, const void **p)
{
    *p = (const char *)h + d->offset;
    switch (d->kind) {
    case HK_SIZE: return sizeof(int64_t);
    case HK_CBLIST:
    case HK_HOSTS: return strnlen((const char *)*p, FERRY_HINT_STR);
    default: return sizeof(int);
    }
}

void ferry_hint_format(const ferry_hints *h, const hint_def *d, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    int v;
    switch (d->kind) {
    case HK_SIZE:
        snprintf(buf, len, "%" PRId64, get_i64(h, d->offset));
        return;
    case HK_INT:
        snprintf(buf, len, "%d", get_int(h, d->offset));
        return;
    case HK_LOCALAGG:
        v = get_int(h, d->offset);
        if (v == FERRY_LOCAL_AGG_ALL)
            snprintf(buf, len, "all");
        else
            snprintf(buf, len, "%d", v);
        return;
    case HK_BOOL:
        snprintf(buf, len, "%s", get_int(h, d->offset) ? "true" : "false");
        return;
    case HK_CBTRI:
        v = get_int(h, d->offset);
        snprintf(buf, len, "%s",
                 v == FERRY_COLL_TWOPHASE      ? "enable"
                 : v == FERRY_COLL_INDEPENDENT ? "disable"
                                               : "automatic");
        return;
    case HK_COLL:
    case HK_IND:
        snprintf(buf, len, "%s",
                 ferry_strategy_name(d->kind == HK_COLL ? FERRY_STRATEGY_COLLECTIVE : FERRY_STRATEGY_INDEPENDENT,
                                     get_int(h, d->offset)));
        return;
    case HK_TRI:
    case HK_PLACE:
    case HK_FWDASSIGN:
    case HK_FWDERR:
    case HK_LEARN:
        snprintf(buf, len, "%s", enum_str(names_of(d->kind), get_int(h, d->offset)));
        return;
    case HK_CBLIST:
    case HK_HOSTS:
    case HK_PATH: {
        const char *s = (const char *)h + d->offset;
        snprintf(buf, len, "%.*s", (int)strnlen(s, FERRY_HINT_STR - 1), s);
        return;
    }
    }
    buf[0] = '\0';
}

void ferry_hint_reset(ferry_hints *h, const hint_def *d)
{
    switch (d->kind) {
    case HK_SIZE:
        set_i64(h, d->offset, d->def);
        break;
    case HK_CBLIST:
    case HK_HOSTS:
    case HK_PATH: {
        char *s = (char *)h + d->offset;
        memset(s, 0, FERRY_HINT_STR);
        snprintf(s, FERRY_HINT_STR, "%s", d->def_str ? d->def_str : "");
        break;
    }
    default:
        set_int(h, d->offset, (int)d->def);
        break;
    }
}

const char *ferry_coll_strategy_name(ferry_coll_strategy s)
{
    return ferry_strategy_name(FERRY_STRATEGY_COLLECTIVE, (int)s);
}
const char *ferry_ind_strategy_name(ferry_ind_strategy s)
{
    return ferry_strategy_name(FERRY_STRATEGY_INDEPENDENT, (int)s);
}

const char *ferry_hint_closest(const char *key)
{
    const char *names[128];
    size_t n = 0;
    for (int i = 0; i < ferry_hint_count && n < sizeof names / sizeof *names; i++)
        names[n++] = ferry_hint_table[i].name;
    return ferry_suggest(key, names, n);
}
