/*
 * A read next to the data: walks [pos, pos + bytes) of the stream under the
 * file's view one chunk at a time, reads each chunk through the independent
 * strategy (so views, sieving and the driver are ferry's own), and folds it
 * into the operation's state. Chunked so a data process can interleave
 * several clients and stay in touch with them between chunks.
 */
#include "core/errors.h"
#include "decouple/decouple.h"
#include "strategy/strategy.h"

#include <stdlib.h>

void dc_scan_begin(dc_scan *s, ferry_file *f, const dc_op *op, void *state, int64_t pos, int64_t bytes)
{
    s->f = f;
    s->op = op;
    s->state = state;
    s->pos = pos;
    s->end = pos + bytes;
    s->done = 0;
    s->code = MPI_SUCCESS;
    s->finished = bytes <= 0;
    s->mem = NULL;
    if (s->finished)
        return;
    if (f->view.ft->size == 0) {
        s->code = ferry_err(MPI_ERR_IO, "the view's filetype holds no data");
        s->finished = 1;
        return;
    }
    s->mem = ferry_flat_bytes(1);
    if (!s->mem) {
        s->code = ferry_err(MPI_ERR_NO_MEM, "out of memory reading next to the data");
        s->finished = 1;
    }
}

int dc_scan_step(dc_scan *s, char **buf, int64_t *cap)
{
    if (s->finished)
        return 1;
    int64_t es = s->op->esize > 0 ? s->op->esize : 1;
    int64_t want = dc_cfg()->chunk;
    want -= want % es;
    if (want < es)
        want = es;
    if (want > s->end - s->pos)
        want = s->end - s->pos;
    if (*cap < want) {
        char *nb = realloc(*buf, (size_t)want);
        if (!nb) {
            s->code = ferry_err(MPI_ERR_NO_MEM, "out of memory reading next to the data");
            s->finished = 1;
            return 1;
        }
        *buf = nb;
        *cap = want;
    }
    ferry_xfer x = {.buf = *buf, .mem = s->mem, .memcount = want, .pos = s->pos, .bytes = want, .is_write = 0};
    int64_t got = 0;
    int rc = ferry_strategy_independent(s->f, &x, 0, &got);
    if (rc != MPI_SUCCESS) {
        s->code = rc;
        s->finished = 1;
        return 1;
    }
    /* a trailing piece of an element (end of file) is not an element */
    rc = dc_op_update(s->op, s->state, *buf, got / es, s->pos);
    s->done += got;
    s->pos += got;
    if (rc != MPI_SUCCESS) {
        s->code = ferry_err(rc, "the operation failed next to the data");
        s->finished = 1;
    }
    if (got < want || s->pos >= s->end)
        s->finished = 1;
    return s->finished;
}

void dc_scan_end(dc_scan *s)
{
    if (s->mem)
        ferry_flat_release(s->mem);
    s->mem = NULL;
}

int64_t dc_locate(void *file, int64_t pos)
{
    const ferry_view *v = &((ferry_file *)file)->view;
    if (v->is_bytes || v->ft->size == 0)
        return v->disp + pos;
    return v->disp + (pos / v->ft->size) * v->ft->extent + ferry_flat_offset_of(v->ft, 0, pos % v->ft->size);
}
