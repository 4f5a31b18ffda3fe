/*
 * Independent noncontiguous reads of a 2-D tile: 8-byte elements, tile rows
 * of 1 KiB, one tile per rank in a 2-D process grid (the Tile-IO shape),
 * through a subarray view with romio_ds_read=enable. Ferry-unaware: run it
 * natively and with libferry preloaded (tests/views/bench_sieve.sh).
 *
 *   bench_sieve [-y ROWS] [-r REPS] [-d enable|disable|automatic] [-f FILE]
 * Prints the slowest rank's time per read, the aggregate bandwidth, and the
 * largest CPU time per read of any rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU seconds of this process: on an oversubscribed node the wall clock
 * mostly measures the scheduler, the CPU clock the work. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum { TX = 128 }; /* doubles per tile row: 1 KiB */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rows = 2048, reps = 10;
    const char *ds = "enable", *file = "bench_sieve.dat";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-y"))
            rows = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-d"))
            ds = argv[i + 1];
        else if (!strcmp(argv[i], "-f"))
            file = argv[i + 1];
    }
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int ry = rank / dims[1], rx = rank % dims[1];
    int gsz[2] = {dims[0] * rows, dims[1] * TX}, sub[2] = {rows, TX}, st[2] = {ry * rows, rx * TX};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gsz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    size_t n = (size_t)rows * TX;
    double *tile = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        tile[i] = (double)(rank * 1e9 + (double)i);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_read", (char *)ds);
    MPI_Info_set(info, "romio_ds_write", (char *)ds);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "bench_sieve: cannot open %s\n", file);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the file, written contiguously row block by row block */
    MPI_Offset total = (MPI_Offset)gsz[0] * gsz[1] * 8;
    if (rank == 0) {
        size_t chunk = (size_t)gsz[1] * 8 * 64;
        char *buf = calloc(chunk, 1);
        for (MPI_Offset at = 0; at < total; at += (MPI_Offset)chunk)
            MPI_File_write_at(fh, at, buf, (int)(total - at < (MPI_Offset)chunk ? total - at : (MPI_Offset)chunk),
                              MPI_BYTE, MPI_STATUS_IGNORE);
        free(buf);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", info);
    MPI_File_write_at_all(fh, 0, tile, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);

    double *back = malloc(n * sizeof(double));
    /* one untimed read warms the page cache and the library */
    MPI_File_read_at(fh, 0, back, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    int ok = !memcmp(back, tile, n * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), c0 = cpu_now();
    for (int r = 0; r < reps; r++)
        MPI_File_read_at(fh, 0, back, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    double mine = (MPI_Wtime() - t0) / reps, slowest = 0, cpu = (cpu_now() - c0) / reps, cpumax = 0;
    MPI_Reduce(&cpu, &cpumax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    ok &= !memcmp(back, tile, n * sizeof(double));
    int all_ok = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bench_sieve: ranks %d tile %dx%d doubles ds %s: %.3f ms per read, %.0f MiB/s, cpu %.3f ms per read%s\n",
               size, rows, TX, ds, slowest * 1e3, (double)n * 8 * size / slowest / (1 << 20), cpumax * 1e3,
               all_ok ? "" : " (DATA WRONG)");
    MPI_File_close(&fh);
    if (rank == 0)
        MPI_File_delete(file, MPI_INFO_NULL);
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    free(tile);
    free(back);
    MPI_Finalize();
    return all_ok || rank ? 0 : 1;
}
