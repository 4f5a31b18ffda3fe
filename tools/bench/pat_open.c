/*
 * open: the cost of opening and closing, as HDF5 and many-file workloads
 * pay it. Every rank opens one shared file collectively and closes it again,
 * -n times in a row, with no I/O in between; each rank times its own opens
 * and closes, and the phases take the slowest rank's sums. One barrier
 * starts the loop, none sits inside it: the pairs run back to back, as an
 * application's would.
 */
#include "bench.h"

#include <string.h>

struct open_opts {
    int pairs, create;
};
static const struct open_opts defaults = {.pairs = 1000};
static struct open_opts o;

static const fb_opt opts[] = {
    {"-n", "pairs", FB_INT, &o.pairs, "open+close pairs (default 1000)", NULL},
    {"--create", "create", FB_FLAG, &o.create,
     "every open passes MPI_MODE_CREATE (default: the file exists, MPI_MODE_RDWR)", NULL},
    {0},
};

static const char *check(fb_ctx *c)
{
    return o.pairs < 1  ? "-n must be at least 1"
           : c->corrupt ? "--corrupt-after-write: open writes and reads no data"
                        : NULL;
}

static void run(fb_ctx *c, int rep)
{
    (void)rep;
    MPI_File fh;
    int amode = MPI_MODE_RDWR | (o.create ? MPI_MODE_CREATE : 0);
    fb_remove(c, c->path);
    /* the file exists before the first timed open, created untimed */
    fb_mpi_check(c, MPI_File_open(MPI_COMM_WORLD, c->path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                 "MPI_File_open", c->path);
    fb_mpi_check(c, MPI_File_close(&fh), "MPI_File_close", c->path);
    c->bytes_w = 0;
    fb_phase_begin(c, FB_OPEN_W);
    double opening = 0, closing = 0;
    for (int i = 0; i < o.pairs; i++) {
        double t0 = MPI_Wtime();
        fb_mpi_check(c, MPI_File_open(MPI_COMM_WORLD, c->path, amode, MPI_INFO_NULL, &fh), "MPI_File_open", c->path);
        double t1 = MPI_Wtime();
        fb_mpi_check(c, MPI_File_close(&fh), "MPI_File_close", c->path);
        closing += MPI_Wtime() - t1;
        opening += t1 - t0;
    }
    c->t_local[FB_OPEN_W] = opening;
    c->t_local[FB_CLOSE_W] = closing;
    fb_pass_done(c, c->path, 1);
    fb_discard(c, c->path);
}

const fb_pattern fb_pat_open = {
    .name = "open",
    .summary = "open and close one shared file -n times (the cost HDF5 and many-file workloads pay); no I/O",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
    .no_data = "open",
};
