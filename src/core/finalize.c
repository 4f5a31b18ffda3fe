#include "core/finalize.h"

#include <mpi.h>
#include <pthread.h>

enum { MAX_RELEASES = 16, MAX_FIRST = 4 };

static void (*releases[MAX_RELEASES])(void);
static int nreleases;
static void (*first[MAX_FIRST])(void);
static int nfirst;
static int self_key = MPI_KEYVAL_INVALID;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int run_releases(MPI_Comm self, int key, void *val, void *extra)
{
    (void)self;
    (void)key;
    (void)val;
    (void)extra;
    /* newest first, unlocked: they may use (and so register) the caches
     * released below */
    pthread_mutex_lock(&lock);
    while (nfirst > 0) {
        void (*f)(void) = first[--nfirst];
        pthread_mutex_unlock(&lock);
        f();
        pthread_mutex_lock(&lock);
    }
    while (nreleases > 0)
        releases[--nreleases]();
    if (self_key != MPI_KEYVAL_INVALID)
        MPI_Comm_free_keyval(&self_key);
    self_key = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* Lock held. */
static void watch_finalize(void)
{
    if (self_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_releases, &self_key, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL);
}

void ferry_at_finalize(void (*release)(void))
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nreleases; i++)
        if (releases[i] == release) {
            pthread_mutex_unlock(&lock);
            return;
        }
    watch_finalize();
    /* the table is sized for ferry's own caches; a full one is a bug */
    if (nreleases < MAX_RELEASES)
        releases[nreleases++] = release;
    pthread_mutex_unlock(&lock);
}

void ferry_at_finalize_first(void (*fn)(void))
{
    pthread_mutex_lock(&lock);
    int known = 0;
    for (int i = 0; i < nfirst; i++)
        known |= first[i] == fn;
    watch_finalize();
    if (!known && nfirst < MAX_FIRST)
        first[nfirst++] = fn;
    pthread_mutex_unlock(&lock);
}
