/* Hints through MPI_Info. */
#include "binding/bind.h"
#include "core/manage.h"

FERRY_BIND_SETTLED_CALL(MPI_File_set_info, (MPI_File fh, MPI_Info info), (fh, info), ferry_file_set_info(f, info))

FERRY_BIND_GET(MPI_File_get_info, (MPI_File fh, MPI_Info *info_used), (fh, info_used), info_used, "info",
               ferry_file_get_info(f, info_used))
