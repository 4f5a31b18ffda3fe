/*
 * Phase timing, as IOR does it: every phase starts after a barrier, each rank
 * times its own part with MPI_Wtime, and the phase takes the slowest rank's
 * time. The barrier keeps one phase's stragglers out of the next phase.
 */
#include "bench.h"

void fb_phase_begin(fb_ctx *c, int phase)
{
    (void)phase;
    MPI_Barrier(MPI_COMM_WORLD);
    c->t_start = MPI_Wtime();
}

void fb_phase_end(fb_ctx *c, int phase)
{
    c->t_local[phase] += MPI_Wtime() - c->t_start;
}

/* One reduction per repetition, after all phases, so no extra collective
 * sits between the phases being measured. */
void fb_times_reduce(fb_ctx *c)
{
    MPI_Reduce(c->t_local, c->t_max, FB_NPHASE, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

static void close_timed(fb_ctx *c, MPI_File *fh, int phase)
{
    fb_phase_begin(c, phase);
    fb_mpi_check(c, MPI_File_close(fh), "MPI_File_close", c->path);
    fb_phase_end(c, phase);
}

void fb_pass(fb_ctx *c, int amode, int write, fb_pass_fn *view, fb_pass_fn *io, void *arg)
{
    MPI_File fh;
    fb_phase_begin(c, write ? FB_OPEN_W : FB_OPEN_R);
    fb_mpi_check(c, MPI_File_open(MPI_COMM_WORLD, c->path, amode, MPI_INFO_NULL, &fh), "MPI_File_open", c->path);
    if (view)
        view(c, fh, write, arg);
    fb_phase_end(c, write ? FB_OPEN_W : FB_OPEN_R);
    fb_phase_begin(c, write ? FB_WRITE : FB_READ);
    io(c, fh, write, arg);
    fb_phase_end(c, write ? FB_WRITE : FB_READ);
    close_timed(c, &fh, write ? FB_CLOSE_W : FB_CLOSE_R);
    fb_pass_done(c, c->path, write);
}

void fb_pass_done(fb_ctx *c, const char *path, int write)
{
    if (write)
        c->did_write = 1;
    else
        c->did_read = 1;
    fb_ferry_capture(c, path, write);
}
