/*
 * Gathering direct I/O: one vector system call per contiguous file run.
 * A noncontiguous user buffer goes to the kernel in place wherever its pieces
 * are big; only pieces below FERRY_PACK_MIN are copied, into a staging buffer
 * that is one iovec entry. Copying every piece (pmodels/mpich#6985) or giving
 * every tiny piece its own entry (the driver batches 64 per system call) are
 * both slower than this mix.
 */
#include "core/errors.h"
#include "strategy/sieve.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define IOV_CAP 1024                    /* entries per batch handed to the driver */
#define STAGE_MAX ((int64_t)1 << 20)    /* staging bytes per batch */
#define STAGED_CAP 65536                /* small pieces per batch */
#define RUN_MAX ((int64_t)1 << 30)      /* bound one run's share of a huge transfer */

void ferry_runs_init(ferry_runs *r, const ferry_view *v, int64_t pos, int64_t bytes)
{
    ferry_file_walk_init(&r->fw, v, pos, bytes);
    r->have = 0;
    r->off = r->len = 0;
}

int ferry_runs_peek(ferry_runs *r)
{
    if (!r->have)
        r->have = ferry_file_walk_next(&r->fw, RUN_MAX, &r->off, &r->len);
    return r->have;
}

void ferry_runs_consume(ferry_runs *r, int64_t n)
{
    r->off += n;
    r->len -= n;
    if (r->len <= 0)
        r->have = 0;
}

typedef struct staged {
    char *addr;
    int64_t len;
    int64_t at; /* position in the batch's byte stream */
} staged;

typedef struct gather_bufs {
    struct iovec iov[IOV_CAP];
    char *stage;
    int64_t stage_cap;
    int64_t stage_want; /* staging is sized to the transfer, up to STAGE_MAX */
    staged *st;
    int64_t st_cap;
} gather_bufs;

static int grow_staged(gather_bufs *b, int64_t need)
{
    if (need <= b->st_cap)
        return 1;
    int64_t cap = b->st_cap ? b->st_cap * 2 : 256;
    staged *n = realloc(b->st, (size_t)cap * sizeof *n);
    if (!n)
        return 0;
    b->st = n;
    b->st_cap = cap;
    return 1;
}

static int run_batches(ferry_file *f, gather_bufs *b, ferry_mem_walk *mw, int is_write, int64_t off,
                       int64_t len, int64_t *got)
{
    char *caddr = NULL;
    int64_t clen = 0; /* a memory piece taken from the walk but not yet placed */
    ferry_phase phase = is_write ? FERRY_PHASE_WRITE : FERRY_PHASE_READ;
    while (len > 0) {
        int n = 0, stage_entry = -1; /* iov index of the staging entry being extended */
        int64_t used = 0, call = 0, nst = 0;
        while (call < len) {
            if (!clen && !ferry_mem_walk_next(mw, len - call, &caddr, &clen))
                break;
            if (clen >= FERRY_PACK_MIN) {
                if (n == IOV_CAP)
                    break;
                b->iov[n].iov_base = caddr;
                b->iov[n++].iov_len = (size_t)clen;
                call += clen;
                clen = 0;
                continue;
            }
            if (!b->stage) {
                b->stage_cap = b->stage_want < STAGE_MAX ? b->stage_want : STAGE_MAX;
                b->stage = malloc((size_t)b->stage_cap);
                if (!b->stage)
                    return ferry_err(MPI_ERR_NO_MEM, "out of memory for a staging buffer");
            }
            if (used + clen > b->stage_cap || nst == STAGED_CAP)
                break;
            int tail = stage_entry >= 0 && stage_entry == n - 1;
            if (!tail && n == IOV_CAP)
                break;
            if (is_write) {
                memcpy(b->stage + used, caddr, (size_t)clen);
            } else {
                if (!grow_staged(b, nst + 1))
                    return ferry_err(MPI_ERR_NO_MEM, "out of memory for a staging list");
                b->st[nst++] = (staged){caddr, clen, call};
            }
            if (tail) {
                b->iov[n - 1].iov_len += (size_t)clen;
            } else {
                stage_entry = n;
                b->iov[n].iov_base = b->stage + used;
                b->iov[n++].iov_len = (size_t)clen;
            }
            used += clen;
            call += clen;
            clen = 0;
        }
        if (call == 0)
            break; /* the memory side ran out: nothing more to move */
        double t0 = ferry_now();
        int64_t r = is_write ? f->fd.drv->pwritev(&f->fd, b->iov, n, off) : f->fd.drv->preadv(&f->fd, b->iov, n, off);
        ferry_stats_phase(&f->stats, phase, t0);
        if (r < 0)
            return ferry_err_errno((int)-r, f->filename);
        if (is_write) {
            f->stats.sys_writes++;
            f->stats.sys_write_bytes += r;
        } else {
            f->stats.sys_reads++;
            f->stats.sys_read_bytes += r;
            int64_t sat = 0;
            for (int64_t i = 0; i < nst; i++) {
                int64_t k = r - b->st[i].at;
                if (k <= 0)
                    break;
                if (k > b->st[i].len)
                    k = b->st[i].len;
                memcpy(b->st[i].addr, b->stage + sat, (size_t)k);
                sat += b->st[i].len;
            }
        }
        *got += r;
        off += r;
        len -= r;
        if (r < call)
            break; /* end of file */
    }
    return MPI_SUCCESS;
}

int ferry_gather_run(ferry_file *f, ferry_mem_walk *mw, int is_write, int64_t off, int64_t len,
                     int64_t *got)
{
    *got = 0;
    gather_bufs *b = calloc(1, sizeof *b);
    if (!b)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for an I/O vector");
    b->stage_want = len;
    int code = run_batches(f, b, mw, is_write, off, len, got);
    free(b->stage);
    free(b->st);
    free(b);
    return code;
}

int ferry_strategy_gather(ferry_file *f, const ferry_xfer *x, int64_t *done)
{
    *done = 0;
    gather_bufs *b = calloc(1, sizeof *b);
    if (!b)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for an I/O vector");
    b->stage_want = x->bytes;
    ferry_file_walk fw;
    ferry_mem_walk mw;
    ferry_file_walk_init(&fw, &f->view, x->pos, x->bytes);
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    int64_t foff, flen, prev_end = -1;
    int code = MPI_SUCCESS;
    while (ferry_file_walk_next(&fw, RUN_MAX, &foff, &flen)) {
        if (prev_end >= 0 && foff > prev_end) {
            *(x->is_write ? &f->stats.write_gaps : &f->stats.read_gaps) += 1;
            *(x->is_write ? &f->stats.write_gap_bytes : &f->stats.read_gap_bytes) += foff - prev_end;
        }
        prev_end = foff + flen;
        int64_t got = 0;
        code = run_batches(f, b, &mw, x->is_write, foff, flen, &got);
        *done += got;
        if (code != MPI_SUCCESS || got < flen)
            break;
    }
    free(b->stage);
    free(b->st);
    free(b);
    return code;
}
