/*
 * Writes to a file the file system cannot take (/dev/full: ENOSPC) and says
 * which error class the write returned: "t_rw_error: class NO_SPACE" and
 * exit 0 when it is MPI_ERR_NO_SPACE, exit 1 otherwise.
 *
 *   t_rw_error FILE
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    char buf[4096] = {0};
    if (argc < 2 || MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "t_rw_error: cannot open\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rc = MPI_File_write_at(fh, (MPI_Offset)rank * 4096, buf, 4096, MPI_CHAR, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    MPI_File_close(&fh);
    if (rank == 0)
        printf("t_rw_error: class %s\n", cls == MPI_ERR_NO_SPACE ? "NO_SPACE" : "other");
    MPI_Finalize();
    return cls == MPI_ERR_NO_SPACE ? 0 : 1;
}
