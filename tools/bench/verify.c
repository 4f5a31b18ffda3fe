/*
 * Data generation and verification.
 *
 * Every byte a pattern writes is a pure function of a seed and the byte's
 * file offset. Any rank can therefore check any part of the file without
 * talking to the rank that wrote it (IOR's -C, BT-IO's full read-back), and a
 * byte that lands at the wrong offset is caught as surely as a wrong byte.
 * The seed includes the repetition, so a stale file from an earlier
 * repetition does not pass either.
 */
#include "bench.h"
#include "util/fnv.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* splitmix64's finaliser: cheap, and every input bit affects every output bit. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t word_at(uint64_t seed, uint64_t index)
{
    return mix64(seed + index * 0x9e3779b97f4a7c15ULL);
}

static inline unsigned char byte_at(uint64_t seed, uint64_t off)
{
    return (unsigned char)(word_at(seed, off >> 3) >> (8 * (off & 7)));
}

uint64_t fb_seed(const char *pattern, int rep, int64_t file_id)
{
    uint64_t h = ferry_fnv_str(pattern);
    return mix64(h ^ mix64((uint64_t)rep + 1) ^ mix64(((uint64_t)file_id << 20) + 7));
}

void fb_fill(void *buf, int64_t off, size_t len, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t o = (uint64_t)off;
    for (; len && (o & 7); len--)
        *p++ = byte_at(seed, o++);
    for (; len >= 8; len -= 8, p += 8, o += 8) {
        uint64_t w = htole64(word_at(seed, o >> 3)); /* byte k of a word sits at offset 8i+k */
        memcpy(p, &w, 8);
    }
    for (; len; len--)
        *p++ = byte_at(seed, o++);
}

static void note_bad(fb_verify *v, int64_t off, unsigned got, unsigned want, const char *where)
{
    if (v->bad++ == 0 || off < v->first_off) {
        v->first_off = off;
        v->got = got;
        v->want = want;
        snprintf(v->where, sizeof v->where, "%s", where);
    }
}

void fb_check(fb_verify *v, const void *buf, int64_t off, size_t len, uint64_t seed, const char *where)
{
    const unsigned char *p = buf;
    uint64_t o = (uint64_t)off;
    v->checked += (int64_t)len;
    while (len) {
        /* whole aligned words first: one comparison per 8 bytes */
        if (!(o & 7) && len >= 8) {
            uint64_t w = htole64(word_at(seed, o >> 3));
            if (!memcmp(p, &w, 8)) {
                p += 8, o += 8, len -= 8;
                continue;
            }
        }
        unsigned char want = byte_at(seed, o);
        if (*p != want)
            note_bad(v, (int64_t)o, *p, want, where);
        p++, o++, len--;
    }
}

void fb_check_bytes(fb_verify *v, const void *got, const void *want, int64_t off, size_t len, const char *where)
{
    const unsigned char *g = got, *w = want;
    v->checked += (int64_t)len;
    if (!memcmp(g, w, len))
        return;
    for (size_t i = 0; i < len; i++)
        if (g[i] != w[i])
            note_bad(v, off + (int64_t)i, g[i], w[i], where);
}

/* Sums one verification over the ranks; the rank holding the lowest bad
 * offset prints it with the totals. Returns the total of bad bytes. */
static int64_t finish_one(fb_ctx *c, fb_verify *v, const char *what, const char *verb)
{
    int64_t mine[2] = {v->bad, v->checked}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    v->checked = all[1];
    if (all[0] == 0)
        return 0;
    struct { long off; int rank; } in = {v->bad ? (long)v->first_off : LONG_MAX, c->rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (out.rank == c->rank) {
        fprintf(stderr,
                "ferry-bench: VERIFY FAILED: %s: %lld of %lld bytes %s differ; first at offset %lld of %s "
                "(%s 0x%02x, expected 0x%02x, rank %d)\n",
                c->pat->name, (long long)all[0], (long long)all[1], what, (long long)v->first_off, v->where, verb,
                v->got, v->want, c->rank);
        fflush(stderr);
    }
    v->bad = all[0];
    MPI_Barrier(MPI_COMM_WORLD); /* the message is out before rank 0 goes on */
    return all[0];
}

int fb_verify_finish(fb_ctx *c)
{
    int64_t bad = finish_one(c, &c->v, "read back", "read");
    bad += finish_one(c, &c->vf, "in the file (checked with pread)", "file holds");
    return bad != 0;
}

/* The independent check: what the read-back cannot see. A layout error that
 * the write and the read make alike (the same wrong offsets both ways) reads
 * back fine; only the file itself shows it. Every byte of these files is a
 * function of its offset, so the ranks read it with plain pread, each its
 * share (shared) or its own file whole, and check it, also its size. */
void fb_check_file(fb_ctx *c, const char *path, int64_t size, uint64_t seed, int shared)
{
    int64_t lo = shared ? size * c->rank / c->size : 0, hi = shared ? size * (c->rank + 1) / c->size : size;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        fb_die(c, "cannot open %s to check it: %s", path, strerror(errno));
    char where[4200];
    snprintf(where, sizeof where, "%s", path);
    if ((!shared || c->rank == 0) && st.st_size != size) {
        fprintf(stderr, "ferry-bench: VERIFY FAILED: %s: %s is %lld bytes, expected %lld\n", c->pat->name, path,
                (long long)st.st_size, (long long)size);
        c->vf.bad++; /* counted as one bad byte, so the run fails */
        c->vf.first_off = c->vf.first_off < size ? c->vf.first_off : size;
        snprintf(c->vf.where, sizeof c->vf.where, "%s (its size)", path);
    }
    size_t chunk = 4 << 20;
    unsigned char *buf = fb_alloc(c, chunk);
    for (int64_t off = lo; off < hi;) {
        size_t n = (size_t)(hi - off) < chunk ? (size_t)(hi - off) : chunk;
        ssize_t got = pread(fd, buf, n, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* a short file: its size was reported above */
        fb_check(&c->vf, buf, off, (size_t)got, seed, where);
        off += got;
    }
    free(buf);
    close(fd);
}

void fb_corrupt(fb_ctx *c, const char *path, int64_t off)
{
    if (!c->corrupt)
        return;
    if (c->rank == 0) {
        int fd = open(path, O_RDWR);
        unsigned char b;
        if (fd < 0 || pread(fd, &b, 1, off) != 1)
            fb_die(c, "--corrupt-after-write: cannot read offset %lld of %s: %s", (long long)off, path,
                   strerror(errno));
        b ^= 0xff;
        if (pwrite(fd, &b, 1, off) != 1 || fsync(fd) != 0)
            fb_die(c, "--corrupt-after-write: cannot write %s: %s", path, strerror(errno));
        close(fd);
        fprintf(stderr, "ferry-bench: --corrupt-after-write: flipped the byte at offset %lld of %s\n", (long long)off,
                path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

void fb_remove(fb_ctx *c, const char *path)
{
    MPI_Barrier(MPI_COMM_WORLD); /* no rank still uses the file */
    if (c->rank == 0 && unlink(path) != 0 && errno != ENOENT)
        fprintf(stderr, "ferry-bench: cannot remove %s: %s\n", path, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
}

void fb_discard(fb_ctx *c, const char *path)
{
    if (!c->keep)
        fb_remove(c, path);
}
