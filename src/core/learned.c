/*
 * The learned-choices store: JSON through jansson, a lock file for writers,
 * rename for atomic replacement. See learned.h.
 */
#define _GNU_SOURCE
#include "core/learned.h"
#include "core/strategy_desc.h"
#include "driver/path.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ferry_learned_free(ferry_learned *s)
{
    if (!s)
        return;
    free(s->e);
    s->e = NULL;
    s->n = s->cap = 0;
}

int ferry_learned_strategy_id(const char *name)
{
    int id = ferry_strategy_id(FERRY_STRATEGY_COLLECTIVE, name);
    const ferry_strategy_desc *d = ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, id);
    /* spelt as the list spells it: another spelling is not ferry's store */
    return d && (d->roles & FERRY_ROLE_LEARNED) && !strcmp(d->name, name) ? id : -1;
}

int ferry_learned_key_equal(const ferry_learned_key *a, const ferry_learned_key *b)
{
    return a->write == b->write && a->ranks == b->ranks && a->nodes == b->nodes && a->bytes == b->bytes &&
           a->pieces == b->pieces && a->active == b->active && a->extent == b->extent && a->span == b->span &&
           strcmp(a->fs, b->fs) == 0 && strcmp(a->mount, b->mount) == 0;
}

const ferry_learned_entry *ferry_learned_find(const ferry_learned *s, const ferry_learned_key *key)
{
    for (int i = 0; s && i < s->n; i++)
        if (ferry_learned_key_equal(&s->e[i].key, key))
            return &s->e[i];
    return NULL;
}

static int same_option(const ferry_learned_option *a, const ferry_learned_option *b)
{
    return a->cb_nodes == b->cb_nodes && strcmp(a->strategy, b->strategy) == 0;
}

/* e replaces old, and keeps what old measured of options e did not try. */
static void merge_into(ferry_learned_entry *old, const ferry_learned_entry *e)
{
    ferry_learned_entry m = *e;
    for (int i = 0; i < old->ntried && m.ntried < FERRY_LEARNED_MAX_TRIED; i++) {
        int seen = 0;
        for (int j = 0; j < e->ntried && !seen; j++)
            seen = same_option(&old->tried[i].opt, &e->tried[j].opt);
        if (!seen)
            m.tried[m.ntried++] = old->tried[i];
    }
    *old = m;
}

int ferry_learned_put(ferry_learned *s, const ferry_learned_entry *e)
{
    for (int i = 0; i < s->n; i++)
        if (ferry_learned_key_equal(&s->e[i].key, &e->key)) {
            merge_into(&s->e[i], e);
            return 0;
        }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        ferry_learned_entry *ne = realloc(s->e, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        s->e = ne;
        s->cap = cap;
    }
    s->e[s->n++] = *e;
    return 0;
}

/* ---- reading ---- */

/* A whole number in [lo, hi] (JSON integers; reals that are whole are fine too). */
static int get_int(json_t *o, const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = json_object_get(o, name);
    double d;
    if (json_is_integer(v))
        d = (double)json_integer_value(v);
    else if (json_is_real(v))
        d = json_real_value(v);
    else
        return -1;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d))
        return -1;
    *out = (int64_t)d;
    return 0;
}

static int get_str(json_t *o, const char *name, char *out, size_t cap)
{
    json_t *v = json_object_get(o, name);
    if (!json_is_string(v))
        return -1;
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (n >= cap || memchr(s, '\0', n))
        return -1;
    memcpy(out, s, n + 1);
    return 0;
}

static int get_option(json_t *o, ferry_learned_option *opt)
{
    int64_t cb = 0;
    if (!json_is_object(o) || get_str(o, "strategy", opt->strategy, sizeof opt->strategy))
        return -1;
    if (ferry_learned_strategy_id(opt->strategy) < 0)
        return -1;
    if (json_object_get(o, "cb_nodes") && get_int(o, "cb_nodes", 0, 1 << 24, &cb))
        return -1;
    opt->cb_nodes = (int)cb;
    return 0;
}

