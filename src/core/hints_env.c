/*
 * Hints from the environment: FERRY_HINTS_FILE (a `key value` file, like
 * ROMIO_HINTS) and FERRY_HINTS (Cray MPICH_MPIIO_HINTS-style patterns).
 *
 * FERRY_HINTS grammar:
 *   spec  := entry (',' entry)*
 *   entry := glob (':' key '=' value)*
 * A value runs to the next ':' or ','. cb_config_list values hold both, and
 * ferry_io_nodes values ',', so for those keys (only) the value goes on
 * over following pieces that are not key=value, up to a ",glob:key=value"
 * that starts the next entry: *:cb_config_list=host1:1,*:2:cb_nodes=4,*.h5:...
 * and *:cb_nodes=4:ferry_io_nodes=ion1,ion2 work as written (a host list
 * followed by :key=value would read its last host as the next entry's glob).
 *
 * Every scan below works on (pointer, length) spans of the caller's string
 * and copies into fixed buffers only after a length check.
 */
#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hints_internal.h"
#include "util/strategy_desc.h"
#include "driver/path.h"

#define GLOB_MAX 1024
#define KEY_MAX 64
#define FILE_MAX (64 * 1024)

static void span_trim(const char *s, size_t *a, size_t *b)
{
    while (*a < *b && isspace((unsigned char)s[*a]))
        (*a)++;
    while (*b > *a && isspace((unsigned char)s[*b - 1]))
        (*b)--;
}

static int span_has(const char *s, size_t a, size_t b, char c)
{
    return a < b && memchr(s + a, c, b - a) != NULL;
}

/* First index >= i holding one of the stop characters (or n). */
static size_t next_of(const char *s, size_t i, size_t n, const char *stops)
{
    while (i < n && !strchr(stops, s[i]))
        i++;
    return i;
}

/* Printable excerpt of a span for warnings. */
static void excerpt(const char *s, size_t a, size_t b, char *out, size_t outlen)
{
    size_t n = b - a, o = 0;
    for (size_t i = 0; i < n && o + 4 < outlen; i++) {
        unsigned char c = (unsigned char)s[a + i];
        out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (o < n && o >= 3)
        out[o - 3] = out[o - 2] = out[o - 1] = '.';
    out[o] = '\0';
}

static int glob_matches(const char *glob, const char *filename)
{
    const char *path = filename ? filename : "";
    if (fnmatch(glob, path, 0) == 0)
        return 1;
    const char *base = strrchr(path, '/');
    return base && fnmatch(glob, base + 1, 0) == 0;
}

/* One key=value item: applies it when `match`. */
static void apply_kv(ferry_hints *h, const char *s, size_t k0, size_t k1, size_t v0, size_t v1,
                     int match, ferry_hint_source src, const char *ctx, ferry_hint_warnings *w)
{
    char key[KEY_MAX], ex[48];
    span_trim(s, &k0, &k1);
    span_trim(s, &v0, &v1);
    if (k1 == k0) {
        excerpt(s, v0, v1, ex, sizeof ex);
        ferry_hint_warn(w, "%s: item \"=%s\" has no key, ignored", ctx, ex);
        return;
    }
    if (k1 - k0 >= KEY_MAX) {
        excerpt(s, k0, k1, ex, sizeof ex);
        ferry_hint_warn(w, "%s: unknown hint \"%s\" ignored", ctx, ex);
        return;
    }
    memcpy(key, s + k0, k1 - k0);
    key[k1 - k0] = '\0';
    if (!ferry_hint_find(key)) {
        /* other implementations' keys are silently ignored, as MPI does;
         * a misspelt key (one or two edits from a known one) or an unknown
         * ferry_ key deserves a word */
        const char *near = ferry_hint_closest(key);
        excerpt(s, k0, k1, ex, sizeof ex);
        if (near)
            ferry_hint_warn(w, "%s: unknown hint \"%s\" ignored; did you mean %s?", ctx, ex, near);
        else if (strncmp(key, "ferry_", 6) == 0)
            ferry_hint_warn(w, "%s: unknown hint \"%s\" ignored", ctx, ex);
        return;
    }
    if (!match)
        return;
    if (v1 - v0 >= FERRY_HINT_STR) {
        ferry_hint_warn(w, "%s: hint %s ignored: value longer than %d characters", ctx, key,
                        FERRY_HINT_STR - 1);
        return;
    }
    char val[FERRY_HINT_STR];
    memcpy(val, s + v0, v1 - v0);
    val[v1 - v0] = '\0';
    ferry_hint_apply_one(h, key, val, src, ctx, w);
}

/* 1 when a strategy h names needs MPI_THREAD_MULTIPLE (forwarding's
 * serving threads): MPI_Init must ask for it. */
static int needs_threads(const ferry_hints *h)
{
    const ferry_strategy_desc *d[4] = {ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, h->write_strategy),
                                       ferry_strategy_of(FERRY_STRATEGY_COLLECTIVE, h->read_strategy),
                                       ferry_strategy_of(FERRY_STRATEGY_INDEPENDENT, h->ind_write_strategy),
                                       ferry_strategy_of(FERRY_STRATEGY_INDEPENDENT, h->ind_read_strategy)};
    for (int i = 0; i < 4; i++)
        if (d[i] && (d[i]->needs & FERRY_NEEDS_THREADS))
            return 1;
    return 0;
}

