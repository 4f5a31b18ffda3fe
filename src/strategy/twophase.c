#include "strategy/twophase.h"
#include "strategy/coll_call.h"
#include "core/errors.h"
#include "core/wait.h"
#include "core/machine.h"
#include "core/trace.h"
#include "strategy/buffers.h"
#include "strategy/writer.h"

#include <stdlib.h>
#include <string.h>

#define TAG(round) (FERRY_TAG_DATA + ((round) % 4096))

/* ---- the sending (or, for reads, receiving) side: every rank ---- */

/* Posts one message per (aggregator, round) between user memory and the
 * aggregators, described by an hindexed type over absolute addresses. */
static int post_user_side(ferry_file *f, ferry_tp_plan *plan, int is_write, MPI_Request **reqs, int *nreq)
{
    int n = 0, cap = 16;
    MPI_Request *r = malloc((size_t)cap * sizeof *r);
    if (!r)
        return -1;
    for (int a = 0; a < plan->d.n; a++) {
        ferry_tp_out *o = &plan->out[a];
        for (int64_t i = 0; i < o->n;) {
            int64_t j = i + 1;
            while (j < o->n && o->p[j].round == o->p[i].round)
                j++;
            int64_t m0 = o->p[i].mem0, m1 = j < o->n ? o->p[j].mem0 : o->mn;
            MPI_Datatype t;
            MPI_Type_create_hindexed((int)(m1 - m0), o->mlen + m0, o->maddr + m0, MPI_BYTE, &t);
            MPI_Type_commit(&t);
            if (n == cap) {
                MPI_Request *nr = realloc(r, (size_t)cap * 2 * sizeof *nr);
                if (!nr) {
                    MPI_Type_free(&t);
                    free(r);
                    return -1;
                }
                r = nr;
                cap *= 2;
            }
            if (is_write) {
                int64_t bytes = 0;
                for (int64_t q = m0; q < m1; q++)
                    bytes += o->mlen[q];
                ferry_trace_send(f->comm, plan->aggs.ranks[a], bytes);
                MPI_Isend(MPI_BOTTOM, 1, t, plan->aggs.ranks[a], TAG(o->p[i].round), f->comm, &r[n++]);
            }
            else
                MPI_Irecv(MPI_BOTTOM, 1, t, plan->aggs.ranks[a], TAG(o->p[i].round), f->comm, &r[n++]);
            MPI_Type_free(&t); /* MPI keeps it alive until the request completes */
            i = j;
        }
    }
    *reqs = r;
    *nreq = n;
    return 0;
}

/* ---- the aggregator side ---- */

typedef struct span {
    int64_t q, len; /* buffer position and length */
} span;

static int by_q(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->q < y->q ? -1 : x->q > y->q;
}

typedef struct round_work {
    MPI_Datatype *types;   /* per sender with pieces in this round */
    int *src;
    int ntypes;
    int64_t *bytes;        /* per sender: bytes of its pieces in this round */
    int64_t *first;        /* per sender: its first piece in this round */
    span *spans;
    int64_t nspans, cap;
    span *uni;             /* union of the spans, sorted */
    int64_t nuni;
} round_work;

/* Per-sender arrays and the request array for the aggregator's rounds. */
static int round_init(round_work *w, int nsenders, MPI_Request **req)
{
    memset(w, 0, sizeof *w);
    size_t n = (size_t)(nsenders ? nsenders : 1);
    w->types = malloc(n * sizeof *w->types);
    w->src = malloc(n * sizeof *w->src);
    w->bytes = malloc(n * sizeof *w->bytes);
    w->first = malloc(n * sizeof *w->first);
    *req = malloc(n * sizeof **req);
    return w->types && w->src && w->bytes && w->first && *req ? 0 : -12;
}

static void round_free(round_work *w, MPI_Request *req)
{
    free(req);
    free(w->types);
    free(w->src);
    free(w->bytes);
    free(w->first);
    free(w->spans);
    free(w->uni);
}

static void round_reset(round_work *w)
{
    for (int i = 0; i < w->ntypes; i++)
        MPI_Type_free(&w->types[i]);
    w->ntypes = 0;
    w->nspans = 0;
    w->nuni = 0;
}

