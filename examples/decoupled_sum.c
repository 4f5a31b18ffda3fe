/*
 * decoupled_sum: the summation example of decoupled I/O.
 *
 * Traditional I/O reads every integer into the compute process and adds
 * them there:
 *
 *     MPI_File_read(fh, buf, n, MPI_INT, &st);
 *     for (i = 0; i < n; i++) sum += buf[i];
 *
 * Decoupled, the data processes read next to the data, add, and send back
 * the sum: 8 bytes instead of 4n.
 *
 *     ferry-run -np 2 -dp 1 ./decoupled_sum [file] [ints per process]
 *
 * With -dp 0 (or plain mpiexec) the same program runs the sum locally.
 */
#include <ferry.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* On data processes this serves the compute processes, and returns only
     * when they have all finalized. */
    if (ferry_decouple_init() != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (!ferry_is_data_process()) {
        MPI_Comm comm = ferry_comm_local(); /* compute processes only: not MPI_COMM_WORLD */
        int rank, size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        const char *path = argc > 1 ? argv[1] : "decoupled_sum.dat";
        long long n = argc > 2 ? atoll(argv[2]) : 1 << 20;
        MPI_Offset mine = (MPI_Offset)rank * n * (MPI_Offset)sizeof(int);

        ferry_dfile fh;
        int rc = ferry_decouple_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);

        /* Some data: the write is handed over and returns at once. */
        int *buf = malloc((size_t)n * sizeof *buf);
        for (long long i = 0; i < n; i++)
            buf[i] = (int)((rank * n + i) % 1000);
        ferry_decouple_seek(fh, mine, MPI_SEEK_SET);
        ferry_decouple_write(fh, buf, n, MPI_INT, FERRY_OP_NULL, MPI_STATUS_IGNORE);
        free(buf);
        ferry_decouple_sync(fh); /* every process's data is in the file */

        /* The decoupled read: the sum comes back, not the data. */
        long long sum = 0, total = 0;
        MPI_Status st;
        ferry_decouple_seek(fh, mine, MPI_SEEK_SET);
        rc = ferry_decouple_read(fh, &sum, n, MPI_INT, FERRY_OP_SUM, &st);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            fprintf(stderr, "rank %d: decoupled read failed: %s\n", rank, msg);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
        ferry_decouple_close(&fh);

        long long all = n * size, expect = 0;
        for (long long k = 0; k < all; k++)
            expect += k % 1000;
        int64_t got_bytes = 0, sent_bytes = 0;
        ferry_decouple_traffic(&got_bytes, &sent_bytes);
        if (rank == 0)
            printf("decoupled_sum: %d compute processes, %lld ints: sum %lld (%s); "
                   "rank 0 received %lld bytes for %lld bytes of data\n",
                   size, all, total, total == expect ? "correct" : "WRONG", (long long)got_bytes,
                   n * (long long)sizeof(int));
        if (total != expect)
            MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Finalize();
    return 0;
}
