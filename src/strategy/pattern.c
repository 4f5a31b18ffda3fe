#include "strategy/pattern.h"
#include "core/errors.h"
#include "core/finalize.h"

#include <pthread.h>
#include <stdlib.h>

static int runs_push(ferry_runs *r, int64_t off, int64_t len)
{
    if (r->n && r->v[r->n - 1].off + r->v[r->n - 1].len == off) {
        r->v[r->n - 1].len += len;
        return 0;
    }
    if (r->n == r->cap) {
        int64_t cap = r->cap ? r->cap * 2 : 16;
        ferry_run *nv = realloc(r->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        r->v = nv;
        r->cap = cap;
    }
    r->v[r->n].off = off;
    r->v[r->n].len = len;
    r->n++;
    return 0;
}

int ferry_runs_build(ferry_runs *r, const ferry_view *v, int64_t pos, int64_t bytes)
{
    r->v = NULL;
    r->n = r->cap = 0;
    r->bytes = 0;
    r->lo = INT64_MAX;
    r->hi = 0;
    ferry_file_walk w;
    ferry_file_walk_init(&w, v, pos, bytes);
    int64_t off, len;
    while (ferry_file_walk_next(&w, INT64_MAX, &off, &len)) {
        if (runs_push(r, off, len) < 0)
            return ferry_err(MPI_ERR_NO_MEM, "out of memory listing the file runs of a collective call");
        r->bytes += len;
    }
    if (r->n) {
        r->lo = r->v[0].off;
        r->hi = r->v[r->n - 1].off + r->v[r->n - 1].len;
    }
    return MPI_SUCCESS;
}

void ferry_runs_free(ferry_runs *r)
{
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

int ferry_runs_copy(ferry_runs *to, const ferry_runs *r)
{
    ferry_runs_free(to);
    *to = *r;
    to->v = NULL;
    to->cap = to->n;
    if (r->n && !(to->v = malloc((size_t)r->n * sizeof *to->v))) {
        to->n = to->cap = 0;
        return MPI_ERR_NO_MEM;
    }
    for (int64_t i = 0; i < r->n; i++)
        to->v[i] = r->v[i];
    return MPI_SUCCESS;
}

/* 1 if r is last moved by *d (both empty: any shift, *d = INT64_MIN). */
static int shifted(const ferry_runs *r, const ferry_runs *last, int64_t *d)
{
    *d = INT64_MIN;
    if (!last || r->n != last->n)
        return 0;
    if (!r->n)
        return 1;
    *d = r->v[0].off - last->v[0].off;
    for (int64_t i = 0; i < r->n; i++)
        if (r->v[i].len != last->v[i].len || r->v[i].off - last->v[i].off != *d)
            return 0;
    return 1;
}

/* P_DMAX and P_NDMIN give the largest and smallest shift; P_NOREP is set by
 * any rank whose runs are not its last ones moved. */
enum { P_ERR, P_NLO, P_HI, P_MAXB, P_DMAX, P_NDMIN, P_NOREP, P_N_MAX };
enum { S_BYTES, S_RUNS, S_SPAN, S_ACTIVE, S_N };
#define P_ALL (P_N_MAX + S_N)

/* One reduction, two operators: the first P_N_MAX entries are maxima, the
 * rest sums. */
static void max_then_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int64_t *a = in;
    int64_t *b = inout;
    for (int e = 0; e < *len; e++, a += P_ALL, b += P_ALL) {
        for (int i = 0; i < P_N_MAX; i++)
            b[i] = a[i] > b[i] ? a[i] : b[i];
        for (int i = P_N_MAX; i < P_ALL; i++)
            b[i] += a[i];
    }
}

static MPI_Op pattern_op = MPI_OP_NULL;
static MPI_Datatype pattern_type = MPI_DATATYPE_NULL;
static pthread_mutex_t pattern_lock = PTHREAD_MUTEX_INITIALIZER;

/* At MPI_Finalize: MPICH counts a type still allocated then as leaked and
 * says so on every process ("yaksa: 1 leaked handle pool objects"). */
static void pattern_op_free(void)
{
    pthread_mutex_lock(&pattern_lock);
    if (pattern_op != MPI_OP_NULL)
        MPI_Op_free(&pattern_op);
    if (pattern_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&pattern_type);
    pthread_mutex_unlock(&pattern_lock);
}

/* Made once per process, by whichever thread gets here first. */
static void pattern_op_init(void)
{
    pthread_mutex_lock(&pattern_lock);
    int made = pattern_op == MPI_OP_NULL;
    if (made) {
        MPI_Type_contiguous(P_ALL, MPI_INT64_T, &pattern_type);
        MPI_Type_commit(&pattern_type);
        MPI_Op_create(max_then_sum, 1, &pattern_op);
    }
    pthread_mutex_unlock(&pattern_lock);
    if (made)
        ferry_at_finalize(pattern_op_free);
}

int ferry_pattern_agree(ferry_file *f, int local_err, const ferry_runs *r, const ferry_runs *last,
                        ferry_pattern *p)
{
    int64_t in[P_ALL], out[P_ALL];
    int empty = r->n == 0;
    int64_t d;
    in[P_NOREP] = !shifted(r, last, &d);
    in[P_DMAX] = d;
    in[P_NDMIN] = d == INT64_MIN ? INT64_MIN : -d;
    in[P_ERR] = ferry_err_class(local_err);
    in[P_NLO] = empty ? INT64_MIN : -r->lo;
    in[P_HI] = empty ? 0 : r->hi;
    in[P_MAXB] = r->bytes;
    in[P_N_MAX + S_BYTES] = r->bytes;
    in[P_N_MAX + S_RUNS] = r->n;
    in[P_N_MAX + S_SPAN] = empty ? 0 : r->hi - r->lo;
    in[P_N_MAX + S_ACTIVE] = !empty;
    pattern_op_init();
    MPI_Allreduce(in, out, 1, pattern_type, pattern_op, f->comm);
    p->err = (int)out[P_ERR];
    p->lo = out[P_NLO] == INT64_MIN ? 0 : -out[P_NLO];
    p->hi = out[P_HI];
    p->max_rank_bytes = out[P_MAXB];
    p->bytes = out[P_N_MAX + S_BYTES];
    p->runs = out[P_N_MAX + S_RUNS];
    p->span_sum = out[P_N_MAX + S_SPAN];
    p->active = out[P_N_MAX + S_ACTIVE];
    p->repeats = !out[P_NOREP] && out[P_DMAX] != INT64_MIN && out[P_DMAX] == -out[P_NDMIN];
    p->shift = p->repeats ? out[P_DMAX] : 0;
    if (local_err != MPI_SUCCESS)
        return local_err;
    return p->err == MPI_SUCCESS ? MPI_SUCCESS
                                 : ferry_err(p->err, "the collective call has invalid arguments on another rank");
}
