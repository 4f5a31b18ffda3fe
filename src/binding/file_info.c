/* Hints through MPI_Info. */
#include "binding/bind.h"
#include "core/manage.h"

FERRY_BIND(int, MPI_File_set_info, (MPI_File fh, MPI_Info info), (fh, info))
{
    FERRY_FILE_SETTLED(fh, f, "MPI_File_set_info");
    return ferry_raise(f, ferry_file_set_info(f, info), "MPI_File_set_info");
}

FERRY_BIND(int, MPI_File_get_info, (MPI_File fh, MPI_Info *info_used), (fh, info_used))
{
    FERRY_FILE(fh, f, "MPI_File_get_info");
    if (!info_used)
        return ferry_raise(f, ferry_err(MPI_ERR_ARG, "info pointer is NULL"), "MPI_File_get_info");
    return ferry_raise(f, ferry_file_get_info(f, info_used), "MPI_File_get_info");
}
