/*
 * Data sieving: many small file runs are covered by one large window per
 * system call. A read fills the window and scatters the wanted bytes into
 * the user's buffer; a write reads the window, lays the user's bytes over
 * it and writes it back, holding an exclusive fcntl lock on the window so a
 * writer on another rank never has its bytes overwritten by our stale copy.
 * Where the file system does not make that safe (ferry_fs_info.rmw_safe),
 * a write window never reads: it writes its runs alone.
 *
 * Windows start at a run and never span a stretch with no data, so a sparse
 * access costs what its data costs, not what its extent costs; a write
 * window also stops at a hole of FERRY_SIEVE_MAX_HOLE bytes (see sieve.h).
 * A run larger than the window skips the buffer and goes straight to the
 * kernel.
 */
#include "core/errors.h"
#include "strategy/buffers.h"
#include "strategy/sieve.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int64_t window_size(int64_t hint, int64_t lo, int64_t hi)
{
    int64_t w = hint > 0 ? hint : 1;
    return min64(w, hi - lo > 0 ? hi - lo : 1);
}

static void count_gap(ferry_file *f, int is_write, int64_t *prev_end, int64_t off, int64_t len)
{
    if (*prev_end >= 0 && off > *prev_end) {
        *(is_write ? &f->stats.write_gaps : &f->stats.read_gaps) += 1;
        *(is_write ? &f->stats.write_gap_bytes : &f->stats.read_gap_bytes) += off - *prev_end;
    }
    *prev_end = off + len;
}

static int64_t sieve_pread(ferry_file *f, char *buf, int64_t len, int64_t off)
{
    double t0 = ferry_now();
    int64_t got = f->fd.drv->pread(&f->fd, buf, len, off);
    ferry_stats_phase(&f->stats, FERRY_PHASE_READ, t0);
    if (got >= 0) {
        f->stats.sys_reads++;
        f->stats.sys_read_bytes += got;
        f->stats.sieve_reads++;
    }
    return got;
}

/* Windows of pieces this large are read straight into a contiguous caller
 * buffer: one vector read per window whose entries alternate the caller's
 * bytes with a scratch buffer taking the gaps, so nothing is copied twice. */
#define SCATTER_MIN 512
#define SCATTER_IOV 1024
#define JUNK ((int64_t)1 << 16)

static int scatter_read(ferry_file *f, const ferry_xfer *x, int64_t cap, int64_t *done)
{
    struct iovec *iov = malloc(SCATTER_IOV * sizeof *iov);
    char *junk = malloc(JUNK);
    int code = MPI_SUCCESS;
    if (!iov || !junk) {
        free(iov);
        free(junk);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for a scatter read");
    }
    char *dst = x->buf + x->mem->lb;
    ferry_runs rs;
    ferry_runs_init(&rs, &f->view, x->pos, x->bytes);
    int64_t prev_end = -1;
    while (ferry_runs_peek(&rs)) {
        int64_t ws = rs.off, at = ws, limit = ws + cap, want = 0;
        int n = 0;
        ferry_runs scan = rs;
        while (ferry_runs_peek(&scan) && scan.off >= at && scan.off < limit) {
            int64_t gap = scan.off - at, need = 1 + (gap + JUNK - 1) / JUNK;
            if (n + need > SCATTER_IOV)
                break;
            for (; gap > 0; gap -= JUNK)
                iov[n++] = (struct iovec){junk, (size_t)min64(gap, JUNK)};
            int64_t take = min64(scan.len, limit - scan.off);
            count_gap(f, 0, &prev_end, scan.off, take);
            iov[n++] = (struct iovec){dst + *done + want, (size_t)take};
            want += take;
            at = scan.off + take;
            ferry_runs_consume(&scan, take);
        }
        double t0 = ferry_now();
        int64_t got = f->fd.drv->preadv(&f->fd, iov, n, ws);
        ferry_stats_phase(&f->stats, FERRY_PHASE_READ, t0);
        if (got < 0) {
            code = ferry_err_errno((int)-got, f->filename);
            break;
        }
        f->stats.sys_reads++;
        f->stats.sys_read_bytes += got;
        f->stats.sieve_reads++;
        /* the caller's bytes among those that arrived */
        int64_t have = 0;
        for (int i = 0; i < n && got > 0; i++) {
            int64_t l = min64((int64_t)iov[i].iov_len, got);
            if (iov[i].iov_base != junk)
                have += l;
            got -= l;
        }
        *done += have;
        if (have < want)
            break; /* end of file */
        rs = scan;
    }
    free(iov);
    free(junk);
    return code;
}

