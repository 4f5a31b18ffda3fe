/* User memory through a datatype as contiguous runs; packing along them. */
#include "datatype/memwalk.h"

#include <string.h>

void ferry_mem_walk_init(ferry_mem_walk *w, char *buf, ferry_flat *mem, int64_t count, int64_t skip)
{
    w->buf = buf;
    w->left = mem->size * count - skip;
    w->contig = mem->contig;
    if (w->contig)
        w->next = mem->lb + skip;
    else
        ferry_iter_init(&w->it, mem, 0, count, skip);
}

int ferry_mem_walk_next(ferry_mem_walk *w, int64_t maxlen, char **addr, int64_t *len)
{
    if (w->left <= 0)
        return 0;
    if (maxlen > w->left)
        maxlen = w->left;
    int64_t off;
    if (w->contig) {
        off = w->next;
        *len = maxlen;
        w->next += maxlen;
    } else if (!ferry_iter_next(&w->it, maxlen, &off, len)) {
        return 0;
    }
    *addr = w->buf + off;
    w->left -= *len;
    return 1;
}

/* n bytes between the walk's pieces and one contiguous buffer: into dst,
 * or, where dst is NULL, from src */
static int64_t copy(ferry_mem_walk *mw, char *dst, const char *src, int64_t n)
{
    char *a;
    int64_t l, done = 0;
    while (n > 0 && ferry_mem_walk_next(mw, n, &a, &l)) {
        if (dst) {
            memcpy(dst, a, (size_t)l);
            dst += l;
        } else {
            memcpy(a, src, (size_t)l);
            src += l;
        }
        n -= l;
        done += l;
    }
    return done;
}

int64_t ferry_mem_pack(ferry_mem_walk *mw, char *dst, int64_t n) { return copy(mw, dst, NULL, n); }

int64_t ferry_mem_unpack(ferry_mem_walk *mw, const char *src, int64_t n) { return copy(mw, NULL, src, n); }

int ferry_mem_pack_type(const void *buf, int64_t count, MPI_Datatype type, int64_t skip, int64_t bytes,
                        char *out)
{
    ferry_flat *fl = NULL;
    int rc = ferry_flat_get(type, &fl);
    if (rc != MPI_SUCCESS)
        return rc;
    ferry_mem_walk w;
    ferry_mem_walk_init(&w, (char *)buf, fl, count, skip);
    ferry_mem_pack(&w, out, bytes);
    ferry_flat_release(fl);
    return MPI_SUCCESS;
}
