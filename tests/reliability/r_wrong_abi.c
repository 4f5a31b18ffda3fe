/*
 * A plain MPI program, built with the OTHER MPI's compiler: the
 * test preloads this build's libferry into it, which is the wrong build for
 * the MPI it runs. ferry must stop it with one line, before any handle
 * crosses the ABI. With "pmpi" it initialises through PMPI_Init, as Open
 * MPI's Fortran binding does (ferry's MPI_Init is not called): the check
 * then happens at MPI_File_open.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "pmpi"))
        PMPI_Init(&argc, &argv);
    else
        MPI_Init(&argc, &argv);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, "r_wrong_abi.dat", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    printf("r_wrong_abi: the program went on (open returned %d)\n", rc);
    MPI_Finalize();
    return 0;
}
