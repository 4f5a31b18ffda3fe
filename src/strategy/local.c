#include "strategy/local.h"
#include "strategy/auto.h"
#include "strategy/coll_call.h"
#include "core/errors.h"
#include "core/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define MIN_SEG ((int64_t)1 << 20)

typedef struct lpiece {
    int64_t off, len, src, pos; /* file range, node rank, position in its segment */
} lpiece;

/* Node windows are shared by every file whose ranks have the same node
 * communicator (one per group of ranks, see nodes.c) and segment size:
 * calls never overlap, and a window per file would cost the MPI library a
 * communicator each (MPICH has 2048) and the node its own shared memory.
 * Every rank of a node takes and drops references in the same collective
 * order, so the window is freed together. */
typedef struct win_entry {
    MPI_Comm comm;
    int64_t seg;
    MPI_Win win;
    char **base;
    int refs;
    struct win_entry *next;
} win_entry;
static win_entry *wins;
static pthread_mutex_t wins_lock = PTHREAD_MUTEX_INITIALIZER;

void ferry_local_win_free(ferry_local_win *w)
{
    if (!w->base)
        return;
    pthread_mutex_lock(&wins_lock);
    win_entry **pe = &wins;
    while (*pe && (*pe)->win != w->win)
        pe = &(*pe)->next;
    win_entry *e = *pe;
    if (e && --e->refs == 0)
        *pe = e->next;
    else
        e = NULL;
    pthread_mutex_unlock(&wins_lock);
    if (e) {
        MPI_Win_unlock_all(e->win);
        MPI_Win_free(&e->win);
        free(e->base);
        free(e);
    }
    w->base = NULL;
}

static int win_ensure(ferry_file *f, const ferry_nodes *nodes, ferry_local_win *w)
{
    int64_t seg = f->hints.cb_buffer_size / nodes->node_size;
    if (seg < MIN_SEG)
        seg = MIN_SEG;
    if (w->base && w->seg == seg)
        return MPI_SUCCESS;
    ferry_local_win_free(w);
    pthread_mutex_lock(&wins_lock);
    win_entry *e = wins;
    while (e && !(e->comm == nodes->node_comm && e->seg == seg))
        e = e->next;
    if (e)
        e->refs++;
    pthread_mutex_unlock(&wins_lock);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (e)
            e->base = malloc((size_t)nodes->node_size * sizeof *e->base);
        char *mine = NULL;
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        /* a failure comes back (the node communicator inherits the
         * program's fatal handler) and is agreed on the node: a window
         * some node ranks got cannot be freed, and is left alone */
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(nodes->node_comm, &eh);
        MPI_Comm_set_errhandler(nodes->node_comm, MPI_ERRORS_RETURN);
        MPI_Win tmp = MPI_WIN_NULL;
        int rc = MPI_Win_allocate_shared((MPI_Aint)seg, 1, info, nodes->node_comm, &mine, &tmp);
        MPI_Comm_set_errhandler(nodes->node_comm, eh);
        MPI_Errhandler_free(&eh);
        MPI_Info_free(&info);
        int ok[2] = {rc == MPI_SUCCESS, e && e->base}, all[2];
        MPI_Allreduce(ok, all, 2, MPI_INT, MPI_MIN, nodes->node_comm);
        if (!all[0] || !all[1]) {
            if (all[0])
                MPI_Win_free(&tmp);
            if (e)
                free(e->base);
            free(e);
            return ferry_err(MPI_ERR_NO_MEM, "cannot allocate node-shared memory for local aggregation");
        }
        e->win = tmp;
        for (int i = 0; i < nodes->node_size; i++) {
            MPI_Aint size;
            int disp;
            MPI_Win_shared_query(e->win, i, &size, &disp, &e->base[i]);
        }
        MPI_Win_lock_all(MPI_MODE_NOCHECK, e->win);
        e->comm = nodes->node_comm;
        e->seg = seg;
        e->refs = 1;
        pthread_mutex_lock(&wins_lock);
        e->next = wins;
        wins = e;
        pthread_mutex_unlock(&wins_lock);
    }
    w->win = e->win;
    w->base = e->base;
    w->seg = seg;
    w->agreed = 0;
    return MPI_SUCCESS;
}

