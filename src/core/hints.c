/*
 * Hints: defaults, MPI_Info in and out, display, digest and cross-rank
 * agreement. The table and value parsers are in hints_table.c; the
 * FERRY_HINTS patterns and FERRY_HINTS_FILE in hints_env.c.
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hints_internal.h"
#include "core/version.h"
#include "ferry.h"
#include "util/fnv.h"
#include "util/json.h"
#include "util/size.h"

#define NWARN ((int)(sizeof(((ferry_hint_warnings *)0)->msg) / sizeof(((ferry_hint_warnings *)0)->msg[0])))

void ferry_hint_warn(ferry_hint_warnings *w, const char *fmt, ...)
{
    if (!w)
        return;
    if (w->n < 0)
        w->n = 0;
    if (w->n > NWARN)
        w->n = NWARN;
    if (w->n == NWARN) {
        /* full: the last slot says so */
        snprintf(w->msg[NWARN - 1], sizeof w->msg[0], "further hint warnings suppressed");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[w->n], sizeof w->msg[0], fmt, ap);
    va_end(ap);
    w->n++;
}

void ferry_hints_defaults(ferry_hints *h)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < ferry_hint_count; i++)
        if (!ferry_hint_table[i].alias)
            ferry_hint_reset(h, &ferry_hint_table[i]);
}

static const char *src_name(ferry_hint_source s)
{
    switch (s) {
    case FERRY_HINT_SRC_DEFAULT: return "default";
    case FERRY_HINT_SRC_INFO: return "info";
    case FERRY_HINT_SRC_FILE: return "file";
    case FERRY_HINT_SRC_ENV: return "env";
    case FERRY_HINT_SRC_DERIVED: return "derived";
    }
    return "?";
}

static const char *src_label(ferry_hint_source s)
{
    switch (s) {
    case FERRY_HINT_SRC_INFO: return "MPI_Info";
    case FERRY_HINT_SRC_FILE: return "FERRY_HINTS_FILE";
    case FERRY_HINT_SRC_ENV: return "FERRY_HINTS";
    default: return "hint";
    }
}

/* Copies value without surrounding blanks into out (FERRY_HINT_STR bytes).
 * Returns -1 if it does not fit. */
static int trimmed(const char *value, char *out)
{
    size_t n = strnlen(value, FERRY_HINT_STR * 4);
    const char *b = value, *e = value + n;
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if ((size_t)(e - b) >= FERRY_HINT_STR)
        return -1;
    memcpy(out, b, (size_t)(e - b));
    out[e - b] = '\0';
    return 0;
}

int ferry_hint_apply_one(ferry_hints *h, const char *key, const char *value, ferry_hint_source src,
                         const char *ctx, ferry_hint_warnings *w)
{
    const hint_def *d = ferry_hint_find(key);
    if (!d)
        return 0;
    char v[FERRY_HINT_STR], why[96];
    if (!value) {
        ferry_hint_warn(w, "%s: hint %s has no value, ignored", ctx, d->name);
        return -1;
    }
    if (trimmed(value, v)) {
        ferry_hint_warn(w, "%s: hint %s=\"%.32s...\" ignored: value longer than %d characters",
                        ctx, d->name, value, FERRY_HINT_STR - 1);
        return -1;
    }
    if (ferry_hint_parse(h, d, v, why, sizeof why)) {
        ferry_hint_warn(w, "%s: hint %s=\"%.64s\" ignored: %s", ctx, d->name, v, why);
        return -1;
    }
    if (d->field >= 0 && d->field < FERRY_HINT_NFIELDS)
        h->source[d->field] = (unsigned char)src;
    return 1;
}

int ferry_hints_set_from(ferry_hints *h, const char *key, const char *value, ferry_hint_source src,
                         ferry_hint_warnings *w)
{
    if (!h || !key)
        return 0;
    return ferry_hint_apply_one(h, key, value, src, src_label(src), w) != 0;
}

