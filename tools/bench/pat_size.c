/*
 * size: the calls that change and ask a file's size, as checkpoint codes
 * make them around their writes (truncate before a rewrite, preallocate,
 * check the size after). Each of -n rounds: one rank appends a record past
 * the end, then MPI_File_set_size grows the file, MPI_File_preallocate grows
 * it further, MPI_File_set_size cuts it back; every rank asks
 * MPI_File_get_size after each step and checks the answer. Its one line
 * ("size") times all of these calls, between the open and the close.
 */
#include "bench.h"

#include <string.h>

struct size_opts {
    int rounds;
};
static const struct size_opts defaults = {.rounds = 200};
static struct size_opts o;

static const fb_opt opts[] = {
    {"-n", "rounds", FB_INT, &o.rounds, "rounds of append, grow, preallocate, cut (default 200)", NULL},
    {0},
};

static const char *check(fb_ctx *c)
{
    return o.rounds < 1 ? "-n must be at least 1"
           : c->corrupt ? "--corrupt-after-write: size reads no data back"
                        : NULL;
}

enum { REC = 100, BASE = 4096 };

/* get_size on every rank, checked against want. */
static void expect(fb_ctx *c, MPI_File fh, int64_t want)
{
    MPI_Offset have = -1;
    fb_mpi_check(c, MPI_File_get_size(fh, &have), "MPI_File_get_size", c->path);
    int64_t h = have;
    unsigned char got[8], w[8];
    memcpy(got, &h, 8);
    memcpy(w, &want, 8);
    fb_check_bytes(&c->v, got, w, 0, 8, "the size MPI_File_get_size gives");
}

/* The rounds, all in the write phase. */
static void rounds(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    (void)write;
    const unsigned char *rec = arg;
    MPI_Status st;
    for (int r = 0; r < o.rounds; r++) {
        int64_t size = BASE + (int64_t)r * REC;
        fb_mpi_check(c, MPI_File_set_size(fh, size), "MPI_File_set_size", c->path);
        /* one rank (a different one each round) appends; the others learn
         * the new size at the sync */
        if (r % c->size == c->rank)
            fb_mpi_check(c, MPI_File_write_at(fh, size, rec, REC, MPI_BYTE, &st), "MPI_File_write_at", c->path);
        fb_mpi_check(c, MPI_File_sync(fh), "MPI_File_sync", c->path);
        MPI_Barrier(MPI_COMM_WORLD);
        fb_mpi_check(c, MPI_File_sync(fh), "MPI_File_sync", c->path);
        expect(c, fh, size + REC);
        fb_mpi_check(c, MPI_File_set_size(fh, 2 * size), "MPI_File_set_size", c->path);
        expect(c, fh, 2 * size);
        fb_mpi_check(c, MPI_File_preallocate(fh, 3 * size), "MPI_File_preallocate", c->path);
        expect(c, fh, 3 * size);
    }
}

static void run(fb_ctx *c, int rep)
{
    unsigned char rec[REC];
    fb_fill(rec, 0, REC, fb_seed("size", rep, 0));
    fb_remove(c, c->path);
    c->bytes_w = c->bytes_r = 0;
    fb_pass(c, MPI_MODE_CREATE | MPI_MODE_RDWR, 1, NULL, rounds, rec);
    c->did_read = 1; /* its checks of get_size are its read-back */
    fb_discard(c, c->path);
}

const fb_pattern fb_pat_size = {
    .name = "size",
    .summary = "set_size, preallocate and an append past the end, each followed by get_size on every rank "
               "(checked); no bulk I/O",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
    .no_data = "size",
};
