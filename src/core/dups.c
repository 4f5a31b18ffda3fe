/*
 * The cache hangs on the program's communicator as an attribute, so it is
 * found without a lookup and goes when the communicator goes (its delete
 * callback), as MPI libraries cache their own per-communicator state. A
 * communicator a file still uses outlives the cache entry until that
 * file's close.
 *
 * KEEP duplicates stay per program communicator; an entry beyond them is
 * duplicated at each open and freed at close, so a thousand files open at
 * once hold no communicators after they close (MPICH has 2048 context ids
 * in all).
 */
#include "core/dups.h"
#include "core/finalize.h"
#include "core/nodes.h"

#include <pthread.h>
#include <stdlib.h>

enum { KEEP = 8 };

typedef struct {
    MPI_Comm comm; /* MPI_COMM_NULL: not duplicated (yet, or any more) */
    int used;
} entry;

struct ferry_dups {
    entry *ent;
    int n, cap;
    int in_use;
    int gone;    /* the program's communicator was freed: nothing is kept */
    int retired; /* MPI_Finalize began: nothing is kept */
    void *shfp;  /* the shared file pointer's (ferry_dups_shfp_slot) */
    ferry_dups *next;
};

static ferry_dups *all; /* every cache, so finalize reaches them */
static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void free_idle(ferry_dups *d)
{
    for (int i = 0; i < d->n; i++)
        if (!d->ent[i].used && d->ent[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&d->ent[i].comm);
}

static void unlink_free(ferry_dups *d)
{
    for (ferry_dups **p = &all; *p; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    ferry_nodes_forget(d);
    free(d->ent);
    free(d);
}

/* The program freed its communicator (or MPI_Finalize freed it). */
static int on_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    ferry_dups *d = val;
    pthread_mutex_lock(&lock);
    free_idle(d);
    d->gone = 1;
    if (d->in_use == 0)
        unlink_free(d);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* At MPI_Finalize, before anything else goes: idle duplicates are freed
 * while MPI still works; the caches stay reachable until their
 * communicators' delete callbacks, if the library calls them. */
static void retire_all(void)
{
    pthread_mutex_lock(&lock);
    for (ferry_dups *d = all; d; d = d->next) {
        free_idle(d);
        d->retired = 1;
    }
    pthread_mutex_unlock(&lock);
}

ferry_dups *ferry_dups_of(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
    ferry_dups *d = NULL;
    int found = 0;
    if (keyval != MPI_KEYVAL_INVALID && MPI_Comm_get_attr(comm, keyval, &d, &found) == MPI_SUCCESS && !found) {
        d = calloc(1, sizeof *d);
        if (d && MPI_Comm_set_attr(comm, keyval, d) != MPI_SUCCESS) {
            free(d);
            d = NULL;
        }
        if (d) {
            d->next = all;
            all = d;
        }
    }
    pthread_mutex_unlock(&lock);
    if (d && !found)
        ferry_at_finalize(retire_all);
    return d;
}

int ferry_dups_pick(ferry_dups *d)
{
    if (!d)
        return -1;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < d->n && d->ent[i].used)
        i++;
    if (i == d->cap) {
        /* room now, before the agreement: a rank without it says -1 */
        entry *e = realloc(d->ent, (size_t)(d->cap + 8) * sizeof *e);
        if (e) {
            d->ent = e;
            d->cap += 8;
        }
    }
    if (i == d->n && i < d->cap)
        d->ent[d->n++] = (entry){MPI_COMM_NULL, 0};
    pthread_mutex_unlock(&lock);
    return i < d->n ? i : -1;
}

int ferry_dups_take(ferry_dups *d, MPI_Comm comm, int idx, MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    MPI_Comm have = MPI_COMM_NULL;
    if (!d)
        idx = -1;
    if (idx >= 0) {
        pthread_mutex_lock(&lock);
        have = d->ent[idx].comm;
        pthread_mutex_unlock(&lock);
    }
    /* Whether the entry has a duplicate is the same on every rank (its
     * history of opens and closes is), so all duplicate here or none. A
     * duplicate made now is agreed on, so no rank goes on alone. */
    if (have == MPI_COMM_NULL) {
        int rc = MPI_Comm_dup(comm, &have);
        int ok = rc == MPI_SUCCESS, all_ok = ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_ok) {
            if (ok)
                MPI_Comm_free(&have);
            return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN;
        }
    }
    if (idx >= 0) {
        pthread_mutex_lock(&lock);
        d->ent[idx].comm = have;
        d->ent[idx].used = 1;
        d->in_use++;
        pthread_mutex_unlock(&lock);
    }
    *out = have;
    return MPI_SUCCESS;
}

void ferry_dups_give(ferry_dups *d, int idx, MPI_Comm *dup)
{
    if (!d || idx < 0) {
        if (*dup != MPI_COMM_NULL)
            MPI_Comm_free(dup);
        return;
    }
    pthread_mutex_lock(&lock);
    entry *e = &d->ent[idx];
    e->used = 0;
    d->in_use--;
    if (idx >= KEEP || d->gone || d->retired)
        MPI_Comm_free(&e->comm);
    if (d->gone && d->in_use == 0)
        unlink_free(d);
    pthread_mutex_unlock(&lock);
    *dup = MPI_COMM_NULL;
}

void **ferry_dups_shfp_slot(ferry_dups *d)
{
    return &d->shfp;
}
