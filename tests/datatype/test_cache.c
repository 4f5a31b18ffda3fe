/* The cache: one ferry_flat per type, shared by MPI_Type_dup, released when
 * the type is freed, references outliving the type; the predefined-type
 * table; error classes; ferry_flat_bytes; concurrent first use. Run under
 * ASan (FERRY_SANITIZE=ON) to prove nothing leaks or is used after free. */
#include "dt_oracle.h"

#include <pthread.h>
#include <stdlib.h>

static int refs(const ferry_flat *f)
{
    return __atomic_load_n(&f->refs, __ATOMIC_RELAXED);
}

static void named(void)
{
    ferry_flat *a, *b;
    snprintf(dt_context, sizeof dt_context, "named");
    DT_CHECK(ferry_flat_get(MPI_INT, &a) == MPI_SUCCESS, "get");
    DT_CHECK(ferry_flat_get(MPI_INT, &b) == MPI_SUCCESS, "get");
    DT_CHECK(a == b, "MPI_INT flattened twice");
    DT_CHECK(refs(a) == 3, "refs %d (table + 2 holders)", refs(a));
    DT_CHECK(a->contig && a->size == sizeof(int) && a->nsegs == 1, "MPI_INT contiguous");
    ferry_flat_release(a);
    ferry_flat_release(b);
    DT_CHECK(ferry_flat_get(MPI_DOUBLE_INT, &a) == MPI_SUCCESS, "get");
    DT_CHECK(!a->contig && a->nblocks == 1 && a->extent == 16 && a->size == 12, "MPI_DOUBLE_INT: one block, gap at the end");
    ferry_flat_release(a);
    DT_CHECK(ferry_flat_get(MPI_SHORT_INT, &a) == MPI_SUCCESS, "get");
    DT_CHECK(!a->contig && a->nblocks == 2 && a->size == 6, "MPI_SHORT_INT: two blocks");
    ferry_flat_release(a);
}

static void derived(void)
{
    MPI_Datatype t, d;
    ferry_flat *a, *b, *c;
    snprintf(dt_context, sizeof dt_context, "derived");
    MPI_Type_vector(10, 2, 3, MPI_INT, &t); /* not committed: flattening does not need it */
    DT_CHECK(ferry_flat_get(t, &a) == MPI_SUCCESS, "get");
    DT_CHECK(ferry_flat_get(t, &b) == MPI_SUCCESS, "get");
    DT_CHECK(a == b, "cached: same flat");
    DT_CHECK(refs(a) == 3, "refs %d (attribute + 2 holders)", refs(a));
    ferry_flat_release(b);

    MPI_Type_dup(t, &d);
    DT_CHECK(ferry_flat_get(d, &c) == MPI_SUCCESS, "get dup");
    DT_CHECK(c == a, "MPI_Type_dup shares the cached flat");
    DT_CHECK(refs(a) == 4, "refs %d (2 attributes + 2 holders)", refs(a));

    /* (Open MPI keeps t alive inside its dup until the dup is freed) */
    MPI_Type_free(&t);
    DT_CHECK(refs(a) == 3 || refs(a) == 4, "refs %d", refs(a));
    MPI_Type_free(&d);
    DT_CHECK(refs(a) == 2, "freeing the types drops their attributes: refs %d", refs(a));
    ferry_flat_release(c);
    /* the holder's reference outlives both types */
    DT_CHECK(a->nsegs == 1 && a->segs[0].count == 10 && a->segs[0].len == 8 && a->segs[0].stride == 12,
             "contents still readable");
    ferry_flat_release(a);

    /* a freshly built type is flattened anew (no stale cache by handle reuse) */
    for (int i = 0; i < 50; i++) {
        MPI_Type_contiguous(i + 1, MPI_DOUBLE, &t);
        DT_CHECK(ferry_flat_get(t, &a) == MPI_SUCCESS && a->size == 8 * (i + 1), "handle reuse %d", i);
        ferry_flat_release(a);
        MPI_Type_free(&t);
    }

    /* children used by a parent stay valid after the user frees them */
    MPI_Datatype in, out;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &in);
    DT_CHECK(ferry_flat_get(in, &a) == MPI_SUCCESS, "get inner");
    MPI_Type_contiguous(4, in, &out);
    MPI_Type_free(&in);
    DT_CHECK(ferry_flat_get(out, &b) == MPI_SUCCESS && b->size == 4 * 3 * 8, "outer after inner freed");
    ferry_flat_release(a);
    ferry_flat_release(b);
    MPI_Type_free(&out);
}

static void errors(void)
{
    ferry_flat *f = (ferry_flat *)1;
    snprintf(dt_context, sizeof dt_context, "errors");
    DT_CHECK(ferry_flat_get(MPI_DATATYPE_NULL, &f) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    DT_CHECK(f == NULL, "out cleared on error");
    DT_CHECK(ferry_flat_get(MPI_INT, NULL) == MPI_ERR_ARG, "NULL out");
    ferry_flat_release(NULL); /* harmless */
}

static void bytes(void)
{
    snprintf(dt_context, sizeof dt_context, "ferry_flat_bytes");
    ferry_flat *f = ferry_flat_bytes(100);
    DT_CHECK(f && f->contig && f->nsegs == 1 && f->size == 100 && f->extent == 100 && f->lb == 0, "bytes(100)");
    ferry_iter it;
    int64_t off, len;
    ferry_iter_init(&it, f, 7, 3, 0);
    DT_CHECK(ferry_iter_next(&it, 0, &off, &len) && off == 7 && len == 300, "3 instances: one run");
    DT_CHECK(!ferry_iter_next(&it, 0, &off, &len), "end");
    ferry_flat_release(f);
    f = ferry_flat_bytes(0);
    DT_CHECK(f && f->nsegs == 0 && f->size == 0 && !f->contig, "bytes(0)");
    ferry_iter_init(&it, f, 0, FERRY_ITER_UNBOUNDED, 0);
    DT_CHECK(!ferry_iter_next(&it, 0, &off, &len), "zero-size stream is empty, even unbounded");
    ferry_flat_release(f);
}

typedef struct {
    MPI_Datatype t;
    ferry_flat *got[200];
} job;

static void *worker(void *p)
{
    job *j = p;
    for (int i = 0; i < 200; i++)
        if (ferry_flat_get(j->t, &j->got[i]) != MPI_SUCCESS)
            j->got[i] = NULL;
    return NULL;
}

static void threads(int provided)
{
    snprintf(dt_context, sizeof dt_context, "threads");
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided: concurrency check skipped\n");
        return;
    }
    MPI_Datatype t;
    int sz[] = {20, 30}, sub[] = {5, 6}, st[] = {1, 2};
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
    job j[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        j[i].t = t;
        pthread_create(&th[i], NULL, worker, &j[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    ferry_flat *first = j[0].got[0];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 200; k++) {
            DT_CHECK(j[i].got[k] == first, "thread %d call %d got another flat", i, k);
            ferry_flat_release(j[i].got[k]);
        }
    DT_CHECK(refs(first) == 1, "refs %d after all releases", refs(first));
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    named();
    derived();
    errors();
    bytes();
    threads(provided);
    /* leave a flattened type alive across MPI_Finalize: the named table and
     * the keyval are torn down by the MPI_COMM_SELF hook */
    ferry_flat *f;
    ferry_flat_get(MPI_FLOAT, &f);
    ferry_flat_release(f);
    return dt_finish("datatype_cache");
}
