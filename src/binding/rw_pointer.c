/* Data access at the individual and shared file pointers:
 * MPI_File_{read,write}[_all], _shared, _ordered, their nonblocking forms,
 * and the large-count (_c) twins. */
#include "binding/bind.h"

#define PTR_BLOCKING(NAME, Q, CT, WHERE, W, COLL)                                        \
    FERRY_BIND(int, NAME, (MPI_File fh, Q void *buf, CT count, MPI_Datatype datatype,    \
                           MPI_Status *status),                                          \
                           (fh, buf, count, datatype, status))                           \
    {                                                                                    \
        ferry_call c = {WHERE, 0, (void *)buf, count, datatype, W, COLL};                \
        return ferry_bind_io(fh, &c, status, #NAME);                                     \
    }

#define PTR_NONBLOCKING(NAME, Q, CT, WHERE, W, COLL)                                     \
    FERRY_BIND(int, NAME, (MPI_File fh, Q void *buf, CT count, MPI_Datatype datatype,    \
                           MPI_Request *request),                                        \
                           (fh, buf, count, datatype, request))                          \
    {                                                                                    \
        ferry_call c = {WHERE, 0, (void *)buf, count, datatype, W, COLL};                \
        return ferry_bind_iio(fh, &c, request, #NAME);                                   \
    }

#define PTR_FAMILY(SUFFIX, CT)                                                           \
    PTR_BLOCKING(MPI_File_read##SUFFIX, , CT, FERRY_INDIVIDUAL, 0, 0)                    \
    PTR_BLOCKING(MPI_File_write##SUFFIX, const, CT, FERRY_INDIVIDUAL, 1, 0)              \
    PTR_BLOCKING(MPI_File_read_all##SUFFIX, , CT, FERRY_INDIVIDUAL, 0, 1)                \
    PTR_BLOCKING(MPI_File_write_all##SUFFIX, const, CT, FERRY_INDIVIDUAL, 1, 1)          \
    PTR_BLOCKING(MPI_File_read_shared##SUFFIX, , CT, FERRY_SHARED, 0, 0)                 \
    PTR_BLOCKING(MPI_File_write_shared##SUFFIX, const, CT, FERRY_SHARED, 1, 0)           \
    PTR_BLOCKING(MPI_File_read_ordered##SUFFIX, , CT, FERRY_ORDERED, 0, 1)               \
    PTR_BLOCKING(MPI_File_write_ordered##SUFFIX, const, CT, FERRY_ORDERED, 1, 1)         \
    PTR_NONBLOCKING(MPI_File_iread##SUFFIX, , CT, FERRY_INDIVIDUAL, 0, 0)                \
    PTR_NONBLOCKING(MPI_File_iwrite##SUFFIX, const, CT, FERRY_INDIVIDUAL, 1, 0)          \
    PTR_NONBLOCKING(MPI_File_iread_all##SUFFIX, , CT, FERRY_INDIVIDUAL, 0, 1)            \
    PTR_NONBLOCKING(MPI_File_iwrite_all##SUFFIX, const, CT, FERRY_INDIVIDUAL, 1, 1)      \
    PTR_NONBLOCKING(MPI_File_iread_shared##SUFFIX, , CT, FERRY_SHARED, 0, 0)             \
    PTR_NONBLOCKING(MPI_File_iwrite_shared##SUFFIX, const, CT, FERRY_SHARED, 1, 0)

PTR_FAMILY(, int)
#if FERRY_HAVE_C
PTR_FAMILY(_c, MPI_Count)
#endif