/* filename NULL: every pattern matches (what any file could be given). */
static void apply_patterns(ferry_hints *h, const char *ctx, const char *spec, const char *filename,
                           ferry_hint_warnings *w, int *forward)
{
    if (!h || !spec)
        return;
    const char *s = spec;
    size_t n = strlen(spec);
    size_t p = 0;
    char ex[48];
    while (p < n) {
        /* the glob */
        size_t g0 = p, g1 = next_of(s, p, n, ":,");
        size_t t0 = g0, t1 = g1;
        span_trim(s, &t0, &t1);
        int match = 0;
        if (t1 == t0) {
            if (g1 < n && s[g1] == ':')
                ferry_hint_warn(w, "%s: entry with an empty file pattern ignored", ctx);
        } else if (t1 - t0 >= GLOB_MAX) {
            ferry_hint_warn(w, "%s: file pattern longer than %d characters ignored", ctx,
                            GLOB_MAX - 1);
        } else {
            char glob[GLOB_MAX];
            memcpy(glob, s + t0, t1 - t0);
            glob[t1 - t0] = '\0';
            match = !filename || glob_matches(glob, filename);
            if (span_has(s, t0, t1, '=')) {
                ferry_hint_warn(w, "%s: entry \"%s\" needs a file pattern first (*:key=value)",
                                ctx, (excerpt(s, t0, t1, ex, sizeof ex), ex));
                match = 0;
            } else if (g1 >= n || s[g1] == ',') {
                ferry_hint_warn(w, "%s: entry \"%s\" has no key=value, ignored", ctx,
                                (excerpt(s, t0, t1, ex, sizeof ex), ex));
            }
        }
        p = g1;
        /* the key=value items */
        while (p < n && s[p] == ':') {
            size_t i0 = p + 1, i1 = next_of(s, i0, n, ":,");
            size_t eq = i0;
            while (eq < i1 && s[eq] != '=')
                eq++;
            if (eq == i1) {
                size_t a = i0, b = i1;
                span_trim(s, &a, &b);
                if (b > a) {
                    excerpt(s, a, b, ex, sizeof ex);
                    ferry_hint_warn(w, "%s: \"%s\" is not key=value, ignored", ctx, ex);
                }
                p = i1;
                continue;
            }
            /* only cb_config_list and ferry_io_nodes values hold ':' or
             * ',': extend those over the pieces that are not key=value */
            size_t v1 = i1;
            size_t ka = i0, kb = eq;
            span_trim(s, &ka, &kb);
            char key[KEY_MAX];
            const hint_def *d = NULL;
            if (kb - ka < KEY_MAX) {
                memcpy(key, s + ka, kb - ka);
                key[kb - ka] = '\0';
                d = ferry_hint_find(key);
            }
            while (d && (d->kind == HK_CBLIST || d->kind == HK_HOSTS) && v1 < n) {
                /* the next piece; after ',' it starts a new entry when the
                 * piece after it is key=value (",glob:key=value") */
                size_t nx = next_of(s, v1 + 1, n, ":,");
                size_t a = v1 + 1, b = nx;
                span_trim(s, &a, &b);
                if (b == a || span_has(s, v1 + 1, nx, '='))
                    break;
                if (s[v1] == ',' && nx < n && s[nx] == ':') {
                    size_t after = next_of(s, nx + 1, n, ":,");
                    if (span_has(s, nx + 1, after, '='))
                        break;
                }
                v1 = nx;
            }
            apply_kv(h, s, i0, eq, eq + 1, v1, match, FERRY_HINT_SRC_ENV, ctx, w);
            if (forward && needs_threads(h))
                *forward = 1;
            p = v1;
        }
        if (p < n && s[p] == ',')
            p++;
    }
}

