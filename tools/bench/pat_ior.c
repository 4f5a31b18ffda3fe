/*
 * ior: IOR's model. Each rank writes `segments` blocks of `block` bytes in
 * transfers of `xfer` bytes. In a shared file (N:1) segment s of rank r sits
 * at (s * ranks + r) * block, IOR's segmented layout; with -F every rank has
 * its own file and its blocks follow each other. -a posix uses open/pwrite
 * directly (with -F: the file-per-process limit the comparison measures
 * against); -a mpiio uses MPI_File_write_at or, with -c, write_at_all.
 * -C reads back the data of rank+1 (-Q N: rank+N) instead of one's own, so
 * the read cannot be served from what this rank just wrote; with N the ranks
 * of a node (IOR's task-per-node offset), not from what its node's file
 * system client cached either.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const apis[] = {"mpiio", "posix", NULL};
enum { API_MPIIO, API_POSIX };

struct ior_opts {
    int api, segments, fpp, coll, w, r, reorder, reorder_by, fsync, overlap_ms, in_place;
    int64_t xfer, block;
};
static const struct ior_opts defaults = {.segments = 1, .xfer = 256 * 1024, .block = 1024 * 1024, .reorder_by = 1};
static struct ior_opts o;

static const fb_opt opts[] = {
    {"-a", "api", FB_CHOICE, &o.api, "I/O interface (mpiio: MPI-IO; posix: open/pwrite/pread)", apis},
    {"-t", "xfer", FB_SIZE, &o.xfer, "transfer size: bytes per I/O call (default 256k)", NULL},
    {"-b", "block", FB_SIZE, &o.block, "contiguous bytes per rank and segment (default 1m)", NULL},
    {"-s", "segments", FB_INT, &o.segments, "segments (default 1)", NULL},
    {"-F", "fpp", FB_FLAG, &o.fpp, "file per process (PATH.00000, PATH.00001, ...)", NULL},
    {"-c", "collective", FB_FLAG, &o.coll, "collective calls (write_at_all/read_at_all; mpiio only)", NULL},
    {"-w", "write", FB_FLAG, &o.w, "write phase (without -w and -r: both)", NULL},
    {"-r", "read", FB_FLAG, &o.r, "read phase, verified (a file left by -w -k must exist)", NULL},
    {"-C", "reorder", FB_FLAG, &o.reorder, "read back the data of rank+1", NULL},
    {"-Q", "reorder_by", FB_INT, &o.reorder_by, "with -C: read back the data of rank+N (default 1; the ranks of a"
     " node keep a node's client cache out of the read)", NULL},
    {"-e", "fsync", FB_FLAG, &o.fsync, "fsync / MPI_File_sync at the end of the write phase", NULL},
    {"--in-place", "in_place", FB_FLAG, &o.in_place,
     "write over the file as it is, not removed first: a checkpoint rewritten in place, the same bytes"
     " a reader of the last one may be reading (shared file, -i 1)", NULL},
    {"--overlap-ms", "overlap_ms", FB_INT, &o.overlap_ms,
     "with -c: iwrite_at_all/iread_at_all, compute N ms, wait; reports the overlap achieved"
     " (phase times then cover three passes: I/O alone, computation alone, both)", NULL},
    {0},
};

static const char *check(fb_ctx *c)
{
    (void)c;
    if (o.xfer <= 0 || o.xfer > INT_MAX)
        return "-t must be between 1 byte and 2 GiB";
    if (o.block <= 0)
        return "-b must be positive";
    if (o.segments < 1)
        return "-s must be at least 1";
    if (o.coll && o.api == API_POSIX)
        return "-c needs -a mpiio";
    if (o.overlap_ms && (!o.coll || o.fpp))
        return "--overlap-ms needs -c on a shared file";
    if (o.reorder_by < 1)
        return "-Q must be at least 1";
    if (o.in_place && o.fpp)
        return "--in-place needs a shared file (no -F)";
    if (!o.w && !o.r)
        o.w = o.r = 1;
    return NULL;
}

/* One open file, through either interface. */
typedef struct {
    int fd;
    MPI_File fh;
} ior_file;

