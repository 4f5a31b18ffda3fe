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

void fb_open_timed(fb_ctx *c, int amode, MPI_File *fh, int phase)
{
    fb_phase_begin(c, phase);
    fb_mpi_check(c, MPI_File_open(MPI_COMM_WORLD, c->path, amode, MPI_INFO_NULL, fh), "MPI_File_open", c->path);
    fb_phase_end(c, phase);
}

void fb_close_timed(fb_ctx *c, MPI_File *fh, int phase)
{
    fb_phase_begin(c, phase);
    fb_mpi_check(c, MPI_File_close(fh), "MPI_File_close", c->path);
    fb_phase_end(c, phase);
}
