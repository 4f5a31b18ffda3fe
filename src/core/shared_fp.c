/*
 * The shared file pointer: an int64 on rank 0 of the file's communicator,
 * moved with MPI_Fetch_and_op in a passive-target epoch, so independent
 * shared-pointer calls from any rank serialize without a hidden file on disk.
 * A file opened by one rank keeps it in the file object.
 *
 * Creating and freeing a window costs several collectives, more than the
 * rest of an open and a close together (1.3 ms of a 1.8 ms open at 4 ranks
 * on this host). So the windows are pooled per group of ranks until
 * MPI_Finalize, each with SLOTS pointers, and an open takes a free slot.
 * The ranks agree on the pool at open, inside the open's one reduction
 * (ferry_shfp_pool_state): a pool is used only when every rank has it with
 * the same slots taken; a new pool is made when no rank has one; anything
 * else (a full pool, a pool some ranks lack) falls back to a window of the
 * file's own. A slot holds the pointer relative to its value at open (an
 * appended file's size, which every rank has from the open), and a free
 * slot holds 0: an open writes nothing, and only a close of a file whose
 * pointer moved zeroes its slot again.
 */
#include "core/errors.h"
#include "core/file.h"
#include "core/finalize.h"

#include <pthread.h>
#include <stdlib.h>

enum { SLOTS = 32 };

typedef struct shfp_pool {
    MPI_Group group;
    MPI_Win win;
    int64_t *base; /* rank 0's slots */
    int64_t used;  /* bit s: slot s belongs to an open file */
    struct shfp_pool *next;
} shfp_pool;

static shfp_pool *pools; /* newest first */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static void pools_free(void)
{
    /* newest first: every rank made its pools in an order the creation
     * collectives all completed in, so the reverse order cannot deadlock */
    pthread_mutex_lock(&pools_lock);
    while (pools) {
        shfp_pool *p = pools;
        pools = p->next;
        MPI_Win_free(&p->win);
        MPI_Group_free(&p->group);
        free(p);
    }
    pthread_mutex_unlock(&pools_lock);
}

static shfp_pool *pool_find(MPI_Comm comm)
{
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    pthread_mutex_lock(&pools_lock);
    shfp_pool *p = pools;
    for (; p; p = p->next) {
        int same = MPI_UNEQUAL;
        MPI_Group_compare(g, p->group, &same);
        if (same == MPI_IDENT)
            break;
    }
    pthread_mutex_unlock(&pools_lock);
    MPI_Group_free(&g);
    return p;
}

int64_t ferry_shfp_pool_state(MPI_Comm comm)
{
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size == 1)
        return 0;
    shfp_pool *p = pool_find(comm);
    return p ? p->used : FERRY_SHFP_NO_POOL;
}

/* Rank 0 zeroes a new window's slots; the agreement after it orders that
 * before any rank's first use. */
static void zero_slots(ferry_file *f, MPI_Win win, int64_t *base, int n)
{
    if (f->rank != 0)
        return;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i < n; i++)
        base[i] = 0;
    MPI_Win_unlock(0, win);
}

static int pool_create(ferry_file *f, shfp_pool **out)
{
    shfp_pool *p = calloc(1, sizeof *p);
    MPI_Aint bytes = f->rank == 0 ? (MPI_Aint)(SLOTS * sizeof(int64_t)) : 0;
    int ok = p && MPI_Win_allocate(bytes, (int)sizeof(int64_t), MPI_INFO_NULL, f->comm, &p->base, &p->win) ==
                      MPI_SUCCESS;
    if (ok)
        zero_slots(f, p->win, p->base, SLOTS);
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        if (ok)
            MPI_Win_free(&p->win);
        free(p);
        return MPI_ERR_INTERN;
    }
    MPI_Comm_group(f->comm, &p->group);
    ferry_at_finalize(pools_free);
    pthread_mutex_lock(&pools_lock);
    p->next = pools;
    pools = p;
    pthread_mutex_unlock(&pools_lock);
    *out = p;
    return MPI_SUCCESS;
}

