/* The registry of MPI_Register_datarep, and what a representation makes of
 * a datatype: its file-side size and its file-side layout. */
#include "core/datarep.h"
#include "core/errors.h"
#include "datatype/remap.h"
#include "datatype/signature.h"

#include <pthread.h>
#include <stdlib.h>
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

int ferry_rep_lookup(const char *name, ferry_rep *out)
{
    out->kind = FERRY_REP_NATIVE;
    out->user = NULL;
    if (!name)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP, "datarep is NULL");
    if (!strcmp(name, "native") || !strcmp(name, "internal"))
        return MPI_SUCCESS;
    if (!strcmp(name, "external32")) {
        out->kind = FERRY_REP_EXTERNAL32;
        return MPI_SUCCESS;
    }
    out->user = ferry_datarep_find(name);
    if (!out->user)
        return ferry_err(MPI_ERR_UNSUPPORTED_DATAREP,
                         "datarep is neither native, internal, external32 nor registered with MPI_Register_datarep");
    out->kind = FERRY_REP_USER;
    return MPI_SUCCESS;
}

/* File-side size of one predefined type (pair types whole). */
static int prim_size(const ferry_rep *r, MPI_Datatype prim, int64_t *size)
{
    if (r->kind == FERRY_REP_EXTERNAL32) {
        *size = ferry_ext32_size(prim);
        return MPI_SUCCESS;
    }
    if (r->kind == FERRY_REP_NATIVE) {
        MPI_Count n = 0;
        MPI_Type_size_x(prim, &n);
        *size = n;
        return MPI_SUCCESS;
    }
    MPI_Datatype a, b;
    if (ferry_sig_pair(prim, &a, &b)) {
        int64_t sa, sb;
        int rc = prim_size(r, a, &sa);
        if (rc == MPI_SUCCESS)
            rc = prim_size(r, b, &sb);
        *size = sa + sb;
        return rc;
    }
    MPI_Aint ext = 0;
    if (r->user->extent_fn(prim, &ext, r->user->state) != MPI_SUCCESS || ext < 0)
        return ferry_err(MPI_ERR_CONVERSION, "the datarep's extent function failed");
    *size = ext;
    return MPI_SUCCESS;
}

typedef struct size_acc {
    const ferry_rep *r;
    int64_t bytes;
    int rc;
    int differs; /* some predefined type changes size */
} size_acc;

static int add_run(MPI_Datatype prim, int64_t count, void *arg)
{
    size_acc *a = arg;
    int64_t s = 0;
    a->rc = prim_size(a->r, prim, &s);
    if (a->rc != MPI_SUCCESS)
        return 1;
    MPI_Count n = 0;
    MPI_Type_size_x(prim, &n);
    a->differs |= n != s;
    a->bytes += s * count;
    return 0;
}

static int scan(const ferry_rep *r, MPI_Datatype t, int64_t count, size_acc *a)
{
    *a = (size_acc){r, 0, MPI_SUCCESS, 0};
    ferry_sig *sig = NULL;
    int rc = ferry_sig_get(t, &sig);
    if (rc != MPI_SUCCESS)
        return ferry_err(rc, "the datatype's signature cannot be read");
    ferry_sig_walk(sig, count, add_run, a);
    ferry_sig_release(sig);
    return a->rc;
}

int ferry_rep_size(const ferry_rep *r, MPI_Datatype t, int64_t count, int64_t *bytes)
{
    size_acc a;
    int rc = scan(r, t, count, &a);
    *bytes = a.bytes;
    return rc;
}

/* Leaves of the file-side type: a predefined type of the file-side size
 * where there is one (so struct alignment follows the size), else bytes. */
typedef struct leaf_ctx {
    const ferry_rep *r;
    MPI_Datatype made[64];
    int nmade;
    int rc;
} leaf_ctx;

static MPI_Datatype file_leaf(MPI_Datatype prim, void *arg)
{
    leaf_ctx *c = arg;
    int64_t s = 0;
    if ((c->rc = prim_size(c->r, prim, &s)) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    MPI_Count n = 0;
    MPI_Type_size_x(prim, &n);
    MPI_Datatype a, b;
    if (n == s && !ferry_sig_pair(prim, &a, &b))
        return prim;
    switch (s) {
    case 1: return MPI_INT8_T;
    case 2: return MPI_INT16_T;
    case 4: return MPI_INT32_T;
    case 8: return MPI_INT64_T;
    default: break;
    }
    for (int i = 0; i < c->nmade; i++) {
        MPI_Count ms = 0;
        MPI_Type_size_x(c->made[i], &ms);
        if (ms == s)
            return c->made[i];
    }
    if (c->nmade == 64 || MPI_Type_contiguous((int)s, MPI_BYTE, &c->made[c->nmade]) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    return c->made[c->nmade++];
}

int ferry_rep_file_type(const ferry_rep *r, MPI_Datatype t, MPI_Datatype *out, int *made)
{
    *out = t;
    *made = 0;
    size_acc a;
    int rc = r->kind == FERRY_REP_NATIVE ? MPI_SUCCESS : scan(r, t, 1, &a);
    if (rc != MPI_SUCCESS || r->kind == FERRY_REP_NATIVE || !a.differs)
        return rc;
    leaf_ctx c = {.r = r};
    rc = ferry_type_remap(t, file_leaf, &c, out);
    for (int i = 0; i < c.nmade; i++)
        MPI_Type_free(&c.made[i]);
    if (rc != MPI_SUCCESS) {
        *out = t;
        return c.rc != MPI_SUCCESS ? c.rc : ferry_err(rc, "the datatype cannot be laid out in the datarep");
    }
    *made = 1;
    return MPI_SUCCESS;
}
