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
 * file's own. Pools rest on opens that reach every rank in one order; at
 * MPI_THREAD_MULTIPLE, opens from different threads (over different
 * communicators of one group) can interleave in another order on each
 * rank, so that two ranks took different slots for one file and freed the
 * pools' windows in different orders at MPI_Finalize (a deadlock seen with
 * 4 threads per rank): there a pool belongs to one program communicator,
 * whose opens and closes every rank makes in one order, and it goes with
 * the close of its last file (a window per file instead ran MPICH out of
 * communicators with 1000 files open). A slot holds the pointer relative to its value at open (an
 * appended file's size, which every rank has from the open), and a free
 * slot holds 0: an open writes nothing, and only a close of a file whose
 * pointer moved zeroes its slot again.
 *
 * Where the MPI library cannot make a window across the ranks at all (Open
 * MPI over TCP between nodes: osc/rdma is chosen and fails MPI_Win_allocate
 * and MPI_Win_create alike with MPI_ERR_WIN), every rank learns it in the
 * same collective, the group is remembered as windowless (a pool without a
 * window: later opens do not try again), and the pointer moves to a locked
 * hidden file (shared_fp_file.c) once the file system is known to honour
 * locks across nodes. Where it does not either, shared-pointer calls fail
 * with MPI_ERR_UNSUPPORTED_OPERATION on every rank; the open itself does
 * not fail.
 */
#include "core/dups.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/finalize.h"
#include "core/shared_fp_file.h"

#include <pthread.h>
#include <stdlib.h>

enum { SLOTS = 32 };

typedef struct shfp_pool {
    MPI_Group group;
    MPI_Win win;   /* MPI_WIN_NULL: no window can be made for this group */
    int64_t *base; /* rank 0's slots */
    int64_t used;  /* bit s: slot s belongs to an open file */
    int64_t *owned; /* MPI_Win_create's memory, freed with the window */
    void **slot;    /* a program communicator's pool (MPI_THREAD_MULTIPLE): where it is kept */
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
        if (p->win != MPI_WIN_NULL)
            MPI_Win_free(&p->win);
        free(p->owned);
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

static int threads_multiple(void)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    return level == MPI_THREAD_MULTIPLE;
}

/* Where the pool of a program communicator is kept at MPI_THREAD_MULTIPLE,
 * else NULL (pools are kept per group). */
static void **threads_slot(struct ferry_dups *d)
{
    return d && threads_multiple() ? ferry_dups_shfp_slot(d) : NULL;
}

int64_t ferry_shfp_pool_state(MPI_Comm comm, struct ferry_dups *d)
{
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size == 1)
        return 0;
    void **slot = threads_slot(d);
    if (!slot && threads_multiple())
        return FERRY_SHFP_OWN_WINDOW;
    shfp_pool *p = slot ? *slot : pool_find(comm);
    return !p ? FERRY_SHFP_NO_POOL : p->win == MPI_WIN_NULL ? FERRY_SHFP_NO_WINDOWS : p->used;
}

/* One collective attempt at a window of `bytes` on rank 0, agreed: 1 when
 * every rank has it. Errors come back instead of aborting (the program's
 * handler on the communicator is fatal by default). A window that only
 * some ranks got cannot be freed (freeing is collective over ranks that
 * never joined it): it is left alone, which no MPI library seen does. */