int ferry_hints_set(ferry_hints *h, const char *key, const char *value, ferry_hint_warnings *w)
{
    return ferry_hints_set_from(h, key, value, FERRY_HINT_SRC_DERIVED, w);
}

void ferry_hints_derive(ferry_hints *h)
{
    if (!h || !h->romio_no_indep_rw)
        return;
    /* ROMIO: "if we aren't doing independent io, then we have to do
     * collective", whatever romio_cb_* said before */
    static const char *const keys[] = {"ferry_read_strategy", "ferry_write_strategy"};
    ferry_coll_strategy *fields[] = {&h->read_strategy, &h->write_strategy};
    for (int i = 0; i < 2; i++)
        if (*fields[i] == FERRY_COLL_AUTO || *fields[i] == FERRY_COLL_INDEPENDENT)
            ferry_hints_set(h, keys[i], "twophase", NULL);
}

void ferry_hints_apply_info(ferry_hints *h, MPI_Info info, ferry_hint_warnings *w)
{
    if (!h || info == MPI_INFO_NULL)
        return;
    /* Table order: the romio_cb_* aliases come before ferry_*_strategy, so
     * when an info carries both names the ferry name wins. */
    for (int i = 0; i < ferry_hint_count; i++) {
        const hint_def *d = &ferry_hint_table[i];
        int flag = 0, vlen = 0;
        if (MPI_Info_get_valuelen(info, d->name, &vlen, &flag) != MPI_SUCCESS || !flag)
            continue;
        if (vlen < 0 || vlen >= FERRY_HINT_STR) {
            ferry_hint_warn(w, "MPI_Info: hint %s ignored: value longer than %d characters",
                            d->name, FERRY_HINT_STR - 1);
            continue;
        }
        char buf[FERRY_HINT_STR];
        memset(buf, 0, sizeof buf);
        flag = 0;
        if (MPI_Info_get(info, d->name, FERRY_HINT_STR - 1, buf, &flag) != MPI_SUCCESS || !flag)
            continue;
        buf[FERRY_HINT_STR - 1] = '\0';
        ferry_hint_apply_one(h, d->name, buf, FERRY_HINT_SRC_INFO, "MPI_Info", w);
    }
}

