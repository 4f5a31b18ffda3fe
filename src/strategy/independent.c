/*
 * The independent path: picks how one rank's call reaches the file (gathered
 * direct runs or data sieving), and takes the byte-range locks that keep
 * other ranks of the open from seeing or losing half of it.
 *
 * Automatic sieving rule: sieve when the access has holes and its mean run
 * stride (extent / runs, i.e. mean piece + mean gap) is below
 * ferry_ds_threshold. Sieving pays for the holes it reads and one memory copy
 * of the data; direct I/O pays one system call per run. With the threshold
 * taken as what the file system moves in one call's latency, sieving wins
 * exactly when gap + piece is below it. Writes also need a mean gap below
 * FERRY_SIEVE_MAX_HOLE, where their windows stop.
 */
#include "core/errors.h"
#include "strategy/forward.h"
#include "strategy/sieve.h"

#include <stdio.h>

/* Byte offset in the file of data byte p of the view's stream. */
static int64_t byte_of(const ferry_view *v, int64_t p)
{
    if (v->is_bytes)
        return v->disp + p;
    return v->disp + (p / v->ft->size) * v->ft->extent + ferry_flat_offset_of(v->ft, 0, p % v->ft->size);
}

/* First and one-past-last file byte the transfer touches. Inside one
 * instance a valid filetype only moves forward, so the first and last data
 * bytes bound it; instances whose data spill out of their extent can
 * interleave, and then the instances' true bounds are used. */
static void extent_of(const ferry_file *f, const ferry_xfer *x, int64_t *lo, int64_t *hi)
{
    const ferry_view *v = &f->view;
    int64_t last = x->pos + x->bytes - 1;
    *lo = byte_of(v, x->pos);
    *hi = byte_of(v, last) + 1;
    const ferry_flat *ft = v->ft;
    if (v->is_bytes || x->pos / ft->size == last / ft->size)
        return;
    if (ft->true_lb < ft->lb || ft->true_lb + ft->true_extent > ft->lb + ft->extent || ft->extent <= 0) {
        int64_t a = v->disp + (x->pos / ft->size) * ft->extent + ft->true_lb;
        int64_t b = v->disp + (last / ft->size) * ft->extent + ft->true_lb;
        int64_t l = a < b ? a : b, h = (a > b ? a : b) + ft->true_extent;
        if (l < *lo)
            *lo = l;
        if (h > *hi)
            *hi = h;
    }
}

/* Estimated contiguous file runs of the access: the filetype's pieces per
 * instance, pro rata. */
static int64_t runs_of(const ferry_file *f, const ferry_xfer *x)
{
    const ferry_flat *ft = f->view.ft;
    if (f->view.is_bytes || ft->size <= 0)
        return 1;
    double r = (double)x->bytes * (double)ft->nblocks / (double)ft->size;
    return r < 1 ? 1 : r > 9e18 ? INT64_MAX : (int64_t)(r + 0.999);
}

/* 1 to sieve; *why says why (for the statistics). Fixed reasons are
 * literals and only computed ones are formatted into buf: this runs on every
 * independent call, where a printf costs as much as ferry's whole path. */
