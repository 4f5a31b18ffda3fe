/*
 * The store of learned choices, seen from a file: read at open by rank 0,
 * added to at close by rank 0 (remember.h). Rank 0 keeps the store it last
 * parsed and reads the file again only when it changed, so an open costs a
 * stat of the store, not a parse.
 *
 * What closes learned is written at MPI_Finalize, once per process and
 * store, not at each close: a save (lock, parse, write, rename) cost a
 * close 2.4-4.4 ms, against 0.02-0.08 ms without a store (MPICH, 2 ranks,
 * HACC-IO on /dev/shm), and made the next open parse again. Until then an
 * open sees what this process's earlier closes learned over the store's
 * entries. A process that ends without MPI_Finalize keeps nothing.
 */
#include "learn/remember.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char path[PATH_MAX];
    struct stat st;
    ferry_learned s;
    int valid;
} cache;
static char warned[PATH_MAX]; /* the store last warned about: one warning each */
/* What closes learned, per store, until MPI_Finalize writes it (lock held) */
typedef struct pending {
    char path[PATH_MAX];
    ferry_learned s;
} pending;
static pending *pend;
static int npend;

static void warn_once(ferry_remember_warn *warn, const char *path, const char *what, const char *why)
{
    pthread_mutex_lock(&lock);
    int first = strcmp(warned, path) != 0;
    if (first)
        snprintf(warned, sizeof warned, "%s", path);
    pthread_mutex_unlock(&lock);
    if (!first || !warn)
        return;
    char line[PATH_MAX + 400];
    snprintf(line, sizeof line, "learned-choices store %s: %s: %s", path, why, what);
    warn(line);
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int newest_first(const void *a, const void *b)
{
    const ferry_learned_entry *x = a, *y = b;
    return (x->updated < y->updated) - (x->updated > y->updated);
}

/* Lock held. */
static pending *pending_of(const char *path)
{
    for (int i = 0; i < npend; i++)
        if (!strcmp(pend[i].path, path))
            return &pend[i];
    return NULL;
}

/* What an open asks the store about. */
typedef struct wanted {
    const char *fs, *mount;
    int ranks;
} wanted;

/* e, when it is for the wanted file system and job size, into w: in place
 * of an entry of the same pattern (e is newer: this process learned it
 * after the store was read), else added, the oldest making room. */
static void offer(ferry_remember_wire *w, const wanted *q, const ferry_learned_entry *e)
{
    if (e->key.ranks != q->ranks || strcmp(e->key.fs, q->fs) || strcmp(e->key.mount, q->mount))
        return;
    for (int i = 0; i < w->n; i++)
        if (ferry_learned_key_equal(&w->e[i].key, &e->key)) {
            w->e[i] = *e;
            return;
        }
    if (w->n < FERRY_REMEMBER_MAX) {
        w->e[w->n++] = *e;
    } else {
        qsort(w->e, (size_t)w->n, sizeof w->e[0], newest_first);
        if (e->updated >= w->e[w->n - 1].updated)
            w->e[w->n - 1] = *e;
    }
}

void ferry_remember_load(const char *path, const char *fs, const char *mount, int ranks, ferry_remember_wire *w,
                         ferry_remember_warn *warn)
{
    w->n = 0;
    if (!path)
        return;
    const wanted q = {fs, mount, ranks};
    struct stat st;
    pthread_mutex_lock(&lock);
    if (stat(path, &st) != 0) {
        ferry_learned_free(&cache.s); /* no store (yet, or any more) */
        cache.valid = 0;
    } else if (!cache.valid || strcmp(cache.path, path) != 0 || !same_file(&cache.st, &st)) {
        ferry_learned_free(&cache.s);
        cache.valid = 0;
        char why[160] = "";
        int rc = ferry_learned_load(path, &cache.s, why, sizeof why);
        if (rc != FERRY_LEARNED_OK) {
            pthread_mutex_unlock(&lock);
            warn_once(warn, path, "ignored, and nothing learned is kept there (remove it, or set FERRY_LEARN_CACHE)", why);
            return;
        }
        if (cache.s.skipped) {
            pthread_mutex_unlock(&lock);
            snprintf(why, sizeof why, "%d malformed entries", cache.s.skipped);
            warn_once(warn, path, "those are ignored", why);
            pthread_mutex_lock(&lock);
        }
        snprintf(cache.path, sizeof cache.path, "%s", path);
        cache.st = st;
        cache.valid = 1;
    }
    for (int i = 0; i < cache.s.n; i++)
        offer(w, &q, &cache.s.e[i]);
    const pending *p = pending_of(path);
    for (int i = 0; p && i < p->s.n; i++) {
        ferry_learned_entry e = p->s.e[i];
        snprintf(e.source, sizeof e.source, "%s", FERRY_LEARNED_THIS_JOB); /* what the statistics say */
        offer(w, &q, &e);
    }
    pthread_mutex_unlock(&lock);
}

void ferry_remember_keep(ferry_remember *r, const ferry_remember_wire *w)
{
    /* no allocation: what one rank keeps, every rank keeps */
    int n = w->n > 0 && w->n <= FERRY_REMEMBER_MAX ? w->n : 0;
    memcpy(r->known_e, w->e, (size_t)n * sizeof w->e[0]);
    r->known.e = r->known_e;
    r->known.n = n;
    r->known.cap = 0;
}

void ferry_remember_note(ferry_remember *r, const ferry_learned_entry *e)
{
    if (!r->noted)
        r->noted = calloc(1, sizeof *r->noted);
    if (r->noted)
        ferry_learned_put(r->noted, e);
}

void ferry_remember_save(ferry_remember_warn *warn)
{
    pthread_mutex_lock(&lock);
    pending *p = pend;
    int n = npend;
    pend = NULL;
    npend = 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) {
        char why[200] = "";
        if (p[i].s.n && ferry_learned_save(p[i].path, p[i].s.e, p[i].s.n, why, sizeof why) != 0)
            warn_once(warn, p[i].path, "what this run learned is not kept", why);
        ferry_learned_free(&p[i].s);
    }
    free(p);
}

