/*
 * The learned-choices store: JSON through jansson, a lock file for writers,
 * rename for atomic replacement. See store.h.
 */
#define _GNU_SOURCE
#include "learn/store.h"
#include "util/strategy_desc.h"
#include "driver/path.h"
#include "util/json.h"

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

static json_t *option_json(const ferry_learned_option *o, int *ok)
{
    json_t *j = json_object();
    ferry_json_set(j, "strategy", ferry_json_str(o->strategy), ok);
    if (o->cb_nodes)
        ferry_json_set(j, "cb_nodes", json_integer(o->cb_nodes), ok);
    return j;
}

json_t *ferry_learned_key_json(const ferry_learned_key *k)
{
    return json_pack("{s:o,s:o,s:s,s:i,s:i,s:I,s:I,s:I,s:I,s:I}", "fs", ferry_json_str(k->fs), "mount",
                     ferry_json_str(k->mount), "op", k->write ? "write" : "read", "ranks", k->ranks, "nodes", k->nodes,
                     "bytes", (json_int_t)k->bytes, "pieces", (json_int_t)k->pieces, "active", (json_int_t)k->active,
                     "extent", (json_int_t)k->extent, "span", (json_int_t)k->span);
}

/* the key's members, then what was chosen and measured */
static json_t *entry_json(const ferry_learned_entry *e, int *ok)
{
    json_t *j = ferry_learned_key_json(&e->key);
    ferry_json_set(j, "choice", option_json(&e->choice, ok), ok);
    json_t *tried = json_array();
    for (int i = 0; i < e->ntried; i++) {
        json_t *t = option_json(&e->tried[i].opt, ok);
        ferry_json_set(t, "seconds", ferry_json_real(e->tried[i].seconds, 6), ok);
        ferry_json_set(t, "calls", json_integer(e->tried[i].calls), ok);
        ferry_json_push(tried, t, ok);
    }
    ferry_json_set(j, "tried", tried, ok);
    ferry_json_set(j, "source", ferry_json_str(e->source), ok);
    ferry_json_set(j, "updated", json_integer(e->updated), ok);
    ferry_json_set(j, "spent", ferry_json_real(e->spent, 6), ok);
    ferry_json_set(j, "overhead", ferry_json_real(e->overhead, 6), ok);
    return j;
}

/* The store's envelope as jansson writes it, up to the entries' "[":
 * {"ferry_learned": N, "entries": [ */
static char *envelope_head(void)
{
    json_t *root = json_pack("{s:i,s:[]}", "ferry_learned", FERRY_LEARNED_VERSION, "entries");
    char *head = root ? json_dumps(root, 0) : NULL;
    json_decref(root);
    size_t n = head ? strlen(head) : 0;
    if (n < 2 || strcmp(head + n - 2, "]}") != 0) {
        free(head);
        return NULL;
    }
    head[n - 2] = '\0';
    return head;
}

char *ferry_learned_format(const ferry_learned *s)
{
    /* one entry per line, so that a person can read and diff the store:
     * jansson writes the envelope and every entry; the line breaks between
     * entries are the only text written here */
    char *head = envelope_head();
    char **lines = calloc((size_t)s->n + 1, sizeof *lines);
    size_t len = head ? strlen(head) + 4 : 0;
    int ok = head && lines;
    for (int i = 0; ok && i < s->n; i++) {
        json_t *j = entry_json(&s->e[i], &ok);
        lines[i] = ok ? ferry_json_line(j) : NULL;
        json_decref(j);
        ok = ok && lines[i];
        len += ok ? strlen(lines[i]) + 1 : 0;
    }
    char *out = ok ? malloc(len + 1) : NULL;
    if (out) {
        size_t at = (size_t)sprintf(out, "%s\n", head);
        for (int i = 0; i < s->n; i++) {
            size_t l = strlen(lines[i]) - 1; /* each ends in its newline */
            memcpy(out + at, lines[i], l);
            at += l;
            at += (size_t)sprintf(out + at, "%s", i + 1 < s->n ? ",\n" : "\n");
        }
        sprintf(out + at, "]}\n");
    }
    for (int i = 0; lines && i < s->n; i++)
        free(lines[i]);
    free(lines);
    free(head);
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
