/*
 * The kept buffers (buffers.h). Three: a sieve window and two-phase's two
 * round buffers are the most one call holds at once. A buffer too small
 * for a call is replaced by a larger one, so the kept ones grow to what the
 * process's calls use, at most three times FERRY_BUFFER_KEEP_MAX.
 */
#include "strategy/buffers.h"

#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

enum { KEPT = 3 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *p;
    int64_t cap;
    int busy;
} kept[KEPT];

/* The free slot to use for cap bytes: the smallest that fits, else the
 * largest (replaced by one that fits); -1 when all are busy. */
static int pick(int64_t cap)
{
    int fit = -1, big = -1;
    for (int i = 0; i < KEPT; i++) {
        if (kept[i].busy)
            continue;
        if (kept[i].cap >= cap && (fit < 0 || kept[i].cap < kept[fit].cap))
            fit = i;
        if (big < 0 || kept[i].cap > kept[big].cap)
            big = i;
    }
    return fit >= 0 ? fit : big;
}

/* A kept buffer's pages are touched now: once per process, and measured. */
static char *page_aligned(int64_t cap, int keep, double *fresh)
{
    long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    void *p = NULL;
    if (posix_memalign(&p, (size_t)page, (size_t)cap))
        return NULL;
    for (int64_t i = 0; keep && i < cap; i += page)
        ((volatile char *)p)[i] = 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (keep && fresh)
        *fresh += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    return p;
}

char *ferry_buffer_get(int64_t cap, double *fresh)
{
    if (cap < 1)
        cap = 1;
    char *b = NULL;
    if (cap <= FERRY_BUFFER_KEEP_MAX) {
        pthread_mutex_lock(&lock);
        int i = pick(cap);
        if (i >= 0) {
            if (kept[i].cap < cap) {
                free(kept[i].p);
                kept[i].p = page_aligned(cap, 1, fresh);
                kept[i].cap = kept[i].p ? cap : 0;
            }
            if (kept[i].p) {
                kept[i].busy = 1;
                b = kept[i].p;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return b ? b : page_aligned(cap, 0, NULL);
}

void ferry_buffer_put(char *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < KEPT && kept[i].p != b)
        i++;
    if (i < KEPT)
        kept[i].busy = 0;
    pthread_mutex_unlock(&lock);
    if (i == KEPT)
        free(b);
}
