/*
 * A program built outside the project against an installed ferry (with
 * pkg-config or CMake's find_package): it calls ferry's API, writes and
 * reads a file through MPI-IO, and prints on rank 0 the version and the
 * library its MPI_File_open came from.
 *
 *   outside FILE
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ferry.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    char w[4096], r[4096];
    memset(w, 'a' + rank % 26, sizeof w);
    MPI_File fh;
    int bad = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != 0;
    if (!bad) {
        bad |= MPI_File_write_at_all(fh, (MPI_Offset)rank * 4096, w, 4096, MPI_CHAR, MPI_STATUS_IGNORE) != 0;
        bad |= MPI_File_read_at_all(fh, (MPI_Offset)rank * 4096, r, 4096, MPI_CHAR, MPI_STATUS_IGNORE) != 0;
        bad |= memcmp(w, r, sizeof w) != 0;
        bad |= MPI_File_close(&fh) != 0;
    }
    Dl_info where;
    void *open_fn = dlsym(RTLD_DEFAULT, "MPI_File_open"); /* the one the program's calls reach */
    if (!open_fn || !dladdr(open_fn, &where))
        where.dli_fname = "?";
    if (rank == 0)
        printf("outside: %s from %s\n", ferry_version(), where.dli_fname);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return anybad;
}
