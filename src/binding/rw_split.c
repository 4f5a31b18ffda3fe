/* Split collectives: MPI_File_*_begin / *_end. The collective runs in begin;
 * end reports it. */
#include "binding/bind.h"

#define BEGIN_AT(NAME, Q, CT, W)                                                          \
    FERRY_BIND(int, NAME, (MPI_File fh, MPI_Offset offset, Q void *buf, CT count,         \
                           MPI_Datatype datatype),                                        \
                           (fh, offset, buf, count, datatype))                            \
    {                                                                                     \
        ferry_call c = {FERRY_AT, offset, (void *)buf, count, datatype, W, 1};            \
        return ferry_bind_begin(fh, &c, #NAME);                                           \
    }

#define BEGIN_PTR(NAME, Q, CT, WHERE, W)                                                  \
    FERRY_BIND(int, NAME, (MPI_File fh, Q void *buf, CT count, MPI_Datatype datatype),    \
                          (fh, buf, count, datatype))                                     \
    {                                                                                     \
        ferry_call c = {WHERE, 0, (void *)buf, count, datatype, W, 1};                    \
        return ferry_bind_begin(fh, &c, #NAME);                                           \
    }

#define END(NAME, Q, W)                                                                   \
    FERRY_BIND(int, NAME, (MPI_File fh, Q void *buf, MPI_Status *status),                  \
                          (fh, buf, status))                                              \
    {                                                                                     \
        (void)buf;                                                                        \
        return ferry_bind_end(fh, W, status, #NAME);                                      \
    }

#define BEGIN_FAMILY(SUFFIX, CT)                                                          \
    BEGIN_AT(MPI_File_read_at_all_begin##SUFFIX, , CT, 0)                                 \
    BEGIN_AT(MPI_File_write_at_all_begin##SUFFIX, const, CT, 1)                           \
    BEGIN_PTR(MPI_File_read_all_begin##SUFFIX, , CT, FERRY_INDIVIDUAL, 0)                 \
    BEGIN_PTR(MPI_File_write_all_begin##SUFFIX, const, CT, FERRY_INDIVIDUAL, 1)           \
    BEGIN_PTR(MPI_File_read_ordered_begin##SUFFIX, , CT, FERRY_ORDERED, 0)                \
    BEGIN_PTR(MPI_File_write_ordered_begin##SUFFIX, const, CT, FERRY_ORDERED, 1)

BEGIN_FAMILY(, int)
#if FERRY_HAVE_C
BEGIN_FAMILY(_c, MPI_Count)
#endif

END(MPI_File_read_at_all_end, , 0)
END(MPI_File_write_at_all_end, const, 1)
END(MPI_File_read_all_end, , 0)
END(MPI_File_write_all_end, const, 1)
END(MPI_File_read_ordered_end, , 0)
END(MPI_File_write_ordered_end, const, 1)
