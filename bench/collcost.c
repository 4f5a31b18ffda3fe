/*
 * What one small collective costs on this launch: each of barrier, bcast,
 * reduce and allreduce (4 int64) 32 times in a row, twice; rank 0 prints
 * milliseconds per call. Used for docs/cluster.md's table of MPICH's device
 * collectives on the emulated cluster:
 *
 *   mpicc.mpich -O2 bench/collcost.c -o /tmp/collcost
 *   bash scripts/cluster.sh mpirun mpich -n 8 /tmp/collcost
 *   bash scripts/cluster.sh mpirun mpich -n 8 -genv MPIR_CVAR_DEVICE_COLLECTIVES all /tmp/collcost
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#define CALLS 32

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int64_t x[4] = {rank}, y[4];
    for (int rep = 0; rep < 2; rep++) {
        double t[5];
        t[0] = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        t[1] = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Bcast(x, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
        t[2] = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Reduce(x, y, 4, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        t[3] = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Allreduce(x, y, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        t[4] = MPI_Wtime();
        if (rank == 0)
            printf("ms per call: barrier %.1f bcast %.1f reduce %.1f allreduce %.1f\n", (t[1] - t[0]) * 1e3 / CALLS,
                   (t[2] - t[1]) * 1e3 / CALLS, (t[3] - t[2]) * 1e3 / CALLS, (t[4] - t[3]) * 1e3 / CALLS);
    }
    MPI_Finalize();
    return 0;
}