static void file_name(fb_ctx *c, int owner, char *buf, size_t n)
{
    if (o.fpp)
        snprintf(buf, n, "%s.%05d", c->path, owner);
    else
        snprintf(buf, n, "%s", c->path);
}

static int64_t offset(fb_ctx *c, int owner, int seg, int64_t k)
{
    return o.fpp ? seg * o.block + k : ((int64_t)seg * c->size + owner) * o.block + k;
}

static void do_open(fb_ctx *c, ior_file *f, const char *path, int write)
{
    if (o.api == API_POSIX) {
        f->fd = open(path, write ? O_CREAT | O_WRONLY : O_RDONLY, 0644);
        if (f->fd < 0)
            fb_die(c, "open(%s): %s", path, strerror(errno));
        return;
    }
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;
    fb_mpi_check(c, MPI_File_open(o.fpp ? MPI_COMM_SELF : MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &f->fh),
                 "MPI_File_open", path);
}

static void do_close(fb_ctx *c, ior_file *f, const char *path)
{
    if (o.api == API_POSIX) {
        if (close(f->fd) != 0)
            fb_die(c, "close(%s): %s", path, strerror(errno));
        return;
    }
    fb_mpi_check(c, MPI_File_close(&f->fh), "MPI_File_close", path);
}

/* One transfer of len bytes at off. POSIX may move less than asked: loop. */
static void transfer(fb_ctx *c, ior_file *f, const char *path, int write, unsigned char *buf, int64_t off, int64_t len,
                     double compute)
{
    if (o.api == API_POSIX) {
        while (len > 0) {
            ssize_t n = write ? pwrite(f->fd, buf, (size_t)len, off) : pread(f->fd, buf, (size_t)len, off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fb_die(c, "%s(%s) at %lld: %s", write ? "pwrite" : "pread", path, (long long)off,
                       n < 0 ? strerror(errno) : "end of file");
            buf += n, off += n, len -= n;
        }
        return;
    }
    MPI_Status st;
    int rc;
    if (compute >= 0) { /* --overlap-ms: start, compute, wait */
        MPI_Request req;
        rc = write ? MPI_File_iwrite_at_all(f->fh, off, buf, (int)len, MPI_BYTE, &req)
                   : MPI_File_iread_at_all(f->fh, off, buf, (int)len, MPI_BYTE, &req);
        fb_mpi_check(c, rc, write ? "MPI_File_iwrite_at_all" : "MPI_File_iread_at_all", path);
        if (compute > 0)
            fb_compute(compute);
        fb_mpi_check(c, MPI_Wait(&req, &st), "MPI_Wait", path);
        fb_check_count(c, &st, MPI_BYTE, len, write ? "a write" : "a read");
        return;
    }
    if (write)
        rc = o.coll ? MPI_File_write_at_all(f->fh, off, buf, (int)len, MPI_BYTE, &st)
                    : MPI_File_write_at(f->fh, off, buf, (int)len, MPI_BYTE, &st);
    else
        rc = o.coll ? MPI_File_read_at_all(f->fh, off, buf, (int)len, MPI_BYTE, &st)
                    : MPI_File_read_at(f->fh, off, buf, (int)len, MPI_BYTE, &st);
    fb_mpi_check(c, rc, write ? "MPI_File_write_at" : "MPI_File_read_at", path);
    fb_check_count(c, &st, MPI_BYTE, len, write ? "a write" : "a read");
}

enum { BLOCKING = -1, COMPUTE_ONLY = -2 };

/* All transfers of one rank's data (owner's layout), in IOR's order;
 * compute >= 0: nonblocking, with that many seconds of computation each. */
static void transfers_with(fb_ctx *c, ior_file *f, const char *path, int write, unsigned char *buf, int owner,
                           double compute)
{
    for (int s = 0; s < o.segments; s++)
        for (int64_t k = 0; k < o.block; k += o.xfer) {
            int64_t len = o.block - k < o.xfer ? o.block - k : o.xfer; /* a short last transfer is allowed */
            if (compute == COMPUTE_ONLY)
                fb_compute(o.overlap_ms * 1e-3);
            else
                transfer(c, f, path, write, buf + s * o.block + k, offset(c, owner, s, k), len, compute);
        }
}

/* With --overlap-ms the timed phase overlaps; before it, the same transfers
 * as blocking collectives and the computation with no transfers are timed. */
static void transfers(fb_ctx *c, ior_file *f, const char *path, int write, unsigned char *buf, int owner)
{
    if (!o.overlap_ms) {
        transfers_with(c, f, path, write, buf, owner, BLOCKING);
        return;
    }
    double t[2];
    for (int pass = 0; pass < 2; pass++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        transfers_with(c, f, path, write, buf, owner, pass == 0 ? BLOCKING : COMPUTE_ONLY);
        t[pass] = MPI_Wtime() - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    transfers_with(c, f, path, write, buf, owner, o.overlap_ms * 1e-3);
    fb_overlap_report(c, write ? "write" : "read", t[0], t[1], MPI_Wtime() - t0);
}

/* One timed pass over path: open, the transfers of owner's data (writing:
 * and the -e sync), close. */
static void ior_pass(fb_ctx *c, const char *path, int write, unsigned char *buf, int owner)
{
    ior_file f;
    fb_phase_begin(c, write ? FB_OPEN_W : FB_OPEN_R);
    do_open(c, &f, path, write);
    fb_phase_end(c, write ? FB_OPEN_W : FB_OPEN_R);
    fb_phase_begin(c, write ? FB_WRITE : FB_READ);
    transfers(c, &f, path, write, buf, owner);
    if (write && o.fsync) {
        if (o.api == API_POSIX ? fsync(f.fd) != 0 : MPI_File_sync(f.fh) != MPI_SUCCESS)
            fb_die(c, "sync(%s) failed", path);
    }
    fb_phase_end(c, write ? FB_WRITE : FB_READ);
    fb_phase_begin(c, write ? FB_CLOSE_W : FB_CLOSE_R);
    do_close(c, &f, path);
    fb_phase_end(c, write ? FB_CLOSE_W : FB_CLOSE_R);
    fb_pass_done(c, path, write);
}

static void run(fb_ctx *c, int rep)
{
    int src = o.reorder ? (int)((c->rank + (int64_t)o.reorder_by) % c->size) : c->rank;
    char wpath[4200], rpath[4200];
    file_name(c, c->rank, wpath, sizeof wpath);
    file_name(c, src, rpath, sizeof rpath);
    int64_t per_rank = o.block * o.segments;
    unsigned char *buf = fb_alloc(c, (size_t)per_rank);
    c->bytes_w = c->bytes_r = per_rank * c->size;

    if (o.w) {
        uint64_t seed = fb_seed("ior", rep, o.fpp ? c->rank : 0);
        for (int s = 0; s < o.segments; s++)
            fb_fill(buf + s * o.block, offset(c, c->rank, s, 0), (size_t)o.block, seed);
        if (o.fpp) { /* a fresh file each repetition, as IOR removes it between them */
            unlink(wpath);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!o.in_place)
            fb_remove(c, wpath);
        ior_pass(c, wpath, 1, buf, c->rank);
        char first[4200]; /* rank 0's file, where --corrupt-after-write strikes */
        file_name(c, 0, first, sizeof first);
        fb_corrupt(c, first, offset(c, 0, 0, o.block / 2));
    }
    if (o.r) {
        memset(buf, 0xa5, (size_t)per_rank); /* nothing of the written data survives in memory */
        ior_pass(c, rpath, 0, buf, src);
        uint64_t seed = fb_seed("ior", rep, o.fpp ? src : 0);
        for (int s = 0; s < o.segments; s++)
            fb_check(&c->v, buf + s * o.block, offset(c, src, s, 0), (size_t)o.block, seed, rpath);
        if (o.fpp)
            fb_check_file(c, wpath, per_rank, fb_seed("ior", rep, c->rank), 0);
        else
            fb_check_file(c, wpath, per_rank * c->size, seed, 1);
    }
    if (o.w && !c->keep) {
        if (o.fpp) {
            MPI_Barrier(MPI_COMM_WORLD); /* with -C, rank-1 may still read this rank's file */
            unlink(wpath);
        } else
            fb_remove(c, wpath);
    }
    free(buf);
}

const fb_pattern fb_pat_ior = {
    .name = "ior",
    .summary = "IOR: segmented N:1 or file-per-process, POSIX or MPI-IO (independent or collective)",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