static int agreed_window(ferry_file *f, int create, MPI_Aint bytes, int64_t **base, MPI_Win *win)
{
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(f->comm, &eh);
    MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
    int rc;
    *base = NULL;
    if (create) {
        /* the other flavour: memory the library did not allocate */
        *base = bytes ? calloc(1, (size_t)bytes) : NULL;
        rc = bytes && !*base ? MPI_ERR_NO_MEM
                             : MPI_Win_create(*base, bytes, (int)sizeof(int64_t), MPI_INFO_NULL, f->comm, win);
    } else {
        rc = MPI_Win_allocate(bytes, (int)sizeof(int64_t), MPI_INFO_NULL, f->comm, base, win);
    }
    MPI_Comm_set_errhandler(f->comm, eh);
    MPI_Errhandler_free(&eh);
    int ok = rc == MPI_SUCCESS, all = ok;
    /* free slots hold 0; the agreement below orders the zeroing before any
     * rank's first use */
    if (ok && f->rank == 0 && bytes) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, *win);
        for (MPI_Aint i = 0; i < bytes / (MPI_Aint)sizeof(int64_t); i++)
            (*base)[i] = 0;
        MPI_Win_unlock(0, *win);
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        if (!ok && create)
            free(*base);
        *win = MPI_WIN_NULL;
        *base = NULL;
    }
    return all;
}

/* MPI_Win_allocate, else MPI_Win_create. */
static int any_window(ferry_file *f, MPI_Aint bytes, int64_t **base, MPI_Win *win, int *created)
{
    *created = 0;
    if (agreed_window(f, 0, bytes, base, win))
        return 1;
    *created = 1;
    return agreed_window(f, 1, bytes, base, win);
}

static int pool_create(ferry_file *f, shfp_pool **out)
{
    shfp_pool *p = calloc(1, sizeof *p);
    int ok = p != NULL, all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        free(p);
        return MPI_ERR_NO_MEM;
    }
    MPI_Aint bytes = f->rank == 0 ? (MPI_Aint)(SLOTS * sizeof(int64_t)) : 0;
    int created;
    /* a group without windows is remembered too: later opens skip the attempt */
    if (!any_window(f, bytes, &p->base, &p->win, &created))
        p->win = MPI_WIN_NULL;
    else
        p->owned = created ? p->base : NULL;
    MPI_Comm_group(f->comm, &p->group);
    p->slot = threads_slot(f->dups);
    if (p->slot) {
        /* without a window nothing is kept: the next open tries again */
        if (p->win == MPI_WIN_NULL) {
            MPI_Group_free(&p->group);
            free(p);
            return MPI_ERR_WIN;
        }
        *p->slot = p;
        *out = p;
        return MPI_SUCCESS;
    }
    ferry_at_finalize(pools_free);
    pthread_mutex_lock(&pools_lock);
    p->next = pools;
    pools = p;
    pthread_mutex_unlock(&pools_lock);
    *out = p;
    return p->win == MPI_WIN_NULL ? MPI_ERR_WIN : MPI_SUCCESS;
}

static int own_window(ferry_file *f, int64_t **base)
{
    MPI_Aint bytes = f->rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0;
    int created;
    if (!any_window(f, bytes, base, &f->shfp_win, &created))
        return MPI_ERR_WIN;
    f->shfp_owned = created ? *base : NULL;
    return MPI_SUCCESS;
}

int ferry_shfp_create(ferry_file *f, int64_t initial, int64_t agreed)
{
    f->shfp_self = initial;
    f->shfp_base = initial;
    f->shfp_dirty = 0;
    f->shfp_pool = NULL;
    f->shfp_slot = 0;
    f->shfp_owned = NULL;
    f->shfp_file = NULL;
    f->shfp_windowless = 0;
    if (f->size == 1)
        return MPI_SUCCESS;
    shfp_pool *p = NULL;
    if (agreed == FERRY_SHFP_NO_WINDOWS) {
        f->shfp_windowless = 1;
        return MPI_SUCCESS;
    }
    if (agreed == FERRY_SHFP_NO_POOL) {
        int rc = pool_create(f, &p);
        if (rc == MPI_ERR_WIN) {
            f->shfp_windowless = 1;
            return MPI_SUCCESS;
        }
        if (rc != MPI_SUCCESS)
            p = NULL;
    } else if (agreed >= 0 && agreed != ((int64_t)1 << SLOTS) - 1) {
        void **slot = threads_slot(f->dups);
        p = slot ? *slot : pool_find(f->comm);
    }
    if (p) {
        pthread_mutex_lock(&pools_lock);
        while (p->used & ((int64_t)1 << f->shfp_slot))
            f->shfp_slot++;
        p->used |= (int64_t)1 << f->shfp_slot;
        pthread_mutex_unlock(&pools_lock);
        f->shfp_pool = p;
        f->shfp_win = p->win;
        return MPI_SUCCESS;
    }
    /* a free slot holds 0 (zeroed when its window was made, and by the
     * close of a file that moved it), and the pointer is kept relative to
     * the initial value: the open writes nothing */
    int64_t *base = NULL;
    if (own_window(f, &base) != MPI_SUCCESS)
        f->shfp_windowless = 1;
    return MPI_SUCCESS;
}