#define BIG ((int64_t)1 << 53) /* what a JSON double carries exactly */

static int get_entry(json_t *o, ferry_learned_entry *e)
{
    memset(e, 0, sizeof *e);
    char op[8];
    int64_t v[7];
    if (!json_is_object(o) || get_str(o, "fs", e->key.fs, sizeof e->key.fs) ||
        get_str(o, "mount", e->key.mount, sizeof e->key.mount) || get_str(o, "op", op, sizeof op) ||
        get_int(o, "ranks", 1, 1 << 24, &v[0]) || get_int(o, "nodes", 1, 1 << 24, &v[1]) ||
        get_int(o, "bytes", 0, BIG, &v[2]) || get_int(o, "pieces", 0, BIG, &v[3]) ||
        get_int(o, "active", 0, 1 << 24, &v[4]) || get_int(o, "extent", 0, BIG, &v[5]) ||
        get_int(o, "span", 0, BIG, &v[6]))
        return -1;
    if (strcmp(op, "write") && strcmp(op, "read"))
        return -1;
    e->key.write = strcmp(op, "write") == 0;
    e->key.ranks = (int)v[0];
    e->key.nodes = (int)v[1];
    e->key.bytes = v[2];
    e->key.pieces = v[3];
    e->key.active = v[4];
    e->key.extent = v[5];
    e->key.span = v[6];
    if (e->key.nodes > e->key.ranks || e->key.active > e->key.ranks)
        return -1;
    if (get_option(json_object_get(o, "choice"), &e->choice))
        return -1;
    json_t *tried = json_object_get(o, "tried");
    if (!json_is_array(tried) || json_array_size(tried) > FERRY_LEARNED_MAX_TRIED)
        return -1;
    for (size_t i = 0; i < json_array_size(tried); i++) {
        json_t *t = json_array_get(tried, i);
        ferry_learned_try *tr = &e->tried[e->ntried];
        json_t *sec = json_object_get(t, "seconds");
        if (get_option(t, &tr->opt) || !json_is_number(sec) || get_int(t, "calls", 1, BIG, &tr->calls))
            return -1;
        tr->seconds = json_number_value(sec);
        if (!(tr->seconds >= 0 && tr->seconds < 1e9))
            return -1;
        for (int j = 0; j < e->ntried; j++)
            if (same_option(&e->tried[j].opt, &tr->opt))
                return -1;
        e->ntried++;
    }
    int64_t up = 0;
    if (get_str(o, "source", e->source, sizeof e->source) || get_int(o, "updated", 0, BIG, &up))
        return -1;
    e->updated = up;
    double *budget[2] = {&e->spent, &e->overhead};
    const char *names[2] = {"spent", "overhead"};
    for (int i = 0; i < 2; i++) {
        json_t *v = json_object_get(o, names[i]);
        if (!v)
            continue; /* optional */
        if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) < 1e12))
            return -1;
        *budget[i] = json_number_value(v);
    }
    return 0;
}

int ferry_learned_parse(const char *text, size_t len, ferry_learned *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == len)
        return FERRY_LEARNED_OK; /* empty: nothing learned yet */
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        snprintf(why, cap, "not JSON (line %d: %s)", err.line, err.text);
        return FERRY_LEARNED_BAD;
    }
    int rc = FERRY_LEARNED_OK;
    int64_t version = 0;
    json_t *entries = json_object_get(root, "entries");
    if (!json_is_object(root) || !json_object_get(root, "ferry_learned")) {
        snprintf(why, cap, "not a ferry store (no \"ferry_learned\" member)");
        rc = FERRY_LEARNED_BAD;
    } else if (get_int(root, "ferry_learned", 0, INT_MAX, &version) || version != FERRY_LEARNED_VERSION) {
        snprintf(why, cap, "a store of another version (\"ferry_learned\" is not %d)", FERRY_LEARNED_VERSION);
        rc = FERRY_LEARNED_FOREIGN;
    } else if (!json_is_array(entries)) {
        snprintf(why, cap, "\"entries\" is not a list");
        rc = FERRY_LEARNED_BAD;
    } else {
        for (size_t k = 0; k < json_array_size(entries); k++) {
            ferry_learned_entry e;
            if (get_entry(json_array_get(entries, k), &e) != 0) {
                out->skipped++;
                continue;
            }
            if (ferry_learned_put(out, &e) != 0) {
                snprintf(why, cap, "out of memory");
                rc = FERRY_LEARNED_BAD;
                break;
            }
        }
    }
    json_decref(root);
    if (rc != FERRY_LEARNED_OK) {
        int skipped = out->skipped;
        ferry_learned_free(out);
        out->skipped = skipped;
    }
    return rc;
}

