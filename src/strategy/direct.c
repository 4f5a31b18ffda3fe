/*
 * Direct independent I/O: one vector system call per contiguous file run,
 * gathering the memory pieces that feed it. No user data is ever copied.
 */
#include "core/errors.h"
#include "strategy/strategy.h"

#include <stdlib.h>
#include <sys/uio.h>

#define RUN_MAX ((int64_t)1 << 30) /* bound one system call's share of a huge run */

int ferry_strategy_direct(ferry_file *f, const ferry_xfer *x, int64_t *done)
{
    *done = 0;
    ferry_file_walk fw;
    ferry_mem_walk mw;
    ferry_file_walk_init(&fw, &f->view, x->pos, x->bytes);
    ferry_mem_walk_init(&mw, x->buf, x->mem, x->memcount, 0);
    int cap = 16;
    struct iovec *iov = malloc((size_t)cap * sizeof *iov);
    if (!iov)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory for an I/O vector");
    int64_t foff, flen;
    char *maddr = NULL;
    int64_t mlen = 0; /* unconsumed part of the current memory run */
    int code = MPI_SUCCESS;
    ferry_phase phase = x->is_write ? FERRY_PHASE_WRITE : FERRY_PHASE_READ;
    int64_t prev_end = -1;
    while (ferry_file_walk_next(&fw, RUN_MAX, &foff, &flen)) {
        if (prev_end >= 0 && foff > prev_end) {
            *(x->is_write ? &f->stats.write_gaps : &f->stats.read_gaps) += 1;
            *(x->is_write ? &f->stats.write_gap_bytes : &f->stats.read_gap_bytes) += foff - prev_end;
        }
        prev_end = foff + flen;
        int n = 0;
        for (int64_t need = flen; need > 0;) {
            if (mlen == 0 && !ferry_mem_walk_next(&mw, INT64_MAX, &maddr, &mlen))
                break;
            int64_t take = mlen < need ? mlen : need;
            if (n == cap) {
                struct iovec *ni = realloc(iov, (size_t)cap * 2 * sizeof *iov);
                if (!ni) {
                    free(iov);
                    return ferry_err(MPI_ERR_NO_MEM, "out of memory for an I/O vector");
                }
                iov = ni;
                cap *= 2;
            }
            iov[n].iov_base = maddr;
            iov[n].iov_len = (size_t)take;
            n++;
            maddr += take;
            mlen -= take;
            need -= take;
        }
        double t0 = ferry_now();
        int64_t got = x->is_write ? f->fd.drv->pwritev(&f->fd, iov, n, foff)
                                  : f->fd.drv->preadv(&f->fd, iov, n, foff);
        ferry_stats_phase(&f->stats, phase, t0);
        if (got < 0) {
            code = ferry_err_errno((int)-got, f->filename);
            break;
        }
        if (x->is_write) {
            f->stats.sys_writes++;
            f->stats.sys_write_bytes += got;
        } else {
            f->stats.sys_reads++;
            f->stats.sys_read_bytes += got;
        }
        *done += got;
        if (got < flen)
            break; /* end of file */
    }
    free(iov);
    return code;
}