/* The pieces of round r from every sender: receive types and the union. */
static int round_collect(ferry_tp_plan *plan, int r, round_work *w)
{
    int64_t base = (int64_t)r * plan->round_bytes;
    for (int s = 0; s < plan->nsenders; s++) {
        ferry_tp_sender *snd = &plan->senders[s];
        int64_t i = snd->cursor;
        int64_t k = 0;
        while (i + k < snd->n && ferry_tp_round_of(plan, snd->pairs[2 * (i + k)]) == r)
            k++;
        if (!k)
            continue;
        int *lens = malloc((size_t)k * sizeof *lens);
        MPI_Aint *disp = malloc((size_t)k * sizeof *disp);
        if (w->nspans + k > w->cap) {
            int64_t cap = (w->nspans + k) * 2;
            span *ns = realloc(w->spans, (size_t)cap * sizeof *ns);
            if (ns) {
                w->spans = ns;
                w->cap = cap;
            }
        }
        if (!lens || !disp || w->nspans + k > w->cap) {
            free(lens);
            free(disp);
            return -1;
        }
        int64_t bytes = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t off = snd->pairs[2 * (i + j)], len = snd->pairs[2 * (i + j) + 1];
            int64_t q = ferry_domains_local(&plan->d, off) - base;
            lens[j] = (int)len;
            disp[j] = (MPI_Aint)q;
            w->spans[w->nspans++] = (span){q, len};
            bytes += len;
        }
        MPI_Type_create_hindexed((int)k, lens, disp, MPI_BYTE, &w->types[w->ntypes]);
        MPI_Type_commit(&w->types[w->ntypes]);
        w->src[w->ntypes] = snd->rank;
        w->bytes[w->ntypes] = bytes;
        w->first[w->ntypes] = i;
        w->ntypes++;
        snd->cursor = i + k;
        free(lens);
        free(disp);
    }
    qsort(w->spans, (size_t)w->nspans, sizeof *w->spans, by_q);
    span *u = realloc(w->uni, (size_t)(w->nspans ? w->nspans : 1) * sizeof *u);
    if (!u)
        return -1;
    w->uni = u;
    w->nuni = 0;
    for (int64_t i = 0; i < w->nspans; i++) {
        if (w->nuni && u[w->nuni - 1].q + u[w->nuni - 1].len >= w->spans[i].q) {
            int64_t end = w->spans[i].q + w->spans[i].len;
            if (end > u[w->nuni - 1].q + u[w->nuni - 1].len)
                u[w->nuni - 1].len = end - u[w->nuni - 1].q;
        } else {
            u[w->nuni++] = w->spans[i];
        }
    }
    return 0;
}

/* The smallest round still to do, or -1. */
static int next_round(const ferry_tp_plan *plan)
{
    int r = -1;
    for (int s = 0; s < plan->nsenders; s++) {
        const ferry_tp_sender *snd = &plan->senders[s];
        if (snd->cursor < snd->n) {
            int rr = ferry_tp_round_of(plan, snd->pairs[2 * snd->cursor]);
            if (r < 0 || rr < r)
                r = rr;
        }
    }
    return r;
}

/* Buffer range [q, q+len) of round r as file runs (several when stripes
 * cycle between aggregators). */
static int to_file_runs(const ferry_tp_plan *plan, int r, char *buf, int64_t q, int64_t len, ferry_wrun **runs,
                        int64_t *n, int64_t *cap)
{
    int me = plan->aggs.me;
    int64_t local = (int64_t)r * plan->round_bytes + q;
    while (len > 0) {
        int64_t end_local;
        int64_t off = ferry_domains_file(&plan->d, me, local, &end_local);
        int64_t take = end_local - local < len ? end_local - local : len;
        if (*n == *cap) {
            int64_t c = *cap ? *cap * 2 : 16;
            ferry_wrun *nr = realloc(*runs, (size_t)c * sizeof *nr);
            if (!nr)
                return -1;
            *runs = nr;
            *cap = c;
        }
        (*runs)[(*n)++] = (ferry_wrun){buf + q, take, off};
        q += take;
        local += take;
        len -= take;
    }
    return 0;
}

