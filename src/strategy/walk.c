/* The file side of a transfer as a stream of contiguous runs. */
#include "strategy/strategy.h"

void ferry_file_walk_init(ferry_file_walk *w, const ferry_view *v, int64_t pos, int64_t bytes)
{
    w->v = v;
    w->left = bytes;
    if (v->is_bytes)
        w->next_off = v->disp + pos;
    else
        ferry_iter_init(&w->it, v->ft, v->disp, FERRY_ITER_UNBOUNDED, pos);
}

int ferry_file_walk_next(ferry_file_walk *w, int64_t maxlen, int64_t *off, int64_t *len)
{
    if (w->left <= 0)
        return 0;
    if (maxlen > w->left)
        maxlen = w->left;
    if (w->v->is_bytes) {
        *off = w->next_off;
        *len = maxlen;
        w->next_off += maxlen;
    } else if (!ferry_iter_next(&w->it, maxlen, off, len)) {
        return 0;
    }
    w->left -= *len;
    return 1;
}
