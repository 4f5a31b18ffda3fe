/*
 * Live file handles. A closed or forged MPI_File must give MPI_ERR_FILE, not a
 * crash, so a handle is checked against this table by address before ferry
 * ever dereferences it. The same table gives Fortran its integer handles:
 * index 0 is MPI_FILE_NULL, and a freed index is reused.
 */
#include "core/file.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ferry_file **slots;   /* index -> file (slot 0 unused) */
static int nslots;
static int free_hint = 1;

/* open addressing: pointer -> index, for O(1) validation */
static uintptr_t *keys;
static int *vals;
static size_t cap; /* power of two */
static size_t used;

static size_t hash_ptr(uintptr_t p)
{
    p ^= p >> 33;
    p *= 0xff51afd7ed558ccdULL;
    p ^= p >> 33;
    return (size_t)p;
}

static int map_find(uintptr_t k)
{
    if (!cap)
        return -1;
    for (size_t i = hash_ptr(k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (keys[i] == k)
            return vals[i];
        if (keys[i] == 0)
            return -1;
    }
}

static int map_grow(void);

static int map_put(uintptr_t k, int v)
{
    if ((used + 1) * 2 > cap && map_grow() < 0)
        return -1;
    size_t i = hash_ptr(k) & (cap - 1);
    while (keys[i] != 0 && keys[i] != k)
        i = (i + 1) & (cap - 1);
    if (keys[i] == 0)
        used++;
    keys[i] = k;
    vals[i] = v;
    return 0;
}

static int map_grow(void)
{
    size_t ncap = cap ? cap * 2 : 64;
    uintptr_t *nk = calloc(ncap, sizeof *nk);
    int *nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    uintptr_t *ok = keys;
    int *ov = vals;
    size_t ocap = cap;
    keys = nk;
    vals = nv;
    cap = ncap;
    used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (ok[i])
            map_put(ok[i], ov[i]);
    free(ok);
    free(ov);
    return 0;
}

/* Deletion in linear probing: re-insert the rest of the cluster. */
static void map_del(uintptr_t k)
{
    if (!cap)
        return;
    size_t i = hash_ptr(k) & (cap - 1);
    while (keys[i] != k) {
        if (keys[i] == 0)
            return;
        i = (i + 1) & (cap - 1);
    }
    keys[i] = 0;
    used--;
    for (size_t j = (i + 1) & (cap - 1); keys[j] != 0; j = (j + 1) & (cap - 1)) {
        uintptr_t rk = keys[j];
        int rv = vals[j];
        keys[j] = 0;
        used--;
        map_put(rk, rv);
    }
}

int ferry_handles_add(ferry_file *f)
{
    pthread_mutex_lock(&lock);
    int idx = -1;
    for (int i = free_hint; i < nslots; i++)
        if (!slots[i]) {
            idx = i;
            break;
        }
    if (idx < 0) {
        int n = nslots ? nslots * 2 : 64;
        ferry_file **ns = realloc(slots, (size_t)n * sizeof *ns);
        if (!ns) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
        for (int i = nslots; i < n; i++)
            ns[i] = NULL;
        idx = nslots ? nslots : 1;
        slots = ns;
        nslots = n;
    }
    if (map_put((uintptr_t)f, idx) < 0) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    static uint64_t opens;
    slots[idx] = f;
    f->f2c = idx;
    f->opened = ++opens;
    free_hint = idx + 1;
    pthread_mutex_unlock(&lock);
    return 0;
}

static int by_open(const void *a, const void *b)
{
    uint64_t x = (*(ferry_file *const *)a)->opened, y = (*(ferry_file *const *)b)->opened;
    return x < y ? -1 : x > y;
}

int ferry_handles_live(ferry_file ***out)
{
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int i = 1; i < nslots; i++)
        n += slots[i] != NULL;
    ferry_file **v = malloc(((size_t)n + 1) * sizeof *v);
    if (v) {
        n = 0;
        for (int i = 1; i < nslots; i++)
            if (slots[i])
                v[n++] = slots[i];
    }
    pthread_mutex_unlock(&lock);
    if (!v)
        return -1;
    qsort(v, (size_t)n, sizeof *v, by_open);
    *out = v;
    return n;
}

void ferry_handles_remove(ferry_file *f)
{
    pthread_mutex_lock(&lock);
    int idx = map_find((uintptr_t)f);
    if (idx > 0) {
        slots[idx] = NULL;
        if (idx < free_hint)
            free_hint = idx;
        map_del((uintptr_t)f);
    }
    pthread_mutex_unlock(&lock);
}

int ferry_handles_valid(MPI_File h)
{
    if (h == MPI_FILE_NULL)
        return 0;
    pthread_mutex_lock(&lock);
    int ok = map_find((uintptr_t)(void *)h) > 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

MPI_Fint ferry_handles_c2f(MPI_File h)
{
    if (h == MPI_FILE_NULL)
        return 0;
    pthread_mutex_lock(&lock);
    int idx = map_find((uintptr_t)(void *)h);
    pthread_mutex_unlock(&lock);
    return idx > 0 ? (MPI_Fint)idx : 0;
}

MPI_File ferry_handles_f2c(MPI_Fint i)
{
    MPI_File h = MPI_FILE_NULL;
    pthread_mutex_lock(&lock);
    if (i > 0 && i < nslots && slots[i])
        h = ferry_handle(slots[i]);
    pthread_mutex_unlock(&lock);
    return h;
}