/* Dense rounds move as one extent; sparse ones run by run. A write extent
 * with holes needs read-modify-write, so it is taken only when the holes are
 * small and the runs many. */
static int round_is_dense(const round_work *w)
{
    if (w->nuni <= 1)
        return 1;
    int64_t covered = 0;
    for (int64_t i = 0; i < w->nuni; i++)
        covered += w->uni[i].len;
    int64_t extent = w->uni[w->nuni - 1].q + w->uni[w->nuni - 1].len - w->uni[0].q;
    return w->nuni > 64 && covered * 2 >= extent && covered / w->nuni < 65536;
}

/* Reads [q, q+len) of round r into the buffer; bytes past end of file read as zero. */
static int read_span(ferry_file *f, const ferry_tp_plan *plan, int r, char *buf, int64_t q, int64_t len)
{
    ferry_wrun *runs = NULL;
    int64_t n = 0, cap = 0;
    if (to_file_runs(plan, r, buf, q, len, &runs, &n, &cap) < 0)
        return -12;
    int rc = 0;
    for (int64_t i = 0; i < n && !rc; i++) {
        double t0 = ferry_now();
        int64_t got = f->fd.drv->pread(&f->fd, (char *)runs[i].buf, runs[i].len, runs[i].off);
        ferry_stats_phase(&f->stats, FERRY_PHASE_READ, t0);
        if (got < 0) {
            rc = (int)got;
            break;
        }
        f->stats.sys_reads++;
        f->stats.sys_read_bytes += got;
        if (got < runs[i].len)
            memset((char *)runs[i].buf + got, 0, (size_t)(runs[i].len - got));
    }
    free(runs);
    return rc;
}

/* Moves past a sender's pieces of round r; 1 if it had any. */
static int skip_round(const ferry_tp_plan *plan, ferry_tp_sender *snd, int r)
{
    int hit = 0;
    while (snd->cursor < snd->n && ferry_tp_round_of(plan, snd->pairs[2 * snd->cursor]) == r) {
        snd->cursor++;
        hit = 1;
    }
    return hit;
}

