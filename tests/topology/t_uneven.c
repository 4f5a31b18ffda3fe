/*
 * t_uneven: an uneven writer, as a cosmology checkpoint is one. Ranks own
 * the cells of a px x py x pz decomposition of a box (rank order: x slowest,
 * as a spatial decomposition numbers them); each holds particles in
 * proportion to the density around its cell (a smooth background and two
 * halos), so a few contiguous runs of ranks write several times the mean.
 * Like HACC-IO, each rank writes its particles' 9 variables independently
 * into a variable-major file (all ranks' xx, then all yy, ...).
 *
 * usage: t_uneven FILE [PARTICLES]   (PARTICLES: the background per rank)
 * Rank 0 prints "t_uneven: R ranks wrote B bytes in C calls, busiest rank
 * X times the mean" for the test that replays the run's FERRY_TRACE and
 * FERRY_STATS_JSON records (tests/topology/replay_run.sh).
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVARS 9
static const int var_size[NVARS] = {4, 4, 4, 4, 4, 4, 4, 8, 2}; /* xx yy zz vx vy vz phi pid mask */

/* density at the centre of a cell, the box being [0,1)^3 */
static double density(double x, double y, double z)
{
    static const double halo[2][5] = {{0.2, 0.3, 0.4, 0.08, 6.0}, {0.7, 0.6, 0.5, 0.12, 3.0}};
    double d = 1.0;
    for (int h = 0; h < 2; h++) {
        double dx = x - halo[h][0], dy = y - halo[h][1], dz = z - halo[h][2], s = halo[h][3];
        d += halo[h][4] * exp(-(dx * dx + dy * dy + dz * dz) / (2 * s * s));
    }
    return d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: t_uneven FILE [PARTICLES]\n");
        MPI_Finalize();
        return 2;
    }
    long base = argc > 2 ? atol(argv[2]) : 2048;
    int dims[3] = {0, 0, 0}, c[3];
    MPI_Dims_create(size, 3, dims);
    c[0] = rank / (dims[1] * dims[2]);
    c[1] = rank / dims[2] % dims[1];
    c[2] = rank % dims[2];
    double rho = density((c[0] + 0.5) / dims[0], (c[1] + 0.5) / dims[1], (c[2] + 0.5) / dims[2]);
    long long n = (long long)(base * rho + 0.5), before = 0, total = 0;
    MPI_Exscan(&n, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        before = 0;
    MPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    long long bytes = 0, calls = 0;
    int opened = rc == MPI_SUCCESS, bad = !opened;
    MPI_Offset var0 = 0;
    for (int v = 0; v < NVARS && !bad; v++) {
        size_t len = (size_t)n * var_size[v];
        unsigned char *buf = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++)
            buf[i] = (unsigned char)(rank * 31 + v * 7 + i);
        MPI_Status st;
        if (len > 0) {
            rc = MPI_File_write_at(fh, var0 + (MPI_Offset)before * var_size[v], buf, (int)len, MPI_BYTE, &st);
            bad |= rc != MPI_SUCCESS;
            bytes += (long long)len;
            calls++;
        }
        free(buf);
        var0 += (MPI_Offset)total * var_size[v];
    }
    if (opened && MPI_File_close(&fh) != MPI_SUCCESS)
        bad = 1;
    long long sums[3] = {bytes, calls, bad}, out[3], mx;
    MPI_Allreduce(sums, out, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bytes, &mx, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        if (out[2])
            printf("t_uneven: FAILED (%lld rank(s) could not write)\n", out[2]);
        else
            printf("t_uneven: %d ranks wrote %lld bytes in %lld calls, busiest rank %.2f times the mean\n", size,
                   out[0], out[1], (double)mx * size / (double)out[0]);
    }
    MPI_Finalize();
    return out[2] ? 1 : 0;
}