int ferry_sieve_read(ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi, int64_t *done)
{
    *done = 0;
    int64_t cap = window_size(f->hints.ind_rd_buffer_size, lo, hi);
    const ferry_flat *ft = f->view.ft;
    int64_t piece = f->view.is_bytes ? x->bytes : ft->size / (ft->nblocks > 0 ? ft->nblocks : 1);
    if (x->mem->contig && piece >= SCATTER_MIN)
        return scatter_read(f, x, cap, done);
    char *buf = NULL;
    ferry_runs rs;
    ferry_mem_walk mw;
    ferry_runs_init(&rs, &f->view, x->pos, x->bytes);
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    int64_t ws = 0, wl = 0, avail = 0; /* window [ws, ws+wl) holds avail bytes (short at EOF) */
    int64_t prev_end = -1;
    int code = MPI_SUCCESS;
    while (ferry_runs_peek(&rs)) {
        int64_t off = rs.off, len = rs.len;
        if (off < ws || off >= ws + wl) {
            if (len >= cap) {
                /* a run as big as the window: no point copying it through one */
                count_gap(f, 0, &prev_end, off, len);
                int64_t got = 0;
                if (x->mem->contig) /* the copies below did not advance the walk */
                    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, *done);
                code = ferry_gather_run(f, &mw, 0, off, len, &got);
                *done += got;
                if (code != MPI_SUCCESS || got < len)
                    break;
                ferry_runs_consume(&rs, len);
                continue;
            }
            if (!buf && !(buf = ferry_buffer_get(cap, NULL))) {
                code = ferry_err(MPI_ERR_NO_MEM, "out of memory for the read sieving buffer");
                break;
            }
            ws = off;
            wl = hi > off + len ? min64(cap, hi - off) : len;
            avail = sieve_pread(f, buf, wl, ws);
            if (avail < 0) {
                code = ferry_err_errno((int)-avail, f->filename);
                break;
            }
        }
        int64_t take = min64(len, ws + wl - off);
        count_gap(f, 0, &prev_end, off, take);
        int64_t have = min64(take, ws + avail - off);
        if (have > 0) {
            if (x->mem->contig) /* the common case needs no memory walk */
                memcpy(x->buf + x->mem->lb + *done, buf + (off - ws), (size_t)have);
            else
                ferry_mem_unpack(&mw, buf + (off - ws), have);
            *done += have;
        }
        if (have < take)
            break; /* end of file */
        ferry_runs_consume(&rs, take);
    }
    ferry_buffer_put(buf);
    return code;
}

/* Scans the runs that fit in a window starting at the next run (on a copy of
 * the run source): how far the window reaches and how many bytes it writes. */
static void scan_window(ferry_runs rs, int64_t cap, int64_t *wend, int64_t *covered)
{
    int64_t ws = rs.off, limit = ws + cap;
    *wend = ws;
    *covered = 0;
    while (ferry_runs_peek(&rs) && rs.off >= *wend && rs.off < limit &&
           (*covered == 0 || rs.off - *wend < FERRY_SIEVE_MAX_HOLE)) {
        int64_t take = min64(rs.len, limit - rs.off);
        *covered += take;
        *wend = rs.off + take;
        ferry_runs_consume(&rs, take);
    }
}

static int lock_range(ferry_file *f, int held, int64_t off, int64_t len)
{
    if (held)
        return MPI_SUCCESS;
    int rc = f->fd.drv->lock(&f->fd, off, len, 1);
    return rc < 0 ? ferry_err_errno(-rc, f->filename) : MPI_SUCCESS;
}

/* Where caches are not coherent the unlock syncs first, and can fail. */
static int unlock_range(ferry_file *f, int held, int64_t off, int64_t len)
{
    int rc = held ? 0 : f->fd.drv->unlock(&f->fd, off, len);
    return rc < 0 ? ferry_err_errno(-rc, f->filename) : MPI_SUCCESS;
}

/* A window whose holes may not be read back and rewritten (the file system
 * does not make read-modify-write across processes safe, see
 * docs/filesystems.md): the runs are packed into the window buffer at their
 * places, but only the runs go to the file, adjacent ones merged into one
 * write. No lock: no rank of this file ever rewrites bytes it was not given. */
