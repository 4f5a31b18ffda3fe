#include "strategy/twophase.h"
#include "core/errors.h"
#include "core/wait.h"
#include "core/machine.h"
#include "core/stats.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ROUND ((int64_t)1 << 30) /* a round must fit MPI's int counts */

int ferry_tp_round_of(const ferry_tp_plan *plan, int64_t off)
{
    return (int)(ferry_domains_local(&plan->d, off) / plan->round_bytes);
}

static int grow(void **v, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *nv = realloc(*v, (size_t)c * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

static int out_piece(ferry_tp_out *o, int64_t off, int64_t len, int round)
{
    if (grow((void **)&o->p, &o->cap, o->n + 1, sizeof *o->p) < 0)
        return -1;
    o->p[o->n++] = (ferry_tp_piece){off, len, o->mn, round};
    return 0;
}

/* Memory runs merge when they touch, but never across the start of a round:
 * each round's runs become one message. */
static int out_mem(ferry_tp_out *o, char *addr, int64_t len)
{
    MPI_Aint a;
    MPI_Get_address(addr, &a);
    const ferry_tp_piece *cur = &o->p[o->n - 1];
    int new_round = o->mn == cur->mem0 && (o->n == 1 || o->p[o->n - 2].round != cur->round);
    if (o->mn && !new_round && o->maddr[o->mn - 1] + o->mlen[o->mn - 1] == a &&
        o->mlen[o->mn - 1] + len <= MAX_ROUND) {
        o->mlen[o->mn - 1] += (int)len;
        return 0;
    }
    int64_t c1 = o->mcap, c2 = o->mcap;
    if (grow((void **)&o->maddr, &c1, o->mn + 1, sizeof *o->maddr) < 0 ||
        grow((void **)&o->mlen, &c2, o->mn + 1, sizeof *o->mlen) < 0)
        return -1;
    o->mcap = c1 < c2 ? c1 : c2;
    o->maddr[o->mn] = a;
    o->mlen[o->mn] = (int)len;
    o->mn++;
    return 0;
}

/* Cuts the runs at domain and round boundaries, and follows the memory side
 * along, so each piece knows the user memory it comes from. */
static int cut(ferry_tp_plan *plan, const ferry_xfer *x, const ferry_runs *runs)
{
    ferry_mem_walk mw;
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    char *maddr = NULL;
    int64_t mleft = 0;
    for (int64_t i = 0; i < runs->n; i++) {
        int64_t off = runs->v[i].off, left = runs->v[i].len;
        while (left > 0) {
            int64_t dend;
            int a = ferry_domains_owner(&plan->d, off, &dend);
            int64_t local = ferry_domains_local(&plan->d, off);
            int round = (int)(local / plan->round_bytes);
            int64_t rend = off + ((int64_t)round + 1) * plan->round_bytes - local;
            int64_t len = left;
            if (off + len > dend)
                len = dend - off;
            if (off + len > rend)
                len = rend - off;
            ferry_tp_out *o = &plan->out[a];
            if (out_piece(o, off, len, round) < 0)
                return -1;
            for (int64_t need = len; need > 0;) {
                if (mleft == 0 && !ferry_mem_walk_next(&mw, INT64_MAX, &maddr, &mleft))
                    return -1;
                int64_t take = mleft < need ? mleft : need;
                if (out_mem(o, maddr, take) < 0)
                    return -1;
                maddr += take;
                mleft -= take;
                need -= take;
            }
            off += len;
            left -= len;
        }
    }
    return 0;
}

void ferry_tp_memo_free(ferry_tp_memo *memo)
{
    for (int s = 0; s < memo->nsenders && memo->senders; s++)
        free(memo->senders[s].pairs);
    free(memo->senders);
    memo->senders = NULL;
    memo->nsenders = 0;
    memo->valid = 0;
}

/* Copies of the senders' lists, their offsets moved by shift; 0 or -1. */
static int senders_copy(ferry_tp_sender **to, const ferry_tp_sender *from, int n, int64_t shift)
{
    *to = n ? calloc((size_t)n, sizeof **to) : NULL;
    if (n && !*to)
        return -1;
    int rc = 0;
    for (int s = 0; s < n; s++) {
        (*to)[s] = (ferry_tp_sender){from[s].rank, malloc((size_t)(from[s].n ? from[s].n : 1) * 2 * sizeof(int64_t)),
                                     from[s].n, 0};
        if (!(*to)[s].pairs) {
            (*to)[s].n = 0;
            rc = -1;
            continue;
        }
        for (int64_t i = 0; i < from[s].n; i++) {
            (*to)[s].pairs[2 * i] = from[s].pairs[2 * i] + shift;
            (*to)[s].pairs[2 * i + 1] = from[s].pairs[2 * i + 1];
        }
    }
    return rc;
}

/* Counts exchange, then targeted piece lists: an aggregator hears only from
 * the ranks with pieces in its domain. */
static int exchange_lists(ferry_file *f, ferry_tp_plan *plan)
{
    int *talk = calloc((size_t)f->size, sizeof *talk);
    if (!talk)
        return -1;
    for (int a = 0; a < plan->d.n; a++)
        if (plan->out && plan->out[a].n)
            talk[plan->aggs.ranks[a]] = 1;
    int nsenders = 0;
    MPI_Reduce_scatter_block(talk, &nsenders, 1, MPI_INT, MPI_SUM, f->comm);
    free(talk);

    int nreq = 0;
    MPI_Request *req = malloc((size_t)(plan->d.n + 1) * sizeof *req);
    int64_t **lists = calloc((size_t)plan->d.n + 1, sizeof *lists);
    if (!req || !lists) {
        free(req);
        free(lists);
        return -1;
    }
    int rc = 0;
    for (int a = 0; a < plan->d.n; a++) {
        ferry_tp_out *o = &plan->out[a];
        if (!o->n)
            continue;
        int64_t *l = malloc((size_t)o->n * 2 * sizeof *l);
        if (!l) {
            rc = -1;
            continue;
        }
        for (int64_t i = 0; i < o->n; i++) {
            l[2 * i] = o->p[i].off;
            l[2 * i + 1] = o->p[i].len;
        }
        lists[a] = l;
        MPI_Isend(l, (int)(o->n * 2), MPI_INT64_T, plan->aggs.ranks[a], FERRY_TAG_META, f->comm, &req[nreq++]);
    }
    plan->nsenders = nsenders;
    plan->senders = nsenders ? calloc((size_t)nsenders, sizeof *plan->senders) : NULL;
    for (int s = 0; s < nsenders; s++) {
        MPI_Status st;
        int cnt = 0;
        MPI_Probe(MPI_ANY_SOURCE, FERRY_TAG_META, f->comm, &st);
        MPI_Get_count(&st, MPI_INT64_T, &cnt);
        int64_t *l = malloc((size_t)(cnt ? cnt : 1) * sizeof *l);
        MPI_Recv(l ? l : (void *)&cnt, l ? cnt : 0, MPI_INT64_T, st.MPI_SOURCE, FERRY_TAG_META, f->comm,
                 MPI_STATUS_IGNORE);
        if (!l || !plan->senders) {
            free(l);
            rc = -1;
            continue;
        }
        plan->senders[s] = (ferry_tp_sender){st.MPI_SOURCE, l, cnt / 2, 0};
    }
    ferry_waitall(nreq, req);
    for (int a = 0; a < plan->d.n; a++)
        free(lists[a]);
    free(lists);
    free(req);
    return rc;
}

/* d is memo's domains moved by shift: each rank's pieces fall to the same
 * aggregators as in the memo's call. */
static int same_domains(const ferry_domains *d, const ferry_tp_memo *memo, int64_t shift)
{
    const ferry_domains *m = &memo->d;
    if (d->stripe || m->stripe) /* stripe-cyclic owners depend on absolute offsets */
        return 0;
    return d->n == m->n && d->size == m->size && d->start == m->start + shift && d->hi == m->hi + shift;
}

int ferry_tp_plan_make(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_pattern *pat,
                       const ferry_nodes *nodes, int cb_nodes, ferry_tp_memo *memo, ferry_tp_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    ferry_stripes st = ferry_stripes_of(f);
    int want = cb_nodes ? cb_nodes : f->hints.cb_nodes;
    int rc = ferry_aggs_choose_n(&f->hints, want, st.count, nodes, f->size, f->rank, &plan->aggs);
    if (rc != MPI_SUCCESS)
        return rc;
    f->cb_nodes_used = plan->aggs.n; /* what cb_nodes reports (get_info) */
    ferry_domains_make(&plan->d, pat->lo, pat->hi, plan->aggs.n, st, FERRY_TP_MIN_DOMAIN);
    int64_t b = f->hints.cb_buffer_size;
    if (b > MAX_ROUND)
        b = MAX_ROUND;
    if (plan->d.stripe && b % plan->d.stripe)
        b = b < plan->d.stripe ? plan->d.stripe : b / plan->d.stripe * plan->d.stripe;
    plan->round_bytes = b > 0 ? b : 1;
    plan->out = calloc((size_t)plan->d.n, sizeof *plan->out);
    int local = plan->out && cut(plan, x, runs) == 0 ? 0 : -1;
    if (f->hints.aggregator_placement == FERRY_PLACE_TOPOLOGY && ferry_machine_agreed(&f->sw)) {
        double *mine = calloc((size_t)plan->d.n, sizeof *mine);
        for (int a = 0; mine && plan->out && a < plan->d.n; a++)
            for (int64_t i = 0; i < plan->out[a].n; i++)
                mine[a] += (double)plan->out[a].p[i].len;
        if (!mine)
            local = -1;
        /* collective even when this rank failed: a zero row costs nothing */
        ferry_aggs_place_topology(f, nodes, &plan->d, mine, &plan->aggs);
        free(mine);
    }
    /* the exchange runs even after a local failure, so no rank waits forever;
     * every rank decides alike whether the last call's counts hold */
    int topo = f->hints.aggregator_placement == FERRY_PLACE_TOPOLOGY && ferry_machine_agreed(&f->sw);
    int repeat = memo && memo->valid && pat->repeats && !topo && same_domains(&plan->d, memo, pat->shift);
    int ex;
    double listed = 0;
    if (repeat) {
        ex = senders_copy(&plan->senders, memo->senders, memo->nsenders, pat->shift);
        plan->nsenders = plan->senders || !memo->nsenders ? memo->nsenders : 0;
    } else {
        double l0 = ferry_now();
        ex = exchange_lists(f, plan);
        listed = ferry_now() - l0;
    }
    if (memo) {
        ferry_tp_memo_free(memo);
        memo->listed = listed;
        /* a rank that cannot keep the lists fails this call, so no rank keeps any */
        if (senders_copy(&memo->senders, plan->senders, plan->nsenders, 0) < 0)
            ex = -1;
        memo->nsenders = memo->senders ? plan->nsenders : 0;
        memo->valid = !topo;
        memo->d = plan->d;
    }
    return local || ex ? ferry_err(MPI_ERR_NO_MEM, "out of memory planning a collective call") : MPI_SUCCESS;
}

void ferry_tp_plan_free(ferry_tp_plan *plan)
{
    if (plan->out)
        for (int a = 0; a < plan->d.n; a++) {
            free(plan->out[a].p);
            free(plan->out[a].maddr);
            free(plan->out[a].mlen);
        }
    free(plan->out);
    for (int s = 0; s < plan->nsenders; s++)
        free(plan->senders[s].pairs);
    free(plan->senders);
    ferry_aggs_free(&plan->aggs);
    memset(plan, 0, sizeof *plan);
}
