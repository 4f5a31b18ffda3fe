/*
 * The independent path: picks how one rank's call reaches the file, and in
 * atomic mode holds a byte-range lock over the call's whole extent so no
 * other rank of the open sees half of it.
 */
#include "core/errors.h"
#include "strategy/strategy.h"

/* First and one-past-last file byte the transfer touches. */
static void extent_of(const ferry_file *f, const ferry_xfer *x, int64_t *lo, int64_t *hi)
{
    int64_t es = f->view.etype_size;
    *lo = ferry_view_byte_offset(f, x->pos / es) + x->pos % es;
    int64_t last = x->pos + x->bytes - 1;
    *hi = ferry_view_byte_offset(f, last / es) + last % es + 1;
}

int ferry_strategy_independent(ferry_file *f, const ferry_xfer *x, int collective, int64_t *done)
{
    *done = 0;
    if (x->bytes == 0)
        return MPI_SUCCESS;
    ferry_kind kind = x->is_write ? (collective ? FERRY_KIND_COLL_WRITE : FERRY_KIND_IND_WRITE)
                                  : (collective ? FERRY_KIND_COLL_READ : FERRY_KIND_IND_READ);
    int64_t lo = 0, hi = 0;
    int locked = 0;
    if (f->atomic) {
        extent_of(f, x, &lo, &hi);
        int rc = f->fd.drv->lock(&f->fd, lo, hi - lo, x->is_write);
        if (rc < 0)
            return ferry_err_errno(-rc, "lock");
        locked = 1;
    }
    if (!collective)
        ferry_stats_strategy(&f->stats, kind, "direct", f->view.is_bytes ? "contiguous view" : "one system call per file run");
    int code = ferry_strategy_direct(f, x, done);
    if (locked)
        f->fd.drv->unlock(&f->fd, lo, hi - lo);
    return code;
}
