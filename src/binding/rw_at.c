/* Data access at explicit offsets: MPI_File_{read,write}_at[_all], their
 * nonblocking forms, and the large-count (_c) twins. */
#include "binding/bind.h"

#define AT_BLOCKING(NAME, Q, CT, W, COLL)                                                  \
    FERRY_BIND(int, NAME, (MPI_File fh, MPI_Offset offset, Q void *buf, CT count,          \
                           MPI_Datatype datatype, MPI_Status *status),                     \
                           (fh, offset, buf, count, datatype, status))                     \
    {                                                                                      \
        ferry_call c = {FERRY_AT, offset, (void *)buf, count, datatype, W, COLL};          \
        return ferry_bind_io(fh, &c, status, #NAME);                                       \
    }

#define AT_NONBLOCKING(NAME, Q, CT, W, COLL)                                               \
    FERRY_BIND(int, NAME, (MPI_File fh, MPI_Offset offset, Q void *buf, CT count,          \
                           MPI_Datatype datatype, MPI_Request *request),                   \
                           (fh, offset, buf, count, datatype, request))                    \
    {                                                                                      \
        ferry_call c = {FERRY_AT, offset, (void *)buf, count, datatype, W, COLL};          \
        return ferry_bind_iio(fh, &c, request, #NAME);                                     \
    }

AT_BLOCKING(MPI_File_read_at, , int, 0, 0)
AT_BLOCKING(MPI_File_write_at, const, int, 1, 0)
AT_BLOCKING(MPI_File_read_at_all, , int, 0, 1)
AT_BLOCKING(MPI_File_write_at_all, const, int, 1, 1)
AT_NONBLOCKING(MPI_File_iread_at, , int, 0, 0)
AT_NONBLOCKING(MPI_File_iwrite_at, const, int, 1, 0)
AT_NONBLOCKING(MPI_File_iread_at_all, , int, 0, 1)
AT_NONBLOCKING(MPI_File_iwrite_at_all, const, int, 1, 1)

#if FERRY_HAVE_C
AT_BLOCKING(MPI_File_read_at_c, , MPI_Count, 0, 0)
AT_BLOCKING(MPI_File_write_at_c, const, MPI_Count, 1, 0)
AT_BLOCKING(MPI_File_read_at_all_c, , MPI_Count, 0, 1)
AT_BLOCKING(MPI_File_write_at_all_c, const, MPI_Count, 1, 1)
AT_NONBLOCKING(MPI_File_iread_at_c, , MPI_Count, 0, 0)
AT_NONBLOCKING(MPI_File_iwrite_at_c, const, MPI_Count, 1, 0)
AT_NONBLOCKING(MPI_File_iread_at_all_c, , MPI_Count, 0, 1)
AT_NONBLOCKING(MPI_File_iwrite_at_all_c, const, MPI_Count, 1, 1)
#endif
