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

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
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
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the pattern name */
    for (const char *p = pattern; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
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

int fb_verify_finish(fb_ctx *c)
{
    int64_t mine[2] = {c->v.bad, c->v.checked}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    c->v.checked = all[1];
    if (all[0] == 0)
        return 0;
    /* the rank holding the lowest bad offset reports it, with the totals */
    struct { long off; int rank; } in = {c->v.bad ? (long)c->v.first_off : LONG_MAX, c->rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (out.rank == c->rank) {
        fprintf(stderr,
                "ferry-bench: VERIFY FAILED: %s: %lld of %lld bytes read back differ; first at offset %lld of %s "
                "(read 0x%02x, expected 0x%02x, rank %d)\n",
                c->pat->name, (long long)all[0], (long long)all[1], (long long)c->v.first_off, c->v.where, c->v.got,
                c->v.want, c->rank);
        fflush(stderr);
    }
    c->v.bad = all[0];
    MPI_Barrier(MPI_COMM_WORLD); /* the message is out before rank 0 goes on */
    return 1;
}

void fb_corrupt(fb_ctx *c)
{
    if (!c->corrupt)
        return;
    if (c->rank == 0) {
        int fd = open(c->corrupt_path, O_RDWR);
        unsigned char b;
        if (fd < 0 || pread(fd, &b, 1, c->corrupt_off) != 1)
            fb_die(c, "--corrupt-after-write: cannot read offset %lld of %s: %s", (long long)c->corrupt_off,
                   c->corrupt_path, strerror(errno));
        b ^= 0xff;
        if (pwrite(fd, &b, 1, c->corrupt_off) != 1 || fsync(fd) != 0)
            fb_die(c, "--corrupt-after-write: cannot write %s: %s", c->corrupt_path, strerror(errno));
        close(fd);
        fprintf(stderr, "ferry-bench: --corrupt-after-write: flipped the byte at offset %lld of %s\n",
                (long long)c->corrupt_off, c->corrupt_path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

void fb_remove(fb_ctx *c, const char *path)
{
    if (c->rank == 0 && unlink(path) != 0 && errno != ENOENT)
        fprintf(stderr, "ferry-bench: cannot remove %s: %s\n", path, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
}
