/*
 * A ferry-unaware program making a known set of MPI-IO calls on one file,
 * for the profiling-library tests (prof.c): it prints, per rank, the calls
 * it made in prof.c's record format, so the test compares what the
 * library saw with what the program did. Exit status 1 if the data read
 * back is not what was written.
 *
 *   t_pmpi FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 1024

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: t_pmpi FILE\n");
        MPI_Finalize();
        return 2;
    }
    char w[N], r[N];
    for (int i = 0; i < N; i++)
        w[i] = (char)('a' + (rank * 7 + i) % 26);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    /* block k of this rank at (k * size + rank) * N */
    MPI_Offset blk = (MPI_Offset)N;
    MPI_File_write_at(fh, (0 * size + rank) * blk, w, N, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_write_at(fh, (1 * size + rank) * blk, w, N, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fh, (2 * size + rank) * blk, w, N, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_Request req;
    MPI_File_iwrite_at(fh, (3 * size + rank) * blk, w, N, MPI_CHAR, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* block 4 through a view: one block per rank */
    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_CHAR, 0, 1, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (4 * size + rank) * blk, MPI_CHAR, ft, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, w, N, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    int bad = 0;
    MPI_File_read_all(fh, r, 0, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, 0, r, N, MPI_CHAR, MPI_STATUS_IGNORE); /* view offset 0: block 4 */
    bad |= memcmp(r, w, N) != 0;
    memset(r, 0, N);
    MPI_File_read_at_all(fh, 0, r, N, MPI_CHAR, MPI_STATUS_IGNORE);
    bad |= memcmp(r, w, N) != 0;
    MPI_Offset sz = 0;
    MPI_File_get_size(fh, &sz);
    bad |= sz != 5 * size * blk;
    MPI_File_close(&fh);
    MPI_Type_free(&ft);

    /* what this rank called, in prof.c's order and format */
    char line[512];
    snprintf(line, sizeof line,
             "rank %d: open 1, close 1, set_view 1, write_at 2, write_at_all 1, write_all 1, iwrite_at 1, sync 1, "
             "read_at 1, read_at_all 1, read_all 1, get_size 1",
             rank);
    for (int p = 0; p < size; p++) {
        if (p == rank)
            printf("%s\n", line);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && anybad)
        fprintf(stderr, "t_pmpi: data read back differs from data written\n");
    MPI_Finalize();
    return anybad;
}