/* Problems with the file itself (missing, not a regular file, binary) are
 * warned about once per process and variable when read at each open. */
static int warned_once(const char *var)
{
    static int warned[2];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int i = strcmp(var, "ROMIO_HINTS") == 0;
    pthread_mutex_lock(&lock);
    int was = warned[i];
    warned[i] = 1;
    pthread_mutex_unlock(&lock);
    return was;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The first FILE_MAX bytes of path (malloc'd, terminated), or NULL with a
 * warning. Bounded: the open never waits (O_NONBLOCK: a FIFO without a
 * writer, a device), anything but a regular file is refused before a byte is
 * read, and at most FILE_MAX + 1 bytes are read. */
static char *read_hints_file(const char *var, const char *path, size_t *lenp, ferry_hint_warnings *w, int once)
{
    char *buf;
    size_t len;
    unsigned mode = 0;
    int rc = ferry_path_read(path, FILE_MAX, &buf, &len, &mode);
    if (rc != 0 && rc != -EFBIG) {
        if (w && (!once || !warned_once(var))) {
            if (rc == -EINVAL)
                ferry_hint_warn(w, "%s \"%.100s\" is %s, not a hints file: ignored", var, path,
                                kind_of((mode_t)mode));
            else
                ferry_hint_warn(w, "%s \"%.100s\": %s: ignored", var, path, strerror(-rc));
        }
        free(buf);
        return NULL;
    }
    if (memchr(buf, '\0', len)) {
        if (w && (!once || !warned_once(var)))
            ferry_hint_warn(w, "%s \"%.100s\" holds binary data (a NUL byte), not `key value` lines: ignored",
                            var, path);
        free(buf);
        return NULL;
    }
    if (len > FILE_MAX) {
        /* the line cut at the limit is not what the user wrote: drop it */
        len = FILE_MAX;
        while (len > 0 && buf[len - 1] != '\n')
            len--;
        if (w && (!once || !warned_once(var)))
            ferry_hint_warn(w, "%s \"%.100s\": only the first %d KiB are read", var, path,
                            FILE_MAX / 1024);
    }
    buf[len] = '\0';
    *lenp = len;
    return buf;
}

/* Applies the `key value` lines of buf[0..len) (modified in place). */
static void apply_file_text(ferry_hints *h, const char *var, ferry_hint_source src, char *buf, size_t len,
                            ferry_hint_warnings *w)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0' || buf[i] == '\r')
            buf[i] = '\n';

    unsigned char seen[FERRY_HINT_NFIELDS];
    memset(seen, 0, sizeof seen);
    size_t p = 0;
    int line = 0;
    while (p < len) {
        size_t e = p;
        while (e < len && buf[e] != '\n')
            e++;
        line++;
        size_t a = p, b = e;
        p = e + 1;
        span_trim(buf, &a, &b);
        if (a == b || buf[a] == '#')
            continue;
        /* key, blanks, value, nothing else */
        size_t k1 = a;
        while (k1 < b && !isspace((unsigned char)buf[k1]))
            k1++;
        size_t v0 = k1;
        while (v0 < b && isspace((unsigned char)buf[v0]))
            v0++;
        size_t v1 = v0;
        while (v1 < b && !isspace((unsigned char)buf[v1]))
            v1++;
        char ctx[48];
        snprintf(ctx, sizeof ctx, "%s line %d", var, line);
        if (v0 == b || v1 != b) {
            char ex[48];
            excerpt(buf, a, b, ex, sizeof ex);
            ferry_hint_warn(w, "%s: \"%s\" is not `key value`, skipped", ctx, ex);
            continue;
        }
        char key[KEY_MAX];
        if (k1 - a < KEY_MAX) {
            memcpy(key, buf + a, k1 - a);
            key[k1 - a] = '\0';
            const hint_def *d = ferry_hint_find(key);
            if (d && d->field >= 0 && d->field < FERRY_HINT_NFIELDS && seen[d->field])
                continue; /* first occurrence wins, as in ROMIO's hints file */
            if (d) {
                if (v1 - v0 >= FERRY_HINT_STR) {
                    ferry_hint_warn(w, "%s: hint %s ignored: value longer than %d characters",
                                    ctx, key, FERRY_HINT_STR - 1);
                    continue;
                }
                char val[FERRY_HINT_STR];
                memcpy(val, buf + v0, v1 - v0);
                val[v1 - v0] = '\0';
                if (ferry_hint_apply_one(h, key, val, src, ctx, w) == 1)
                    seen[d->field] = 1;
                continue;
            }
        }
        apply_kv(h, buf, a, k1, v0, v1, 0, src, ctx, w); /* warns on typos */
    }
}

void ferry_hints_apply_patterns(ferry_hints *h, const char *spec, const char *filename,
                                ferry_hint_warnings *w)
{
    apply_patterns(h, "FERRY_HINTS", spec, filename ? filename : "", w, NULL);
}

void ferry_hints_apply_file(ferry_hints *h, const char *path, ferry_hint_warnings *w)
{
    if (!h || !path || !*path)
        return;
    size_t len = 0;
    char *buf = read_hints_file("FERRY_HINTS_FILE", path, &len, w, 0);
    if (buf)
        apply_file_text(h, "FERRY_HINTS_FILE", FERRY_HINT_SRC_FILE, buf, len, w);
    free(buf);
}

/* The hints files' text as rank 0 read them at the first open, kept for
 * the later opens, set_view and set_info (no rank reads a file there, and
 * no collective is spent on it), as ROMIO keeps ROMIO_HINTS. */
enum { TXT_ROMIO, TXT_FERRY, NTXT };
static const char *const txt_var[NTXT] = {"ROMIO_HINTS", "FERRY_HINTS_FILE"};
static char *txt[NTXT];
static int have_txt; /* an open has read them (else, outside MPI: read here) */
static pthread_mutex_t txt_lock = PTHREAD_MUTEX_INITIALIZER;

void ferry_hints_env_read(MPI_Comm comm, ferry_hint_warnings *w)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    /* rank 0 reads the files its environment names and broadcasts them: one
     * reader, and the same text on every rank */
    long long len[NTXT] = {-1, -1};
    char *buf[NTXT] = {NULL, NULL};
    if (rank == 0)
        for (int i = 0; i < NTXT; i++) {
            const char *path = getenv(txt_var[i]);
            size_t l = 0;
            if (path && *path && (buf[i] = read_hints_file(txt_var[i], path, &l, w, 1)) != NULL)
                len[i] = (long long)l;
        }
    MPI_Bcast(len, NTXT, MPI_LONG_LONG, 0, comm);
    for (int i = 0; i < NTXT; i++) {
        if (len[i] < 0 || len[i] > FILE_MAX)
            continue;
        if (rank != 0) {
            buf[i] = malloc((size_t)len[i] + 1);
            if (!buf[i]) {
                /* every rank must take part in the Bcast, memory or not */
                static char sink[FILE_MAX + 1];
                static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
                pthread_mutex_lock(&sink_lock);
                if (len[i] > 0)
                    MPI_Bcast(sink, (int)len[i], MPI_CHAR, 0, comm);
                pthread_mutex_unlock(&sink_lock);
                ferry_hint_warn(w, "%s: out of memory, hints file ignored", txt_var[i]);
                continue;
            }
        }
        if (len[i] > 0)
            MPI_Bcast(buf[i], (int)len[i], MPI_CHAR, 0, comm);
        buf[i][len[i]] = '\0';
    }
    pthread_mutex_lock(&txt_lock);
    for (int i = 0; i < NTXT; i++) {
        free(txt[i]);
        txt[i] = buf[i];
    }
    have_txt = 1;
    pthread_mutex_unlock(&txt_lock);
}

