/* Entry point, cache and reference counting of flattened datatypes.
 *
 * Derived types carry their ferry_flat in an attribute (keyval created at
 * first use): the attribute holds one reference, its delete callback drops it
 * when the type is freed, its copy callback shares it with MPI_Type_dup.
 * Predefined types (NAMED and the F90 combiners) cannot portably carry
 * attributes; they live in a small hash table keyed by handle. Both are torn
 * down through an MPI_COMM_SELF attribute when MPI finalizes. */
#include "datatype/flat_internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_keyval = MPI_KEYVAL_INVALID;
static int g_selfkey = MPI_KEYVAL_INVALID;
static int g_finalized; /* caching stopped: MPI is finalizing */
static int g_copies;    /* MPI_Type_get_contents returns copies of member types */

typedef struct named_entry {
    MPI_Datatype t;
    ferry_flat *f;
} named_entry;
static named_entry *g_named;
static size_t g_named_cap, g_named_n;

/* ---- reference counting -------------------------------------------------- */

ferry_flat *ferry_flat_bytes(int64_t size)
{
    ferry_seglist l = {0};
    ferry_flat *f = NULL;
    if (size < 0)
        size = 0;
    if (ferry_sl_append(&l, 0, size, 1, 0) != MPI_SUCCESS) {
        ferry_sl_free(&l);
        return NULL;
    }
    ferry_flat_finish(&l, size, 0, size, 0, size, &f);
    return f;
}

/* ---- predefined types ------------------------------------------------------ */

static size_t handle_hash(MPI_Datatype t)
{
    uint64_t k = 0;
    memcpy(&k, &t, sizeof t < sizeof k ? sizeof t : sizeof k);
    k ^= k >> 29;
    k *= 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 32;
    return (size_t)k;
}

static ferry_flat *named_find(MPI_Datatype t)
{
    if (!g_named_cap)
        return NULL;
    for (size_t i = handle_hash(t) & (g_named_cap - 1);; i = (i + 1) & (g_named_cap - 1)) {
        if (!g_named[i].f)
            return NULL;
        if (g_named[i].t == t)
            return g_named[i].f;
    }
}

static int named_insert(MPI_Datatype t, ferry_flat *f)
{
    if (2 * (g_named_n + 1) > g_named_cap) {
        size_t cap = g_named_cap ? 2 * g_named_cap : 128;
        named_entry *v = calloc(cap, sizeof *v);
        if (!v)
            return MPI_ERR_NO_MEM;
        for (size_t j = 0; j < g_named_cap; j++) {
            if (!g_named[j].f)
                continue;
            size_t i = handle_hash(g_named[j].t) & (cap - 1);
            while (v[i].f)
                i = (i + 1) & (cap - 1);
            v[i] = g_named[j];
        }
        free(g_named);
        g_named = v;
        g_named_cap = cap;
    }
    size_t i = handle_hash(t) & (g_named_cap - 1);
    while (g_named[i].f)
        i = (i + 1) & (g_named_cap - 1);
    g_named[i].t = t;
    g_named[i].f = f;
    g_named_n++;
    return MPI_SUCCESS;
}

/* The value-index pairs have a gap between value and index whenever the
 * index is aligned past the value: their typemap is the C struct's. */
typedef struct { float a; int b; } pair_float_int;
typedef struct { double a; int b; } pair_double_int;
typedef struct { long a; int b; } pair_long_int;
typedef struct { int a; int b; } pair_2int;
typedef struct { short a; int b; } pair_short_int;
typedef struct { long double a; int b; } pair_long_double_int;

static int pair_layout(MPI_Datatype t, int64_t *alen, int64_t *boff)
{
#define TRY(H, T, S)                                   \
    if (t == H) {                                      \
        *alen = (int64_t)sizeof(T);                    \
        *boff = (int64_t)offsetof(S, b);               \
        return 1;                                      \
    }
    TRY(MPI_FLOAT_INT, float, pair_float_int)
    TRY(MPI_DOUBLE_INT, double, pair_double_int)
    TRY(MPI_LONG_INT, long, pair_long_int)
    TRY(MPI_2INT, int, pair_2int)
    TRY(MPI_SHORT_INT, short, pair_short_int)
    TRY(MPI_LONG_DOUBLE_INT, long double, pair_long_double_int)
#undef TRY
    return 0;
}