int ferry_shfp_settle(ferry_file *f)
{
    if (!f->shfp_windowless)
        return MPI_SUCCESS;
    /* the same on every rank: the window failure and the file system were agreed */
    if (!f->fs.coherent_locks)
        return MPI_SUCCESS;
    if (ferry_shfp_file_open(f, f->shfp_self) != MPI_SUCCESS)
        f->shfp_file = NULL; /* a directory we may not write, say: the calls say so */
    return MPI_SUCCESS;
}

void ferry_shfp_free(ferry_file *f, int moved)
{
    ferry_shfp_file_close(f);
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
        int last = p->slot && p->used == 0;
        pthread_mutex_unlock(&pools_lock);
        f->shfp_pool = NULL;
        f->shfp_win = MPI_WIN_NULL;
        /* a program communicator's pool goes with its last file, inside
         * the close every rank makes in the same order */
        if (last) {
            *p->slot = NULL;
            MPI_Win_free(&p->win);
            free(p->owned);
            MPI_Group_free(&p->group);
            free(p);
        }
    } else if (f->shfp_win != MPI_WIN_NULL) {
        MPI_Win_free(&f->shfp_win);
        free(f->shfp_owned);
        f->shfp_owned = NULL;
    }
}

void ferry_shfp_closed(ferry_file *f)
{
    ferry_shfp_file_remove(f);
}

/* Neither a window nor a lock the nodes share: no shared pointer here. */
static int unavailable(void)
{
    return ferry_err(MPI_ERR_UNSUPPORTED_OPERATION,
                     "no shared file pointer: the MPI library makes no one-sided window across these ranks and "
                     "the file system's locks do not hold across nodes (or its hidden file could not be made)");
}

int ferry_shfp_fetch_add(ferry_file *f, int64_t delta, int64_t *old)
{
    f->shfp_touched = 1;
    if (f->size == 1) {
        *old = f->shfp_self;
        f->shfp_self += delta;
        return MPI_SUCCESS;
    }
    if (f->shfp_windowless)
        return f->shfp_file ? ferry_shfp_file_fetch_add(f, delta, old) : unavailable();
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
    if (f->shfp_windowless && !f->shfp_file)
        return unavailable(); /* on every rank alike */
    /* The barrier and the closing agreement fence the reset from
     * shared-pointer calls made before and after the collective call on
     * every rank. */
    MPI_Barrier(f->comm);
    int rc = MPI_SUCCESS;
    if (f->rank == 0 && f->shfp_windowless) {
        rc = ferry_shfp_file_set(f, value);
    } else if (!f->shfp_windowless) {
        /* the window's slot is relative to the pointer at open */
        int64_t rel = value - f->shfp_base;
        f->shfp_dirty = rel != 0;
        if (f->rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shfp_win);
            rc = MPI_Put(&rel, 1, MPI_INT64_T, 0, f->shfp_slot, 1, MPI_INT64_T, f->shfp_win);
            MPI_Win_unlock(0, f->shfp_win);
            if (rc != MPI_SUCCESS)
                rc = ferry_err(MPI_ERR_INTERN, "shared file pointer reset failed");
        }
    }
    return ferry_agree(f, rc, "shared file pointer reset failed on another rank");
}