/* ---- writing ---- */

static json_t *option_json(const ferry_learned_option *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "strategy", json_string(o->strategy));
    if (o->cb_nodes)
        json_object_set_new(j, "cb_nodes", json_integer(o->cb_nodes));
    return j;
}

static json_t *entry_json(const ferry_learned_entry *e)
{
    json_t *j = json_object();
    json_object_set_new(j, "fs", json_string(e->key.fs));
    json_object_set_new(j, "mount", json_string(e->key.mount));
    json_object_set_new(j, "op", json_string(e->key.write ? "write" : "read"));
    json_object_set_new(j, "ranks", json_integer(e->key.ranks));
    json_object_set_new(j, "nodes", json_integer(e->key.nodes));
    json_object_set_new(j, "bytes", json_integer(e->key.bytes));
    json_object_set_new(j, "pieces", json_integer(e->key.pieces));
    json_object_set_new(j, "active", json_integer(e->key.active));
    json_object_set_new(j, "extent", json_integer(e->key.extent));
    json_object_set_new(j, "span", json_integer(e->key.span));
    json_object_set_new(j, "choice", option_json(&e->choice));
    json_t *tried = json_array();
    for (int i = 0; i < e->ntried; i++) {
        json_t *t = option_json(&e->tried[i].opt);
        json_object_set_new(t, "seconds", json_real(e->tried[i].seconds));
        json_object_set_new(t, "calls", json_integer(e->tried[i].calls));
        json_array_append_new(tried, t);
    }
    json_object_set_new(j, "tried", tried);
    json_object_set_new(j, "source", json_string(e->source));
    json_object_set_new(j, "updated", json_integer(e->updated));
    json_object_set_new(j, "spent", json_real(e->spent));
    json_object_set_new(j, "overhead", json_real(e->overhead));
    return j;
}

char *ferry_learned_format(const ferry_learned *s)
{
    /* one entry per line: a person can read and diff it */
    size_t len = 0, cap = 256;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    len = (size_t)snprintf(out, cap, "{\"ferry_learned\": %d, \"entries\": [\n", FERRY_LEARNED_VERSION);
    for (int i = 0; i < s->n; i++) {
        json_t *j = entry_json(&s->e[i]);
        char *line = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        json_decref(j);
        size_t need = line ? strlen(line) + 4 : 0;
        if (line && len + need + 8 > cap) {
            while (len + need + 8 > cap)
                cap *= 2;
            char *no = realloc(out, cap);
            if (!no) {
                free(line);
                free(out);
                return NULL;
            }
            out = no;
        }
        if (!line) {
            free(out);
            return NULL;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%s", line, i + 1 < s->n ? ",\n" : "\n");
        free(line);
    }
    snprintf(out + len, cap - len, "]}\n");
    return out;
}

int ferry_learned_load(const char *path, ferry_learned *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    unsigned mode = 0;
    int rc = ferry_path_read(path, FERRY_LEARNED_MAX_BYTES, &buf, &len, &mode);
    if (rc == -ENOENT)
        return FERRY_LEARNED_OK; /* nothing learned yet */
    if (rc != 0) {
        snprintf(why, cap, "%s", rc == -EFBIG ? "larger than 1 MiB" : rc == -EINVAL ? "not a regular file" : strerror(-rc));
        free(buf);
        return FERRY_LEARNED_BAD;
    }
    rc = ferry_learned_parse(buf, len, out, why, cap);
    free(buf);
    return rc;
}

/* mkdir -p of path's directory (the default store's ~/.cache/ferry). */
static void make_parents(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return;
        *p = '/';
    }
}