static int choose_sieve(const ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi, const char **why,
                        char *buf, size_t cap)
{
    int w = x->is_write;
    const char *rw = w ? "write" : "read";
    if (hi - lo == x->bytes) {
        *why = "contiguous in the file";
        return 0;
    }
    if (w && !f->fd_readable) {
        *why = "file not readable, so no read-modify-write";
        return 0;
    }
    if (w && !f->fs.rmw_safe) {
        /* a sieving window would only write its runs one by one (sieve.c) */
        *why = "read-modify-write across processes unsafe on this file system";
        return 0;
    }
    *why = buf;
    ferry_ind_strategy s = w ? f->hints.ind_write_strategy : f->hints.ind_read_strategy;
    if (s == FERRY_IND_DIRECT || s == FERRY_IND_SIEVE) {
        snprintf(buf, cap, "ferry_ind_%s_strategy=%s", rw, ferry_ind_strategy_name(s));
        return s == FERRY_IND_SIEVE;
    }
    ferry_tri ds = w ? f->hints.romio_ds_write : f->hints.romio_ds_read;
    if (ds != FERRY_TRI_AUTO) {
        snprintf(buf, cap, "romio_ds_%s=%s", rw, ds == FERRY_TRI_ENABLE ? "enable" : "disable");
        return ds == FERRY_TRI_ENABLE;
    }
    int64_t runs = runs_of(f, x);
    int64_t stride = runs > 1 ? (hi - lo) / runs : hi - lo;
    int64_t gap = runs > 1 ? (hi - lo - x->bytes) / (runs - 1) : 0;
    if (w && gap >= FERRY_SIEVE_MAX_HOLE) {
        /* write windows stop at such holes: each would hold one run */
        snprintf(buf, cap, "automatic: %lld runs, mean gap %lld B, too wide for write windows", (long long)runs,
                 (long long)gap);
        return 0;
    }
    int sieve = runs > 1 && stride < f->hints.ds_threshold;
    snprintf(buf, cap, "automatic: %lld runs, mean stride %lld B %s ferry_ds_threshold %lld B", (long long)runs,
             (long long)stride, sieve ? "below" : "not below", (long long)f->hints.ds_threshold);
    return sieve;
}

/* A direct write outside atomic mode may land inside a hole of another
 * rank's sieving window; a shared lock makes that window wait (or us wait for
 * it), while direct writers never wait for each other. Not needed when no
 * rank of the open can sieve writes (the hints involved agree across ranks;
 * no rank reads back a window where the file system makes that unsafe),
 * nor for a contiguous write no window hole can hold (sieve.h). */
static int needs_lock(const ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi)
{
    if (f->size < 2 || !f->fd_readable || !f->fs.rmw_safe)
        return 0;
    if (hi - lo == x->bytes && x->bytes >= FERRY_SIEVE_MAX_HOLE)
        return 0;
    if (f->hints.ind_write_strategy == FERRY_IND_DIRECT)
        return 0;
    return f->hints.ind_write_strategy == FERRY_IND_SIEVE || f->hints.romio_ds_write != FERRY_TRI_DISABLE;
}

int ferry_strategy_independent(ferry_file *f, const ferry_xfer *x, int collective, int64_t *done)
{
    *done = 0;
    if (x->bytes == 0)
        return MPI_SUCCESS;
    int fcode;
    if (!collective && ferry_forward_io(f, x, &fcode, done))
        return fcode;
    ferry_kind kind = x->is_write ? (collective ? FERRY_KIND_COLL_WRITE : FERRY_KIND_IND_WRITE)
                                  : (collective ? FERRY_KIND_COLL_READ : FERRY_KIND_IND_READ);
    int64_t lo = 0, hi = 0;
    extent_of(f, x, &lo, &hi);
    char buf[FERRY_REASON_LEN];
    const char *why = buf;
    int sieve = choose_sieve(f, x, lo, hi, &why, buf, sizeof buf);
    /* collective calls keep the collective engine's record */
    if (!collective) {
        const char *fb = ferry_forward_fallback(f, x->is_write);
        ferry_stats_strategy(&f->stats, kind, sieve ? "sieve" : "direct", fb ? fb : why);
    }

    int lock = 0, exclusive = x->is_write;
    if (f->atomic)
        lock = 1;
    else if (x->is_write && !sieve && needs_lock(f, x, lo, hi))
        lock = 1, exclusive = 0;
    if (lock) {
        int rc = f->fd.drv->lock(&f->fd, lo, hi - lo, exclusive);
        if (rc < 0)
            return ferry_err_errno(-rc, f->filename);
    }
    int code;
    if (sieve)
        code = x->is_write ? ferry_sieve_write(f, x, lo, hi, f->atomic, done) : ferry_sieve_read(f, x, lo, hi, done);
    else if (x->mem->contig)
        code = ferry_strategy_direct(f, x, done);
    else
        code = ferry_strategy_gather(f, x, done);
    if (lock)
        f->fd.drv->unlock(&f->fd, lo, hi - lo);
    return code;
}