static int named_build(MPI_Datatype t, ferry_flat **out)
{
    int64_t size, lb, ext, tlb, text, alen, boff;
    int rc = ferry_dt_extents(t, &size, &lb, &ext, &tlb, &text);
    if (rc != MPI_SUCCESS)
        return rc;
    ferry_seglist l = {0};
    if (size > 0) {
        if (pair_layout(t, &alen, &boff) && alen + (int64_t)sizeof(int) == size) {
            rc = ferry_sl_append(&l, 0, alen, 1, 0);
            if (rc == MPI_SUCCESS)
                rc = ferry_sl_append(&l, boff, sizeof(int), 1, 0);
        } else {
            /* a basic type: its bytes are contiguous from true_lb */
            rc = ferry_sl_append(&l, tlb, size, 1, 0);
        }
    }
    if (rc != MPI_SUCCESS) {
        ferry_sl_free(&l);
        return rc;
    }
    return ferry_flat_finish(&l, size, lb, ext, tlb, text, out);
}

/* ---- the attribute cache ---------------------------------------------------- */

static int attr_copy(MPI_Datatype old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)kv;
    (void)extra;
    ferry_flat_retain(in);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int attr_delete(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t;
    (void)kv;
    (void)extra;
    ferry_flat_release(val);
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: drop the table and
 * the keyval while MPI is still usable. Types still alive keep their
 * attributes until MPI frees them. */
static int self_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c;
    (void)kv;
    (void)val;
    (void)extra;
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_named_cap; i++)
        if (g_named[i].f)
            ferry_flat_release(g_named[i].f);
    free(g_named);
    g_named = NULL;
    g_named_cap = g_named_n = 0;
    if (g_keyval != MPI_KEYVAL_INVALID)
        MPI_Type_free_keyval(&g_keyval);
    g_keyval = MPI_KEYVAL_INVALID;
    if (g_selfkey != MPI_KEYVAL_INVALID) /* freed once this attribute is gone */
        MPI_Comm_free_keyval(&g_selfkey);
    g_selfkey = MPI_KEYVAL_INVALID;
    g_finalized = 1;
    pthread_mutex_unlock(&g_lock);
    return MPI_SUCCESS;
}

/* Does MPI_Type_get_contents hand out fresh copies of derived member types
 * (Open MPI) or the members themselves (MPICH)? */
static int contents_returns_copies(void)
{
    MPI_Datatype a, b, got[1];
    int ints[1];
    MPI_Aint addrs[1];
    int copies = 0;
    if (MPI_Type_contiguous(2, MPI_INT, &a) != MPI_SUCCESS)
        return 0;
    if (MPI_Type_contiguous(2, a, &b) == MPI_SUCCESS) {
        if (MPI_Type_get_contents(b, 1, 0, 1, ints, addrs, got) == MPI_SUCCESS) {
            copies = got[0] != a;
            MPI_Type_free(&got[0]);
        }
        MPI_Type_free(&b);
    }
    MPI_Type_free(&a);
    return copies;
}

static void ensure_keyval(void)
{
    if (g_keyval != MPI_KEYVAL_INVALID || g_finalized)
        return;
    g_copies = contents_returns_copies();
    int kv;
    if (MPI_Type_create_keyval(attr_copy, attr_delete, &kv, NULL) != MPI_SUCCESS)
        return;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &g_selfkey, NULL) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, g_selfkey, NULL) != MPI_SUCCESS) {
        /* without a finalize hook, do not cache: nothing would free it */
        MPI_Type_free_keyval(&kv);
        return;
    }
    g_keyval = kv;
}

