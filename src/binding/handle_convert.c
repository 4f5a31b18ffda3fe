/* Fortran handles. */
#include "binding/bind.h"

FERRY_BIND(MPI_Fint, MPI_File_c2f, (MPI_File fh), (fh))
{
    return ferry_handles_c2f(fh);
}

FERRY_BIND(MPI_File, MPI_File_f2c, (MPI_Fint fh), (fh))
{
    return ferry_handles_f2c(fh);
}
