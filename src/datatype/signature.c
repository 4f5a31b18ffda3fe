/* Type signatures from envelopes and contents. Any combiner with one child
 * repeats the child's signature size(t)/size(child) times, whatever its
 * shape; a struct concatenates its members'. */
#include "datatype/signature.h"
#include "datatype/flat_internal.h"

#include <stdlib.h>

static ferry_sig *sig_new(int64_t n)
{
    ferry_sig *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->items = calloc((size_t)(n > 0 ? n : 1), sizeof *s->items);
    if (!s->items) {
        free(s);
        return NULL;
    }
    s->refs = 1;
    return s;
}

void ferry_sig_release(ferry_sig *s)
{
    if (!s || --s->refs > 0)
        return;
    for (int64_t i = 0; i < s->n; i++)
        ferry_sig_release(s->items[i].sub);
    free(s->items);
    free(s);
}

int ferry_sig_pair(MPI_Datatype t, MPI_Datatype *a, MPI_Datatype *b)
{
    if (t == MPI_FLOAT_INT)
        *a = MPI_FLOAT, *b = MPI_INT;
    else if (t == MPI_DOUBLE_INT)
        *a = MPI_DOUBLE, *b = MPI_INT;
    else if (t == MPI_LONG_INT)
        *a = MPI_LONG, *b = MPI_INT;
    else if (t == MPI_2INT)
        *a = MPI_INT, *b = MPI_INT;
    else if (t == MPI_SHORT_INT)
        *a = MPI_SHORT, *b = MPI_INT;
    else if (t == MPI_LONG_DOUBLE_INT)
        *a = MPI_LONG_DOUBLE, *b = MPI_INT;
    else
        return 0;
    return 2;
}

/* Appends `count` repeats of sub to s (which has room), merging runs. */
static void append(ferry_sig *s, ferry_sig *sub, int64_t count)
{
    if (count <= 0 || sub->n == 0)
        return;
    if (sub->n == 1 && sub->items[0].sub == NULL) {
        MPI_Datatype p = sub->items[0].prim;
        int64_t c = sub->items[0].count * count;
        if (s->n > 0 && s->items[s->n - 1].sub == NULL && s->items[s->n - 1].prim == p)
            s->items[s->n - 1].count += c;
        else
            s->items[s->n++] = (ferry_sig_item){p, c, NULL};
        return;
    }
    sub->refs++;
    s->items[s->n++] = (ferry_sig_item){MPI_DATATYPE_NULL, count, sub};
}

static int leaf(MPI_Datatype t, ferry_sig **out)
{
    MPI_Datatype a, b;
    int pair = ferry_sig_pair(t, &a, &b);
    ferry_sig *s = sig_new(2);
    if (!s)
        return MPI_ERR_NO_MEM;
    MPI_Count size = 0;
    MPI_Type_size_x(t, &size);
    if (pair) {
        s->items[s->n++] = (ferry_sig_item){a, 1, NULL};
        if (b == a)
            s->items[0].count++;
        else
            s->items[s->n++] = (ferry_sig_item){b, 1, NULL};
    } else if (size > 0) {
        s->items[s->n++] = (ferry_sig_item){t, 1, NULL};
    }
    *out = s;
    return MPI_SUCCESS;
}

static int64_t size_of(MPI_Datatype t)
{
    int64_t s, lb, e, tlb, te;
    return ferry_dt_extents(t, &s, &lb, &e, &tlb, &te) == MPI_SUCCESS ? s : -1;
}

int ferry_sig_get(MPI_Datatype t, ferry_sig **out)
{
    *out = NULL;
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    int comb;
    if (ferry_dt_combiner(t, &comb) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (ferry_dt_is_predefined_combiner(comb))
        return leaf(t, out);
    ferry_dt_contents c;
    int rc = ferry_dt_contents_get(t, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    int is_struct = c.comb == MPI_COMBINER_STRUCT;
#ifdef FERRY_HAVE_MPI1_NAMES
    is_struct |= c.comb == MPI_COMBINER_STRUCT_INTEGER;
#endif
    int64_t members = is_struct ? c.nd : 1;
    ferry_sig *s = c.nd >= 1 || is_struct ? sig_new(members) : NULL;
    if (!s)
        rc = c.nd >= 1 || is_struct ? MPI_ERR_NO_MEM : MPI_ERR_TYPE;
    for (int64_t i = 0; i < members && rc == MPI_SUCCESS; i++) {
        ferry_sig *kid = NULL;
        rc = ferry_sig_get(c.types[i], &kid);
        if (rc != MPI_SUCCESS)
            break;
        int64_t reps, ks = size_of(c.types[i]);
        if (is_struct)
            reps = c.large ? (int64_t)c.cnts[1 + i] : (int64_t)c.ints[1 + i];
        else
            reps = ks > 0 ? size_of(t) / ks : 0;
        append(s, kid, reps);
        ferry_sig_release(kid);
    }
    ferry_dt_contents_free(&c);
    if (rc != MPI_SUCCESS) {
        ferry_sig_release(s);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

int ferry_sig_walk(const ferry_sig *s, int64_t reps, ferry_sig_fn fn, void *arg)
{
    /* a signature of one run needs no loop over its repeats */
    if (s->n == 1 && !s->items[0].sub)
        return reps > 0 ? fn(s->items[0].prim, s->items[0].count * reps, arg) : 0;
    for (int64_t r = 0; r < reps; r++)
        for (int64_t i = 0; i < s->n; i++) {
            const ferry_sig_item *it = &s->items[i];
            int rc = it->sub ? ferry_sig_walk(it->sub, it->count, fn, arg) : fn(it->prim, it->count, arg);
            if (rc)
                return rc;
        }
    return 0;
}
