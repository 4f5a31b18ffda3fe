#include "core/datarep.h"
#include "core/errors.h"

#include <pthread.h>
#include <string.h>

#define MAX_REPS 64
static ferry_datarep reps[MAX_REPS];
static int nreps;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int ferry_datarep_register(const char *name, void *read_fn, void *write_fn,
                           MPI_Datarep_extent_function *extent_fn, void *state, int large)
{
    if (!name || !*name || strlen(name) >= MPI_MAX_DATAREP_STRING)
        return ferry_err(MPI_ERR_ARG, "datarep name is empty or too long");
    if (!extent_fn)
        return ferry_err(MPI_ERR_ARG, "datarep extent function is NULL");
    if (!strcmp(name, "native") || !strcmp(name, "internal") || !strcmp(name, "external32") ||
        ferry_datarep_find(name))
        return ferry_err(MPI_ERR_DUP_DATAREP, "datarep name is already defined");
    pthread_mutex_lock(&lock);
    int rc = MPI_SUCCESS;
    if (nreps == MAX_REPS) {
        rc = ferry_err(MPI_ERR_INTERN, "too many registered datareps");
    } else {
        ferry_datarep *r = &reps[nreps++];
        strcpy(r->name, name);
        r->read_fn = read_fn;
        r->write_fn = write_fn;
        r->extent_fn = extent_fn;
        r->state = state;
        r->large = large;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

const ferry_datarep *ferry_datarep_find(const char *name)
{
    const ferry_datarep *r = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nreps; i++)
        if (!strcmp(reps[i].name, name))
            r = &reps[i];
    pthread_mutex_unlock(&lock);
    return r;
}