/* Applies the kept text of one file (a copy: parsing rewrites it). */
static void apply_kept(ferry_hints *h, int i, ferry_hint_source src, ferry_hint_warnings *w)
{
    pthread_mutex_lock(&txt_lock);
    char *copy = txt[i] ? strdup(txt[i]) : NULL;
    pthread_mutex_unlock(&txt_lock);
    if (copy)
        apply_file_text(h, txt_var[i], src, copy, strlen(copy), w);
    free(copy);
}

int ferry_hints_env_held(void)
{
    pthread_mutex_lock(&txt_lock);
    int held = have_txt;
    pthread_mutex_unlock(&txt_lock);
    return held;
}

void ferry_hints_apply_system(ferry_hints *h, ferry_hint_warnings *w)
{
    apply_kept(h, TXT_ROMIO, FERRY_HINT_SRC_FILE, w);
}

void ferry_hints_apply_env(ferry_hints *h, const char *filename, ferry_hint_warnings *w)
{
    pthread_mutex_lock(&txt_lock);
    int kept = have_txt;
    pthread_mutex_unlock(&txt_lock);
    if (kept)
        apply_kept(h, TXT_FERRY, FERRY_HINT_SRC_FILE, w);
    else
        ferry_hints_apply_file(h, getenv("FERRY_HINTS_FILE"), w);
    const char *cray = getenv("MPICH_MPIIO_HINTS");
    if (cray && *cray)
        apply_patterns(h, "MPICH_MPIIO_HINTS", cray, filename ? filename : "", w, NULL);
    const char *spec = getenv("FERRY_HINTS");
    if (spec && *spec)
        apply_patterns(h, "FERRY_HINTS", spec, filename ? filename : "", w, NULL);
    ferry_hints_derive(h);
}