static int write_runs_only(ferry_file *f, ferry_runs *rs, ferry_mem_walk *mw, char *buf, int64_t cap,
                           int64_t ws, int64_t wend, int64_t *prev_end, int64_t *wrote)
{
    int64_t limit = ws + cap, at = ws, seg = -1, seg_end = -1;
    int code = MPI_SUCCESS;
    for (;;) {
        int more = ferry_runs_peek(rs) && rs->off >= at && rs->off < limit && rs->off < wend;
        if (seg >= 0 && (!more || rs->off != seg_end)) {
            double t0 = ferry_now();
            int64_t put = f->fd.drv->pwrite(&f->fd, buf + (seg - ws), seg_end - seg, seg);
            ferry_stats_phase(&f->stats, FERRY_PHASE_WRITE, t0);
            if (put < 0) {
                code = ferry_err_errno((int)-put, f->filename);
                break;
            }
            f->stats.sys_writes++;
            f->stats.sys_write_bytes += put;
            *wrote += put;
            seg = -1;
        }
        if (!more)
            break;
        int64_t take = min64(rs->len, limit - rs->off);
        count_gap(f, 1, prev_end, rs->off, take);
        ferry_mem_pack(mw, buf + (rs->off - ws), take);
        if (seg < 0)
            seg = rs->off;
        seg_end = rs->off + take;
        at = seg_end;
        ferry_runs_consume(rs, take);
    }
    return code;
}

/* One window: lock, read it if the runs leave holes, lay the runs over it,
 * write it back. *wrote = data bytes now in the file. */
static int write_window(ferry_file *f, ferry_runs *rs, ferry_mem_walk *mw, char *buf, int64_t cap,
                        int held, int64_t *prev_end, int64_t *wrote)
{
    *wrote = 0;
    int64_t ws = rs->off, wend, covered;
    scan_window(*rs, cap, &wend, &covered);
    int64_t wl = wend - ws;
    if (covered < wl && !f->fs.rmw_safe)
        return write_runs_only(f, rs, mw, buf, cap, ws, wend, prev_end, wrote);
    int code = lock_range(f, held, ws, wl);
    if (code != MPI_SUCCESS)
        return code;
    if (covered < wl) {
        int64_t got = sieve_pread(f, buf, wl, ws);
        if (got < 0) {
            (void)unlock_range(f, held, ws, wl); /* the read's error is the one to report */
            return ferry_err_errno((int)-got, f->filename);
        }
        /* past end of file the holes read as zeros, and so must what we write there */
        if (got < wl)
            memset(buf + got, 0, (size_t)(wl - got));
        f->stats.rmw_count++;
        f->stats.rmw_bytes += wl;
    }
    int64_t limit = ws + cap, at = ws;
    while (ferry_runs_peek(rs) && rs->off >= at && rs->off < limit && rs->off < wend) {
        int64_t take = min64(rs->len, limit - rs->off);
        count_gap(f, 1, prev_end, rs->off, take);
        ferry_mem_pack(mw, buf + (rs->off - ws), take);
        at = rs->off + take;
        ferry_runs_consume(rs, take);
    }
    double t0 = ferry_now();
    int64_t put = f->fd.drv->pwrite(&f->fd, buf, wl, ws);
    ferry_stats_phase(&f->stats, FERRY_PHASE_WRITE, t0);
    int ucode = unlock_range(f, held, ws, wl);
    if (put < 0)
        return ferry_err_errno((int)-put, f->filename);
    if (ucode != MPI_SUCCESS)
        return ucode;
    f->stats.sys_writes++;
    f->stats.sys_write_bytes += put;
    f->stats.sieve_writes++;
    *wrote = covered;
    return MPI_SUCCESS;
}

int ferry_sieve_write(ferry_file *f, const ferry_xfer *x, int64_t lo, int64_t hi, int held,
                      int64_t *done)
{
    *done = 0;
    int64_t cap = window_size(f->hints.ind_wr_buffer_size, lo, hi);
    char *buf = NULL;
    ferry_runs rs;
    ferry_mem_walk mw;
    ferry_runs_init(&rs, &f->view, x->pos, x->bytes);
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    int64_t prev_end = -1;
    int code = MPI_SUCCESS;
    while (code == MPI_SUCCESS && ferry_runs_peek(&rs)) {
        int64_t wrote = 0;
        if (rs.len >= cap) {
            /* whole run, no read needed; locked so no window of another rank
             * holds a stale copy of these bytes while we write them */
            int64_t off = rs.off, len = rs.len;
            count_gap(f, 1, &prev_end, off, len);
            code = lock_range(f, held || !f->fs.rmw_safe, off, len);
            if (code != MPI_SUCCESS)
                break;
            code = ferry_gather_run(f, &mw, 1, off, len, &wrote);
            int ucode = unlock_range(f, held || !f->fs.rmw_safe, off, len);
            if (code == MPI_SUCCESS)
                code = ucode;
            ferry_runs_consume(&rs, len);
        } else {
            if (!buf && !(buf = ferry_buffer_get(cap, NULL))) {
                code = ferry_err(MPI_ERR_NO_MEM, "out of memory for the write sieving buffer");
                break;
            }
            code = write_window(f, &rs, &mw, buf, cap, held, &prev_end, &wrote);
        }
        *done += wrote;
    }
    ferry_buffer_put(buf);
    return code;
}
