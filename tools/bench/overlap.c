/*
 * Overlap of nonblocking collective I/O with computation (ior --overlap-ms):
 * each transfer is started, the rank computes for a set time, then waits.
 * Three timed passes over the same transfers give the I/O alone (the same
 * calls, blocking), the computation alone, and both; the overlap is the time
 * hidden, (io + compute - both), over the most that could be hidden,
 * min(io, compute). 100 % means the slower of the two hid the other fully;
 * 0 % means they ran one after the other.
 */
#include "bench.h"

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Arithmetic, not sleep: a computing rank keeps its core busy, as a real
 * application would, and makes no MPI call that could progress the I/O. */
double fb_compute(double seconds)
{
    static volatile double sink;
    double x = 1.0, end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
    return sink;
}

/* Takes the slowest rank's time of each pass; rank 0 prints the result. */
void fb_overlap_report(fb_ctx *c, const char *phase, double io, double compute, double both)
{
    double t[3] = {io, compute, both}, m[3];
    MPI_Reduce(t, m, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (c->rank != 0)
        return;
    double lo = m[0] < m[1] ? m[0] : m[1];
    double hidden = m[0] + m[1] - m[2];
    double pct = lo > 0 ? 100.0 * hidden / lo : 0.0;
    printf("  overlap %-5s  io %.4f s  compute %.4f s  both %.4f s  hidden %.4f s  overlap %.0f %%\n", phase,
           m[0], m[1], m[2], hidden, pct);
}