/* Takes one message off the wire into scratch memory and drops it. */
static void drain(ferry_file *f, int src, int tag)
{
    MPI_Status st;
    int n = 0;
    MPI_Probe(src, tag, f->comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    char *tmp = malloc((size_t)(n ? n : 1));
    if (!tmp)
        MPI_Abort(f->comm, MPI_ERR_NO_MEM); /* cannot receive, cannot leave the sender hanging */
    MPI_Recv(tmp, n, MPI_BYTE, src, tag, f->comm, MPI_STATUS_IGNORE);
    free(tmp);
}

/* 1 when two senders' pieces of this round cover a byte in common. */
static int round_overlaps(const round_work *w)
{
    int64_t sum = 0, covered = 0;
    for (int64_t i = 0; i < w->nspans; i++)
        sum += w->spans[i].len;
    for (int64_t i = 0; i < w->nuni; i++)
        covered += w->uni[i].len;
    return sum > covered;
}

/* Receives a round's messages into the buffer. Concurrent receives into
 * overlapping memory are erroneous in MPI (whichever lands last wins, byte
 * range by byte range), so when senders overlap they are received one after
 * the other in increasing rank order: every byte then holds the data of the
 * highest rank that wrote it, on every aggregator and in every round, which
 * is the file the ranks' writes give in rank order (what atomic mode asks,
 * and what ROMIO's atomic two-phase gives). */
static void receive_round(ferry_file *f, const round_work *w, char *buf, int r, MPI_Request *req)
{
    if (!round_overlaps(w)) {
        for (int i = 0; i < w->ntypes; i++)
            MPI_Irecv(buf, 1, w->types[i], w->src[i], TAG(r), f->comm, &req[i]);
        ferry_waitall(w->ntypes, req);
        return;
    }
    int last = -1;
    for (int k = 0; k < w->ntypes; k++) {
        int next = -1;
        for (int i = 0; i < w->ntypes; i++)
            if (w->src[i] > last && (next < 0 || w->src[i] < w->src[next]))
                next = i;
        MPI_Irecv(buf, 1, w->types[next], w->src[next], TAG(r), f->comm, &req[0]);
        ferry_waitall(1, req);
        last = w->src[next];
    }
}

static int aggregate_write(ferry_file *f, ferry_tp_plan *plan, int64_t B, double *fresh)
{
    char *bufs[2] = {ferry_buffer_get(B, fresh), ferry_buffer_get(B, fresh)};
    round_work w;
    MPI_Request *req;
    int err = round_init(&w, plan->nsenders, &req);
    if (!bufs[0] || !bufs[1])
        err = -12;
    ferry_writer *writer = NULL;
    ferry_wrun *runs = NULL;
    int64_t nruns = 0, cap = 0;
    f->stats.aggregator = 1;
    int k = 0;
    for (int r; (r = next_round(plan)) >= 0; k++) {
        char *buf = bufs[k & 1];
        if (!err && round_collect(plan, r, &w) < 0)
            err = -12;
        if (err) {
            /* drain: the senders must not wait forever for a failed aggregator */
            for (int s = 0; s < plan->nsenders; s++)
                if (skip_round(plan, &plan->senders[s], r))
                    drain(f, plan->senders[s].rank, TAG(r));
            round_reset(&w);
            continue;
        }
        /* a dense window with holes is read back and rewritten whole: not where
         * the file system makes read-modify-write across processes unsafe */
        int dense = round_is_dense(&w) && (w.nuni <= 1 || f->fs.rmw_safe);
        int holes = w.nuni > 1;
        if (dense && holes) {
            int64_t q0 = w.uni[0].q, q1 = w.uni[w.nuni - 1].q + w.uni[w.nuni - 1].len;
            int rc = read_span(f, plan, r, buf, q0, q1 - q0);
            f->stats.rmw_count++;
            f->stats.rmw_bytes += q1 - q0;
            if (rc)
                err = rc;
        }
        double t0 = ferry_now();
        receive_round(f, &w, buf, r, req);
        ferry_stats_phase(&f->stats, FERRY_PHASE_EXCHANGE, t0);
        nruns = 0;
        if (dense) {
            int64_t q0 = w.uni[0].q, q1 = w.uni[w.nuni - 1].q + w.uni[w.nuni - 1].len;
            if (to_file_runs(plan, r, buf, q0, q1 - q0, &runs, &nruns, &cap) < 0)
                err = -12;
        } else {
            for (int64_t i = 0; i < w.nuni && !err; i++)
                if (to_file_runs(plan, r, buf, w.uni[i].q, w.uni[i].len, &runs, &nruns, &cap) < 0)
                    err = -12;
        }
        if (!err) {
            if (!writer && next_round(plan) >= 0)
                writer = ferry_writer_start(f);
            if (writer) {
                int rc = ferry_writer_submit(writer, runs, nruns);
                if (rc)
                    err = rc;
            } else {
                double t1 = ferry_now();
                int rc = ferry_write_runs(f, runs, nruns, &f->stats.sys_writes, &f->stats.sys_write_bytes);
                ferry_stats_phase(&f->stats, FERRY_PHASE_WRITE, t1);
                if (rc)
                    err = rc;
            }
        }
        round_reset(&w);
    }
    if (writer) {
        int rc = ferry_writer_stop(writer);
        if (rc && !err)
            err = rc;
    }
    free(runs);
    round_free(&w, req);
    ferry_buffer_put(bufs[0]);
    ferry_buffer_put(bufs[1]);
    return err;
}

static int aggregate_read(ferry_file *f, ferry_tp_plan *plan, int64_t B, double *fresh)
{
    char *buf = ferry_buffer_get(B, fresh);
    round_work w;
    MPI_Request *req;
    int err = round_init(&w, plan->nsenders, &req);
    if (!buf)
        err = -12;
    int64_t eof = 0;
    if (!err)
        err = f->fd.drv->size(&f->fd, &eof);
    f->stats.aggregator = 1;
    for (int r; (r = next_round(plan)) >= 0;) {
        if (!err && round_collect(plan, r, &w) < 0)
            err = -12;
        if (!err) {
            if (round_is_dense(&w)) {
                int64_t q0 = w.uni[0].q, q1 = w.uni[w.nuni - 1].q + w.uni[w.nuni - 1].len;
                err = read_span(f, plan, r, buf, q0, q1 - q0);
            } else {
                for (int64_t i = 0; i < w.nuni && !err; i++)
                    err = read_span(f, plan, r, buf, w.uni[i].q, w.uni[i].len);
            }
        }
        double t0 = ferry_now();
        if (err) {
            /* failed: every requester still gets a (short, empty) message,
             * those this round collected (their cursors moved past it) and
             * those it did not reach */
            int n = 0;
            for (int i = 0; i < w.ntypes && req; i++)
                MPI_Isend(NULL, 0, MPI_BYTE, w.src[i], TAG(r), f->comm, &req[n++]);
            for (int s = 0; s < plan->nsenders; s++)
                if (skip_round(plan, &plan->senders[s], r) && req)
                    MPI_Isend(NULL, 0, MPI_BYTE, plan->senders[s].rank, TAG(r), f->comm, &req[n++]);
            ferry_waitall(n, req);
            round_reset(&w);
            continue;
        }
        /* Each requester gets only the bytes before end of file: a shorter
         * message than its receive type, which its status then reports. */
        int64_t base = (int64_t)r * plan->round_bytes;
        for (int i = 0; i < w.ntypes; i++) {
            const ferry_tp_sender *snd = NULL;
            for (int s = 0; s < plan->nsenders; s++)
                if (plan->senders[s].rank == w.src[i])
                    snd = &plan->senders[s];
            int64_t valid = 0;
            for (int64_t j = w.first[i]; j < snd->cursor; j++) {
                int64_t off = snd->pairs[2 * j], len = snd->pairs[2 * j + 1];
                int64_t v = eof - off;
                if (v <= 0)
                    break;
                valid += v < len ? v : len;
                if (v < len)
                    break;
            }
            ferry_trace_send(f->comm, w.src[i], valid);
            if (valid == w.bytes[i]) {
                MPI_Isend(buf, 1, w.types[i], w.src[i], TAG(r), f->comm, &req[i]);
                continue;
            }
            /* truncated: a type over the valid prefix only */
            int64_t k = 0, acc = 0;
            int *lens = malloc((size_t)(snd->cursor - w.first[i] + 1) * sizeof *lens);
            MPI_Aint *disp = malloc((size_t)(snd->cursor - w.first[i] + 1) * sizeof *disp);
            for (int64_t j = w.first[i]; j < snd->cursor && acc < valid && lens && disp; j++, k++) {
                int64_t off = snd->pairs[2 * j], len = snd->pairs[2 * j + 1];
                int64_t take = valid - acc < len ? valid - acc : len;
                lens[k] = (int)take;
                disp[k] = (MPI_Aint)(ferry_domains_local(&plan->d, off) - base);
                acc += take;
            }
            MPI_Datatype t;
            MPI_Type_create_hindexed((int)k, lens ? lens : (int[]){0}, disp ? disp : (MPI_Aint[]){0}, MPI_BYTE, &t);
            MPI_Type_commit(&t);
            MPI_Isend(buf, 1, t, w.src[i], TAG(r), f->comm, &req[i]);
            MPI_Type_free(&t);
            free(lens);
            free(disp);
        }
        ferry_waitall(w.ntypes, req);
        ferry_stats_phase(&f->stats, FERRY_PHASE_EXCHANGE, t0);
        round_reset(&w);
    }
    round_free(&w, req);
    ferry_buffer_put(buf);
    return err;
}

int ferry_twophase(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_pattern *pat,
                   const ferry_nodes *nodes, int cb_nodes, ferry_tp_memo *memo, int64_t *done)
{
    *done = 0;
    ferry_tp_plan plan;
    double t0 = ferry_now();
    int code = ferry_tp_plan_make(f, x, runs, pat, nodes, cb_nodes, memo, &plan);
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    int topo = f->hints.aggregator_placement == FERRY_PLACE_TOPOLOGY && ferry_machine_agreed(&f->sw);
    ferry_aggs_display(f, &plan.aggs, nodes, &plan.d, topo ? "two-phase, topology placement" : "two-phase");
    MPI_Request *reqs = NULL;
    int nreq = 0;
    if (post_user_side(f, &plan, x->is_write, &reqs, &nreq) < 0 && code == MPI_SUCCESS)
        code = ferry_err(MPI_ERR_NO_MEM, "out of memory posting a collective exchange");
    int err = 0;
    double fresh = 0;
    /* a round's bytes lie within the aggregator's domain: a call smaller
     * than cb_buffer_size needs (and touches, when the kept buffer is made)
     * no more than its domain */
    int64_t cap = plan.round_bytes;
    if (!plan.d.stripe && plan.d.size > 0 && plan.d.size < cap)
        cap = plan.d.size;
    if (plan.nsenders > 0)
        err = x->is_write ? aggregate_write(f, &plan, cap, &fresh) : aggregate_read(f, &plan, cap, &fresh);
    if (memo)
        memo->fresh = fresh;
    double t1 = ferry_now();
    MPI_Status *sts = x->is_write ? NULL : malloc((size_t)(nreq ? nreq : 1) * sizeof *sts);
    if (sts)
        MPI_Waitall(nreq, reqs, sts);
    else
        ferry_waitall(nreq, reqs);
    ferry_stats_phase(&f->stats, FERRY_PHASE_EXCHANGE, t1);
    if (x->is_write) {
        *done = x->bytes;
    } else {
        for (int i = 0; i < nreq && sts; i++) {
            MPI_Count got = 0;
            MPI_Get_elements_x(&sts[i], MPI_BYTE, &got);
            *done += got;
        }
        free(sts);
    }
    free(reqs);
    ferry_tp_plan_free(&plan);
    if (code == MPI_SUCCESS && err)
        code = ferry_err_errno(-err, f->filename);
    return code;
}

/* ---- the descriptor's code (catalog.c) ---- */

/* What two-phase keeps on a file: the last call's agreement, per direction. */
typedef struct tp_state {
    ferry_tp_memo memo[2];
} tp_state;

static int run(ferry_coll_call *c, int64_t *done)
{
    if (!*c->state)
        *c->state = calloc(1, sizeof(tp_state));
    tp_state *s = *c->state;
    /* without room for the memo the call plans from scratch */
    ferry_tp_memo *memo = s ? &s->memo[c->x->is_write] : NULL;
    /* a call with an aggregator count of its own neither uses the memo nor
     * leaves it: its senders are for other aggregators */
    if (memo && c->cb_nodes)
        memo->valid = 0;
    int code = ferry_twophase(c->f, c->x, c->runs, c->pat, c->nodes, c->cb_nodes, memo, done);
    if (memo) {
        c->listed = memo->listed;
        c->fresh = memo->fresh;
        if (c->cb_nodes)
            memo->valid = 0;
    }
    return code;
}

/* The memo holds only while two-phase runs every call of its direction. */
static void settle(void *state, int is_write, int ran)
{
    tp_state *s = state;
    if (s && !ran)
        s->memo[is_write].valid = 0;
}

static void release(void *state)
{
    tp_state *s = state;
    if (!s)
        return;
    ferry_tp_memo_free(&s->memo[0]);
    ferry_tp_memo_free(&s->memo[1]);
    free(s);
}

/* Collective at open: the aggregators a call would choose, which cb_nodes
 * reports until a two-phase call chooses (ROMIO reports its choice from the
 * open on). */
static void open_aggs(ferry_file *f)
{
    ferry_nodes nodes;
    if (ferry_nodes_build(f->comm, f->dups, &nodes) != MPI_SUCCESS)
        return;
    ferry_aggs a;
    if (ferry_aggs_choose(&f->hints, ferry_stripes_of(f).count, &nodes, f->size, f->rank, &a) == MPI_SUCCESS) {
        f->cb_nodes_used = a.n;
        ferry_aggs_free(&a);
    }
    ferry_nodes_free(&nodes);
}

const struct ferry_strategy_code ferry_twophase_code = {
    .run = run,
    .settle = settle,
    .release = release,
    .open = open_aggs,
};