static int own_window(ferry_file *f, int64_t **base)
{
    MPI_Aint bytes = f->rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0;
    int ok = MPI_Win_allocate(bytes, (int)sizeof(int64_t), MPI_INFO_NULL, f->comm, base, &f->shfp_win) ==
             MPI_SUCCESS;
    if (ok)
        zero_slots(f, f->shfp_win, *base, 1);
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        if (ok)
            MPI_Win_free(&f->shfp_win);
        f->shfp_win = MPI_WIN_NULL;
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

int ferry_shfp_create(ferry_file *f, int64_t initial, int64_t agreed)
{
    f->shfp_self = initial;
    f->shfp_base = initial;
    f->shfp_dirty = 0;
    f->shfp_pool = NULL;
    f->shfp_slot = 0;
    if (f->size == 1)
        return MPI_SUCCESS;
    shfp_pool *p = NULL;
    if (agreed == FERRY_SHFP_NO_POOL) {
        int rc = pool_create(f, &p);
        if (rc != MPI_SUCCESS)
            return rc;
    } else if (agreed >= 0 && agreed != ((int64_t)1 << SLOTS) - 1) {
        p = pool_find(f->comm);
    }
    if (!p) {
        int64_t *base = NULL;
        return own_window(f, &base);
    }
    /* a free slot holds 0 (zeroed when made, and by the close of a file
     * that moved it), and the pointer is kept relative to the initial
     * value: the open writes nothing */
    pthread_mutex_lock(&pools_lock);
    while (p->used & ((int64_t)1 << f->shfp_slot))
        f->shfp_slot++;
    p->used |= (int64_t)1 << f->shfp_slot;
    pthread_mutex_unlock(&pools_lock);
    f->shfp_pool = p;
    f->shfp_win = p->win;
    return MPI_SUCCESS;
}

void ferry_shfp_free(ferry_file *f, int moved)
{
    shfp_pool *p = f->shfp_pool;
    if (p) {
        /* collective close: every rank frees the same slot; the next
         * open's agreement orders rank 0's zeroing before its use */
        if (moved && f->rank == 0) {
            int64_t zero = 0;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shfp_win);
            MPI_Put(&zero, 1, MPI_INT64_T, 0, f->shfp_slot, 1, MPI_INT64_T, f->shfp_win);
            MPI_Win_unlock(0, f->shfp_win);
        }
        pthread_mutex_lock(&pools_lock);
        p->used &= ~((int64_t)1 << f->shfp_slot);
        pthread_mutex_unlock(&pools_lock);
        f->shfp_pool = NULL;
        f->shfp_win = MPI_WIN_NULL;
    } else if (f->shfp_win != MPI_WIN_NULL) {
        MPI_Win_free(&f->shfp_win);
    }
}

int ferry_shfp_fetch_add(ferry_file *f, int64_t delta, int64_t *old)
{
    f->shfp_touched = 1;
    if (f->size == 1) {
        *old = f->shfp_self;
        f->shfp_self += delta;
        return MPI_SUCCESS;
    }
    f->shfp_dirty |= delta != 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f->shfp_win);
    int rc = MPI_Fetch_and_op(&delta, old, MPI_INT64_T, 0, f->shfp_slot, delta ? MPI_SUM : MPI_NO_OP,
                              f->shfp_win);
    MPI_Win_unlock(0, f->shfp_win);
    *old += f->shfp_base;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(MPI_ERR_INTERN, "shared file pointer update failed");
}

int ferry_shfp_reset(ferry_file *f, int64_t value)
{
    f->shfp_touched = 0;
    if (f->size == 1) {
        f->shfp_self = value;
        return MPI_SUCCESS;
    }
    /* The barriers fence the reset from shared-pointer calls made before and
     * after the collective call on every rank. */
    MPI_Barrier(f->comm);
    int rc = MPI_SUCCESS;
    int64_t rel = value - f->shfp_base;
    f->shfp_dirty = rel != 0;
    if (f->rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shfp_win);
        rc = MPI_Put(&rel, 1, MPI_INT64_T, 0, f->shfp_slot, 1, MPI_INT64_T, f->shfp_win);
        MPI_Win_unlock(0, f->shfp_win);
    }
    MPI_Barrier(f->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(MPI_ERR_INTERN, "shared file pointer reset failed");
}