int ferry_hints_to_info(const ferry_hints *h, MPI_Info *info)
{
    int rc = MPI_Info_create(info);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < ferry_hint_count; i++) {
        char v[FERRY_HINT_STR];
        ferry_hint_format(h, &ferry_hint_table[i], v, sizeof v);
        rc = MPI_Info_set(*info, ferry_hint_table[i].name, v);
        if (rc != MPI_SUCCESS) {
            MPI_Info_free(info);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

int ferry_hints_get(const ferry_hints *h, const char *key, char *buf, size_t len)
{
    const hint_def *d = ferry_hint_find(key);
    if (!d || !h)
        return 0;
    ferry_hint_format(h, d, buf, len);
    return 1;
}

ferry_hint_source ferry_hints_source_of(const ferry_hints *h, const char *key)
{
    const hint_def *d = ferry_hint_find(key);
    if (!d || !h || d->field < 0 || d->field >= FERRY_HINT_NFIELDS)
        return FERRY_HINT_SRC_DEFAULT;
    unsigned s = h->source[d->field];
    return s <= FERRY_HINT_SRC_DERIVED ? (ferry_hint_source)s : FERRY_HINT_SRC_DEFAULT;
}

void ferry_hints_display(const ferry_hints *h, const char *filename, FILE *out)
{
    if (!h || !out)
        return;
    char text[8192];
    size_t o = 0;
#define PUT(...)                                                                         \
    do {                                                                                 \
        if (o < sizeof text) {                                                           \
            int n_ = snprintf(text + o, sizeof text - o, __VA_ARGS__);                   \
            if (n_ > 0)                                                                  \
                o += (size_t)n_ < sizeof text - o ? (size_t)n_ : sizeof text - o - 1;    \
        }                                                                                \
    } while (0)
    PUT("ferry: hints for \"%s\", %s\n", filename ? filename : "(none)", ferry_version());
    PUT("  %-28s %-24s %s\n", "hint", "value", "source");
    PUT("  %-28s %-24s %s\n", "----", "-----", "------");
    for (int i = 0; i < ferry_hint_count; i++) {
        const hint_def *d = &ferry_hint_table[i];
        char v[FERRY_HINT_STR], shown[FERRY_HINT_STR + 40];
        ferry_hint_format(h, d, v, sizeof v);
        if (d->kind == HK_SIZE) {
            char hs[32];
            int64_t x = strtoll(v, NULL, 10);
            ferry_size_format((double)x, FERRY_SIZE_SHORT, hs, sizeof hs);
            if (x >= 1024)
                snprintf(shown, sizeof shown, "%s (%s)", v, hs);
            else
                snprintf(shown, sizeof shown, "%s", v);
        } else {
            snprintf(shown, sizeof shown, "%s", v);
        }
        const char *src = src_name(ferry_hints_source_of(h, d->name));
        PUT("  %-28s %-24s %s\n", d->name, shown, src);
    }
#undef PUT
    /* one write, so lines of different ranks or files do not interleave */
    fwrite(text, 1, o, out);
    fflush(out);
}

void ferry_hints_print_romio(const ferry_hints *h, const char *filename, FILE *out)
{
    if (!h || !out)
        return;
    /* ROMIO's lines, which job scripts grep, after a line naming the file
     * (ROMIO's have none); one write, as the other displays */
    char text[8192];
    size_t o = 0;
    int n = snprintf(text, sizeof text, "ferry: ROMIO_PRINT_HINTS for \"%s\", %s\n", filename ? filename : "",
                     ferry_version());
    o = n > 0 && (size_t)n < sizeof text ? (size_t)n : 0;
    /* ROMIO's columns (a key in 25), wide enough for ferry's longest key,
     * so that every "value =" lines up */
    int width = 25;
    for (int i = 0; i < ferry_hint_count; i++)
        if ((int)strlen(ferry_hint_table[i].name) > width)
            width = (int)strlen(ferry_hint_table[i].name);
    for (int i = 0; i < ferry_hint_count && o < sizeof text; i++) {
        char v[FERRY_HINT_STR];
        ferry_hint_format(h, &ferry_hint_table[i], v, sizeof v);
        n = snprintf(text + o, sizeof text - o, "key = %-*s value = %-10s\n", width, ferry_hint_table[i].name, v);
        if (n > 0)
            o += (size_t)n < sizeof text - o ? (size_t)n : sizeof text - o - 1;
    }
    fwrite(text, 1, o, out);
    fflush(out);
}


static uint64_t field_hash(const ferry_hints *h, const hint_def *d)
{
    char v[FERRY_HINT_STR];
    ferry_hint_format(h, d, v, sizeof v);
    uint64_t x = ferry_fnv(FERRY_FNV_INIT, d->name, strlen(d->name));
    x = ferry_fnv(x, "=", 1);
    return ferry_fnv(x, v, strlen(v));
}

/* Over the stored values, not their text: an open computes it every time,
 * and formatting every hint cost more than the rest of the open's own work. */
uint64_t ferry_hints_digest(const ferry_hints *h)
{
    uint64_t x = FERRY_FNV_INIT;
    for (int i = 0; i < ferry_hint_count; i++) {
        const hint_def *d = &ferry_hint_table[i];
        if (d->alias || !d->must_agree)
            continue;
        const void *v;
        size_t n = ferry_hint_raw(h, d, &v);
        x = ferry_fnv(x, d->name, strlen(d->name));
        x = ferry_fnv(x, v, n);
        x = ferry_fnv(x, ";", 1);
    }
    return x;
}

int ferry_hints_equal(const ferry_hints *a, const ferry_hints *b)
{
    for (int i = 0; i < ferry_hint_count; i++) {
        const hint_def *d = &ferry_hint_table[i];
        if (d->alias)
            continue;
        char va[FERRY_HINT_STR], vb[FERRY_HINT_STR];
        ferry_hint_format(a, d, va, sizeof va);
        ferry_hint_format(b, d, vb, sizeof vb);
        if (strcmp(va, vb) != 0)
            return 0;
    }
    return 1;
}

/* One hint's value with its JSON type: sizes and counts as numbers, switches
 * as booleans, the rest as text. */
static json_t *hint_value(const ferry_hints *h, const hint_def *d)
{
    char v[FERRY_HINT_STR];
    ferry_hint_format(h, d, v, sizeof v);
    switch (d->kind) {
    case HK_SIZE:
    case HK_INT: return json_integer(strtoll(v, NULL, 10));
    case HK_LOCALAGG: return json_integer(h->local_aggregators);
    case HK_BOOL: return json_boolean(strcmp(v, "true") == 0);
    default: return ferry_json_str(v);
    }
}

int ferry_hints_to_json(const ferry_hints *h, char *buf, size_t len)
{
    int ok = 1;
    json_t *all = json_object();
    for (int i = 0; i < ferry_hint_count; i++)
        ferry_json_set(all, ferry_hint_table[i].name, hint_value(h, &ferry_hint_table[i]), &ok);
    char *line = ok ? ferry_json_line(all) : NULL;
    json_decref(all);
    if (!line) {
        if (buf && len)
            buf[0] = '\0';
        return -1;
    }
    size_t need = strlen(line) - 1; /* without the line's newline */
    line[need] = '\0';
    if (buf && len)
        snprintf(buf, len, "%s", line);
    free(line);
    return (int)need;
}

int ferry_hints_agree(ferry_hints *h, MPI_Comm comm, ferry_hint_warnings *w)
{
    /* per field: max of hash and max of ~hash (= ~min): one reduction */
    uint64_t v[2 * FERRY_HINT_NFIELDS], r[2 * FERRY_HINT_NFIELDS];
    const hint_def *defs[FERRY_HINT_NFIELDS];
    int n = 0;
    memset(v, 0, sizeof v);
    for (int i = 0; i < ferry_hint_count && n < FERRY_HINT_NFIELDS; i++) {
        const hint_def *d = &ferry_hint_table[i];
        if (d->alias || !d->must_agree)
            continue;
        uint64_t x = field_hash(h, d);
        defs[n] = d;
        v[2 * n] = x;
        v[2 * n + 1] = ~x;
        n++;
    }
    if (MPI_Allreduce(v, r, 2 * n, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return 0;
    int reset = 0;
    for (int i = 0; i < n; i++) {
        if (r[2 * i] == ~r[2 * i + 1])
            continue; /* max == min */
        ferry_hint_warn(w, "hint %s differs between ranks; all ranks use the default",
                        defs[i]->name);
        ferry_hint_reset(h, defs[i]);
        h->source[defs[i]->field] = FERRY_HINT_SRC_DEFAULT;
        reset++;
    }
    return reset;
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_display;

/* A positive number, or any word but no/false/off, is on (as FERRY_STATS). */
static void env_read(void)
{
    const char *s = ferry_env_either("FERRY_HINTS_DISPLAY", "MPICH_MPIIO_HINTS_DISPLAY");
    if (!s || !*s)
        return;
    char *end;
    long v = strtol(s, &end, 10);
    if (end != s && *end == '\0')
        env_display = v > 0;
    else
        env_display = strcasecmp(s, "no") != 0 && strcasecmp(s, "false") != 0 && strcasecmp(s, "off") != 0;
}

int ferry_env_hints_display(void)
{
    pthread_once(&env_once, env_read);
    return env_display;
}

/* ferry_hints_coll_of_tri: romio_cb_* semantics */
ferry_coll_strategy ferry_hints_coll_of_tri(ferry_tri t)
{
    switch (t) {
    case FERRY_TRI_ENABLE: return FERRY_COLL_TWOPHASE;
    case FERRY_TRI_DISABLE: return FERRY_COLL_INDEPENDENT;
    default: return FERRY_COLL_AUTO;
    }
}