void ferry_hints_apply_env_comm(ferry_hints *h, const char *filename, MPI_Comm comm, ferry_hint_warnings *w)
{
    ferry_hints_env_read(comm, w);
    ferry_hints_apply_env(h, filename, w);
}

int ferry_hints_env_may_forward(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    int fwd = 0;
    for (int i = 0; i < NTXT && !fwd; i++) {
        /* before MPI_Init there is no rank 0 to read for the others: each
         * process reads the (bounded) file itself, silently; the open warns */
        const char *path = getenv(txt_var[i]);
        size_t len = 0;
        char *buf = path && *path ? read_hints_file(txt_var[i], path, &len, NULL, 0) : NULL;
        if (buf) {
            ferry_hints t;
            ferry_hints_defaults(&t);
            apply_file_text(&t, txt_var[i], FERRY_HINT_SRC_FILE, buf, len, NULL);
            fwd = needs_threads(&t);
        }
        free(buf);
    }
    const char *specs[2] = {getenv("MPICH_MPIIO_HINTS"), getenv("FERRY_HINTS")};
    for (int i = 0; i < 2; i++)
        if (specs[i] && *specs[i])
            apply_patterns(&h, i ? "FERRY_HINTS" : "MPICH_MPIIO_HINTS", specs[i], NULL, NULL, &fwd);
    return fwd;
}