/* Children are flattened through the cache, so a type used in many places
 * is flattened once. The layer lock is held. */
static int child_get(MPI_Datatype t, ferry_flat **out)
{
    return ferry_flat_get_locked(t, 1, out);
}

static int derived_get(MPI_Datatype t, int transient, ferry_flat **out)
{
    int flag = 0;
    void *val = NULL;
    ensure_keyval();
    int cache = g_keyval != MPI_KEYVAL_INVALID && !transient;
    if (cache && MPI_Type_get_attr(t, g_keyval, &val, &flag) == MPI_SUCCESS && flag && val) {
        ferry_flat_retain(val);
        *out = val;
        return MPI_SUCCESS;
    }
    ferry_seglist l = {0};
    int rc = ferry_flatten_derived(t, child_get, &l);
    int64_t size, lb, ext, tlb, text;
    if (rc == MPI_SUCCESS)
        rc = ferry_dt_extents(t, &size, &lb, &ext, &tlb, &text);
    if (rc != MPI_SUCCESS) {
        ferry_sl_free(&l);
        return rc;
    }
    ferry_flat *f;
    if ((rc = ferry_flat_finish(&l, size, lb, ext, tlb, text, &f)) != MPI_SUCCESS)
        return rc;
    if (cache) {
        ferry_flat_retain(f); /* the attribute's reference */
        if (MPI_Type_set_attr(t, g_keyval, f) != MPI_SUCCESS)
            ferry_flat_release(f);
    }
    *out = f;
    return MPI_SUCCESS;
}

int ferry_flat_get_locked(MPI_Datatype t, int child, ferry_flat **out)
{
    int comb;
    *out = NULL;
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (ferry_dt_combiner(t, &comb) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (!ferry_dt_is_predefined_combiner(comb))
        return derived_get(t, child && g_copies, out);

    ferry_flat *f = named_find(t);
    if (f) {
        ferry_flat_retain(f);
        *out = f;
        return MPI_SUCCESS;
    }
    int rc = named_build(t, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!g_finalized) {
        ensure_keyval(); /* registers the finalize hook that frees the table */
        if (g_keyval != MPI_KEYVAL_INVALID && named_insert(t, f) == MPI_SUCCESS)
            ferry_flat_retain(f); /* the table's reference */
    }
    *out = f;
    return MPI_SUCCESS;
}

int ferry_flat_get(MPI_Datatype t, ferry_flat **out)
{
    if (!out)
        return MPI_ERR_ARG;
    *out = NULL;
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return MPI_ERR_OTHER;
    pthread_mutex_lock(&g_lock);
    int rc = ferry_flat_get_locked(t, 0, out);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void ferry_flat_dump(const ferry_flat *f, const char *label)
{
    if (!f) {
        fprintf(stderr, "%s: (null)\n", label ? label : "flat");
        return;
    }
    fprintf(stderr,
            "%s: size %lld lb %lld extent %lld true_lb %lld true_extent %lld nsegs %lld "
            "nblocks %lld flags%s%s%s contig %d refs %d\n",
            label ? label : "flat", (long long)f->size, (long long)f->lb, (long long)f->extent,
            (long long)f->true_lb, (long long)f->true_extent, (long long)f->nsegs,
            (long long)f->nblocks, f->flags & FERRY_FLAT_NEGATIVE ? " NEGATIVE" : "",
            f->flags & FERRY_FLAT_DECREASE ? " DECREASE" : "",
            f->flags & FERRY_FLAT_OVERLAP ? " OVERLAP" : "", f->contig, f->refs);
    for (int64_t i = 0; i < f->nsegs && i < 64; i++)
        fprintf(stderr, "  [%lld] off %lld len %lld count %lld stride %lld\n", (long long)i,
                (long long)f->segs[i].off, (long long)f->segs[i].len,
                (long long)f->segs[i].count, (long long)f->segs[i].stride);
    if (f->nsegs > 64)
        fprintf(stderr, "  ... %lld more\n", (long long)(f->nsegs - 64));
}