/* The lock: flock on path.lock, waiting at most about 30 s (a writer holds
 * it for one read and one write of a small file, milliseconds; the wait is
 * for a machine so loaded that the holder is not scheduled). */
static int lock_store(const char *path, char *why, size_t cap)
{
    char lp[PATH_MAX];
    if (snprintf(lp, sizeof lp, "%s.lock", path) >= (int)sizeof lp) {
        snprintf(why, cap, "path too long");
        return -1;
    }
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0) {
        snprintf(why, cap, "lock file: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < 3000; i++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        usleep(10000);
    }
    snprintf(why, cap, "lock file %s: %s", lp, errno == EWOULDBLOCK ? "held by another writer for 30 s" : strerror(errno));
    close(fd);
    return -1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int oldest_first(const void *a, const void *b)
{
    const ferry_learned_entry *x = a, *y = b;
    return (x->updated > y->updated) - (x->updated < y->updated);
}

int ferry_learned_save(const char *path, const ferry_learned_entry *add, int n, char *why, size_t cap)
{
    make_parents(path);
    int lk = lock_store(path, why, cap);
    if (lk < 0)
        return -1;
    ferry_learned s;
    int rc = ferry_learned_load(path, &s, why, cap);
    char *text = NULL, tmp[PATH_MAX];
    tmp[0] = '\0';
    if (rc != FERRY_LEARNED_OK)
        goto out; /* never overwrite what is not ours */
    rc = -1;
    for (int i = 0; i < n; i++)
        if (ferry_learned_put(&s, &add[i]) != 0) {
            snprintf(why, cap, "out of memory");
            goto out;
        }
    if (s.n > FERRY_LEARNED_MAX_ENTRIES) {
        qsort(s.e, (size_t)s.n, sizeof *s.e, oldest_first);
        memmove(s.e, s.e + (s.n - FERRY_LEARNED_MAX_ENTRIES), FERRY_LEARNED_MAX_ENTRIES * sizeof *s.e);
        s.n = FERRY_LEARNED_MAX_ENTRIES;
    }
    text = ferry_learned_format(&s);
    if (!text) {
        snprintf(why, cap, "out of memory");
        goto out;
    }
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        snprintf(why, cap, "path too long");
        tmp[0] = '\0';
        goto out;
    }
    int fd = mkostemp(tmp, O_CLOEXEC); /* unique even across nodes sharing the directory */
    if (fd < 0 || fchmod(fd, 0644) != 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        snprintf(why, cap, "%s", strerror(e));
        tmp[0] = '\0';
        goto out;
    }
    int bad = write_all(fd, text, strlen(text));
    int e = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad || rename(tmp, path) != 0) {
        snprintf(why, cap, "%s", strerror(bad ? e : errno));
        goto out;
    }
    tmp[0] = '\0';
    rc = 0;
out:
    if (tmp[0])
        unlink(tmp);
    free(text);
    ferry_learned_free(&s);
    close(lk); /* releases the lock */
    return rc;
}

static int is_off(const char *s)
{
    return !strcmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "none") || !strcasecmp(s, "no") ||
           !strcasecmp(s, "false");
}

const char *ferry_learned_path(const char *hint, char *buf, size_t cap)
{
    const char *env = getenv("FERRY_LEARN_CACHE");
    const char *p = hint && *hint && strcmp(hint, "default") ? hint : env && *env ? env : NULL;
    int n;
    if (p) {
        if (is_off(p))
            return NULL;
        n = snprintf(buf, cap, "%s", p);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && *xdg == '/')
            n = snprintf(buf, cap, "%s/ferry/learned.json", xdg);
        else if (home && *home == '/')
            n = snprintf(buf, cap, "%s/.cache/ferry/learned.json", home);
        else
            return NULL;
    }
    return n > 0 && (size_t)n < cap ? buf : NULL;
}
