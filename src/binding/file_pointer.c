/* Individual and shared file pointers. */
#include "binding/bind.h"
#include "core/manage.h"

FERRY_BIND(int, MPI_File_seek, (MPI_File fh, MPI_Offset offset, int whence), (fh, offset, whence))
{
    FERRY_FILE(fh, f, "MPI_File_seek");
    return ferry_raise(f, ferry_file_seek(f, offset, whence), "MPI_File_seek");
}

FERRY_BIND(int, MPI_File_get_position, (MPI_File fh, MPI_Offset *offset), (fh, offset))
{
    FERRY_FILE_OUT(fh, f, offset, "offset", "MPI_File_get_position");
    /* allowed on MPI_MODE_SEQUENTIAL files too: the standard makes only
     * seek_shared and get_position_shared erroneous there */
    *offset = f->fp;
    return MPI_SUCCESS;
}

FERRY_BIND_SETTLED_CALL(MPI_File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence), (fh, offset, whence),
                        ferry_file_seek_shared(f, offset, whence))

FERRY_BIND_GET(MPI_File_get_position_shared, (MPI_File fh, MPI_Offset *offset), (fh, offset), offset, "offset",
               ferry_file_position_shared(f, offset))