int ferry_local_usable(ferry_file *f, const ferry_nodes *nodes, ferry_local_win *w)
{
    int64_t seg = f->hints.cb_buffer_size / nodes->node_size;
    if (seg < MIN_SEG)
        seg = MIN_SEG;
    if (w && w->base && w->seg == seg && w->agreed)
        return 1;
    int ok = w && win_ensure(f, nodes, w) == MPI_SUCCESS, all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (w)
        w->agreed = all;
    return all;
}

static int by_off(const void *a, const void *b)
{
    const lpiece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* This round's slice of my stream: file pieces and (for writes) the data
 * copied into my segment. */
typedef struct cursor {
    const ferry_runs *runs;
    int64_t run, within;      /* position in the runs */
    ferry_mem_walk mw;
    char *maddr;
    int64_t mleft;
} cursor;

static int64_t take_slice(cursor *c, int64_t limit, lpiece *out, int64_t *nout, int64_t cap, int me,
                          char *seg, int copy_in)
{
    int64_t pos = 0;
    *nout = 0;
    while (pos < limit && c->run < c->runs->n && *nout < cap) {
        const ferry_run *r = &c->runs->v[c->run];
        int64_t len = r->len - c->within;
        if (len > limit - pos)
            len = limit - pos;
        out[(*nout)++] = (lpiece){r->off + c->within, len, me, pos};
        if (copy_in)
            for (int64_t need = len, at = pos; need > 0;) {
                if (c->mleft == 0)
                    ferry_mem_walk_next(&c->mw, INT64_MAX, &c->maddr, &c->mleft);
                int64_t t = c->mleft < need ? c->mleft : need;
                memcpy(seg + at, c->maddr, (size_t)t);
                c->maddr += t;
                c->mleft -= t;
                at += t;
                need -= t;
            }
        pos += len;
        c->within += len;
        if (c->within == r->len) {
            c->run++;
            c->within = 0;
        }
    }
    return pos;
}

/* Copies my slice back from my segment to user memory (reads). */
static void copy_out(cursor *c, const char *seg, int64_t bytes)
{
    for (int64_t at = 0; at < bytes;) {
        if (c->mleft == 0 && !ferry_mem_walk_next(&c->mw, INT64_MAX, &c->maddr, &c->mleft))
            return;
        int64_t t = c->mleft < bytes - at ? c->mleft : bytes - at;
        memcpy(c->maddr, seg + at, (size_t)t);
        c->maddr += t;
        c->mleft -= t;
        at += t;
    }
}

/* An aggregator moves its share of the node's sorted pieces: one vector
 * call per contiguous file range. */
static int move_share(ferry_file *f, const lpiece *p, int64_t n, ferry_local_win *w, int is_write)
{
    struct iovec *iov = malloc((size_t)(n ? n : 1) * sizeof *iov);
    if (!iov)
        return -12;
    int err = 0;
    for (int64_t i = 0; i < n && !err;) {
        int64_t j = i, end = p[i].off;
        int k = 0;
        while (j < n && p[j].off == end && k < 1024) {
            iov[k].iov_base = w->base[p[j].src] + p[j].pos;
            iov[k].iov_len = (size_t)p[j].len;
            end += p[j].len;
            k++;
            j++;
        }
        double t0 = ferry_now();
        int64_t got = is_write ? f->fd.drv->pwritev(&f->fd, iov, k, p[i].off)
                               : f->fd.drv->preadv(&f->fd, iov, k, p[i].off);
        ferry_stats_phase(&f->stats, is_write ? FERRY_PHASE_WRITE : FERRY_PHASE_READ, t0);
        if (got < 0)
            err = (int)got;
        else if (is_write) {
            f->stats.sys_writes++;
            f->stats.sys_write_bytes += got;
        } else {
            f->stats.sys_reads++;
            f->stats.sys_read_bytes += got;
        }
        i = j;
    }
    free(iov);
    return err;
}

/* Bytes of my stream that lie before end of file (a read stops there). */
static int64_t valid_prefix(const ferry_runs *runs, int64_t eof)
{
    int64_t v = 0;
    for (int64_t i = 0; i < runs->n; i++) {
        int64_t in = eof - runs->v[i].off;
        if (in <= 0)
            break;
        v += in < runs->v[i].len ? in : runs->v[i].len;
        if (in < runs->v[i].len)
            break;
    }
    return v;
}

int ferry_local(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_nodes *nodes,
                ferry_local_win *w, int64_t *done)
{
    *done = 0;
    double t0 = ferry_now();
    int code = win_ensure(f, nodes, w);
    if (code != MPI_SUCCESS)
        return code;
    MPI_Comm nc = nodes->node_comm;
    int me = nodes->node_rank, ns = nodes->node_size;
    int k = f->hints.local_aggregators;
    if (k > ns)
        k = ns;
    if (k < 1)
        k = 1;
    int64_t myrounds = (runs->bytes + w->seg - 1) / w->seg, rounds = 0;
    MPI_Allreduce(&myrounds, &rounds, 1, MPI_INT64_T, MPI_MAX, nc);
    /* a slice holds at most one piece per run it touches */
    int64_t cap = runs->n + 1;
    lpiece *mine = malloc((size_t)cap * sizeof *mine);
    int *counts = me == 0 ? malloc((size_t)ns * sizeof *counts) : NULL;
    int *displs = me == 0 ? malloc((size_t)ns * sizeof *displs) : NULL;
    int err = !mine || (me == 0 && (!counts || !displs)) ? -12 : 0;
    cursor c = {.runs = runs};
    ferry_mem_walk_init(&c.mw, x->buf, x->mem, x->memcount, 0);
    cursor back = c;
    int leader = f->rank; /* the node's first rank: where the trace says node data goes */
    for (int r = 0; r < f->size; r++)
        if (nodes->node_of[r] == nodes->my_node) {
            leader = r;
            break;
        }
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    for (int j = 0; j < k; j++)
        if (j * ns / k == me)
            f->stats.aggregator = 1;
    for (int64_t t = 0; t < rounds; t++) {
        double t1 = ferry_now();
        int64_t n = 0;
        int64_t bytes = mine ? take_slice(&c, w->seg, mine, &n, cap, me, w->base[me], x->is_write) : 0;
        if (!x->is_write)
            memset(w->base[me], 0, (size_t)bytes); /* past end of file reads as zero, never as stale data */
        if (leader != f->rank)
            ferry_trace_send(f->comm, leader, bytes);
        MPI_Win_sync(w->win);
        int nint = (int)(n * 4), total = 0;
        MPI_Gather(&nint, 1, MPI_INT, counts, 1, MPI_INT, 0, nc);
        lpiece *all = NULL;
        if (me == 0 && counts && displs) {
            for (int i = 0; i < ns; i++) {
                displs[i] = total;
                total += counts[i];
            }
            all = malloc((size_t)(total ? total : 1) * sizeof(int64_t));
            if (!all)
                err = -12;
        }
        MPI_Gatherv(mine, nint, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, nc);
        /* the leader sorts the node's pieces and hands each aggregator a share
         * of about equal bytes, cut at piece boundaries */
        int64_t np = total / 4;
        int share[2] = {0, 0};
        int *sc = NULL, *sd = NULL;
        if (me == 0 && all) {
            qsort(all, (size_t)np, sizeof *all, by_off);
            int64_t sum = 0;
            for (int64_t i = 0; i < np; i++)
                sum += all[i].len;
            sc = calloc((size_t)ns, sizeof *sc);
            sd = calloc((size_t)ns, sizeof *sd);
            int64_t acc = 0, i = 0;
            for (int j = 0; j < k && sc && sd; j++) {
                int agg = j * ns / k;
                int64_t start = i;
                int64_t target = sum * (j + 1) / k;
                while (i < np && (acc < target || j == k - 1)) {
                    acc += all[i].len;
                    i++;
                }
                sd[agg] = (int)(start * 4);
                sc[agg] = (int)((i - start) * 4);
            }
        }
        MPI_Scatter(sc, 1, MPI_INT, &share[0], 1, MPI_INT, 0, nc);
        lpiece *part = share[0] ? malloc((size_t)share[0] * sizeof(int64_t)) : NULL;
        if (share[0] && !part)
            err = -12;
        MPI_Scatterv(all, sc, sd, MPI_INT64_T, part, part ? share[0] : 0, MPI_INT64_T, 0, nc);
        ferry_stats_phase(&f->stats, FERRY_PHASE_EXCHANGE, t1);
        MPI_Win_sync(w->win);
        if (part && !err) {
            int rc = move_share(f, part, share[0] / 4, w, x->is_write);
            if (rc)
                err = rc;
        }
        MPI_Win_sync(w->win);
        MPI_Barrier(nc);
        MPI_Win_sync(w->win);
        if (!x->is_write)
            copy_out(&back, w->base[me], bytes);
        free(part);
        free(all);
        free(sc);
        free(sd);
    }
    free(mine);
    free(counts);
    free(displs);
    if (err)
        return ferry_err_errno(-err, f->filename);
    if (x->is_write) {
        *done = runs->bytes;
    } else {
        int64_t eof = 0;
        f->fd.drv->size(&f->fd, &eof);
        *done = valid_prefix(runs, eof);
    }
    return MPI_SUCCESS;
}

/* ---- the descriptor's code (catalog.c) ---- */

/* Where local cannot run this call, two-phase (its descriptor's fallback)
 * does. Every rank answers alike: the pattern and the window's fate are
 * agreed. */
static int usable(ferry_coll_call *c, char *buf, size_t cap, const char **why)
{
    ferry_file *f = c->f;
    /* only a hint asks for it there: auto's rules and learning do not (BT-IO
     * on the testbed: local 1.1 MiB/s, two-phase 79) */
    if (ferry_auto_local_collapses(f, c->pat, c->nodes, buf, cap)) {
        *why = buf;
        return 0;
    }
    if (c->code == MPI_SUCCESS && c->nodes) {
        if (!*c->state)
            *c->state = calloc(1, sizeof(ferry_local_win));
        double w0 = ferry_now();
        int ok = ferry_local_usable(f, c->nodes, *c->state);
        /* the node window is made once per open: what learning compares
         * is what the option costs the calls still to come, so the clock
         * starts after it (a trial of local was charged it, and lost to
         * options it beats on every later call) */
        c->once += ferry_now() - w0;
        if (!ok) {
            /* every rank learnt it in the same reduction */
            *why = "no node-shared memory window (the MPI library's one-sided component refused): two-phase";
            return 0;
        }
    }
    if (f->atomic && c->x->is_write) {
        /* nodes write their aggregates independently, so overlapping
         * writes of two nodes could interleave; two-phase orders them */
        *why = "atomic mode: two-phase orders overlapping writes, local cannot";
        return 0;
    }
    return 1;
}

static int run(ferry_coll_call *c, int64_t *done)
{
    return ferry_local(c->f, c->x, c->runs, c->nodes, *c->state, done);
}

static void release(void *state)
{
    if (!state)
        return;
    ferry_local_win_free(state);
    free(state);
}

const struct ferry_strategy_code ferry_local_code = {
    .usable = usable,
    .run = run,
    .release = release,
};
