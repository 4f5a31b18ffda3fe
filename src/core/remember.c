/*
 * The store of learned choices, seen from a file: read at open by rank 0,
 * added to at close by rank 0 (remember.h). Rank 0 keeps the store it last
 * parsed and reads the file again only when it changed, so an open costs a
 * stat of the store, not a parse.
 */
#include "core/remember.h"

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

static void warn_once(const char *path, const char *what, const char *why)
{
    pthread_mutex_lock(&lock);
    int first = strcmp(warned, path) != 0;
    if (first)
        snprintf(warned, sizeof warned, "%s", path);
    pthread_mutex_unlock(&lock);
    if (first)
        fprintf(stderr, "ferry: warning: learned-choices store %s: %s: %s\n", path, why, what);
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

void ferry_remember_load(const ferry_file *f, const ferry_fs_info *fs, ferry_remember_wire *w)
{
    w->n = 0;
    char buf[PATH_MAX];
    const char *path = f->hints.learn == FERRY_LEARN_OFF ? NULL : ferry_learned_path(f->hints.learn_cache, buf, sizeof buf);
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return; /* no store yet */
    pthread_mutex_lock(&lock);
    if (!cache.valid || strcmp(cache.path, path) != 0 || !same_file(&cache.st, &st)) {
        ferry_learned_free(&cache.s);
        cache.valid = 0;
        char why[160] = "";
        int rc = ferry_learned_load(path, &cache.s, why, sizeof why);
        if (rc != FERRY_LEARNED_OK) {
            pthread_mutex_unlock(&lock);
            warn_once(path, "ignored, and nothing learned is kept there (remove it, or set FERRY_LEARN_CACHE)", why);
            return;
        }
        if (cache.s.skipped) {
            pthread_mutex_unlock(&lock);
            snprintf(why, sizeof why, "%d malformed entries", cache.s.skipped);
            warn_once(path, "those are ignored", why);
            pthread_mutex_lock(&lock);
        }
        snprintf(cache.path, sizeof cache.path, "%s", path);
        cache.st = st;
        cache.valid = 1;
    }
    for (int i = 0; i < cache.s.n; i++) {
        const ferry_learned_entry *e = &cache.s.e[i];
        if (e->key.ranks != f->size || strcmp(e->key.fs, fs->name) || strcmp(e->key.mount, fs->mount))
            continue;
        if (w->n < FERRY_REMEMBER_MAX) {
            w->e[w->n++] = *e;
        } else {
            qsort(w->e, (size_t)w->n, sizeof w->e[0], newest_first);
            if (e->updated > w->e[w->n - 1].updated)
                w->e[w->n - 1] = *e;
        }
    }
    pthread_mutex_unlock(&lock);
}

void ferry_remember_keep(ferry_file *f, const ferry_remember_wire *w)
{
    /* no allocation: what one rank keeps, every rank keeps */
    int n = w->n > 0 && w->n <= FERRY_REMEMBER_MAX ? w->n : 0;
    memcpy(f->known_e, w->e, (size_t)n * sizeof w->e[0]);
    f->known.e = f->known_e;
    f->known.n = n;
    f->known.cap = 0;
}

void ferry_remember_note(ferry_file *f, const ferry_learned_entry *e)
{
    if (!f->noted)
        f->noted = calloc(1, sizeof *f->noted);
    if (f->noted)
        ferry_learned_put(f->noted, e);
}

void ferry_remember_close(ferry_file *f)
{
    if (f->rank == 0 && f->noted && f->noted->n) {
        char buf[PATH_MAX], why[200] = "";
        const char *path = ferry_learned_path(f->hints.learn_cache, buf, sizeof buf);
        int64_t now = (int64_t)time(NULL);
        for (int i = 0; i < f->noted->n; i++)
            f->noted->e[i].updated = now;
        if (path && ferry_learned_save(path, f->noted->e, f->noted->n, why, sizeof why) != 0)
            warn_once(path, "what this run learned is not kept", why);
    }
    if (f->noted)
        ferry_learned_free(f->noted);
    free(f->noted);
    f->noted = NULL;
    f->known.n = 0;
}