/* Keeps an open's entries for ferry_remember_save, each merged over what
 * the store had of its pattern (so an open before MPI_Finalize sees them
 * whole). 1 when they wait there. */
static int keep_pending(const char *path, ferry_learned *noted, ferry_remember_warn *warn)
{
    int64_t now = (int64_t)time(NULL);
    pthread_mutex_lock(&lock);
    pending *p = pending_of(path);
    if (!p) {
        pending *np = realloc(pend, (size_t)(npend + 1) * sizeof *np);
        if (!np) {
            pthread_mutex_unlock(&lock);
            warn_once(warn, path, "what this run learned is not kept", "out of memory");
            return 0;
        }
        pend = np;
        p = &pend[npend++];
        memset(p, 0, sizeof *p);
        snprintf(p->path, sizeof p->path, "%s", path);
    }
    int bad = 0;
    for (int i = 0; i < noted->n; i++) {
        ferry_learned_entry *e = &noted->e[i];
        e->updated = now;
        const ferry_learned_entry *old = cache.valid && !strcmp(cache.path, path) ? ferry_learned_find(&cache.s, &e->key) : NULL;
        if (old && !ferry_learned_find(&p->s, &e->key))
            bad |= ferry_learned_put(&p->s, old) != 0;
        bad |= ferry_learned_put(&p->s, e) != 0;
    }
    pthread_mutex_unlock(&lock);
    if (bad)
        warn_once(warn, path, "some of what this run learned is not kept", "out of memory");
    return 1;
}

int ferry_remember_close(ferry_remember *r, const char *path, ferry_remember_warn *warn)
{
    int kept = path && r->noted && r->noted->n && keep_pending(path, r->noted, warn);
    if (r->noted)
        ferry_learned_free(r->noted);
    free(r->noted);
    r->noted = NULL;
    r->known.n = 0;
    return kept;
}
