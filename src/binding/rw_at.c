/* Data access at explicit offsets: MPI_File_{read,write}_at[_all], their
 * nonblocking forms, and the large-count (_c) twins. */
#include "binding/bind.h"

/* One entry point. OUT is the blocking form's MPI_Status, which IO
 * (ferry_bind_io) fills, or the nonblocking form's MPI_Request, which IO
 * (ferry_bind_iio) starts. */
#define AT_ACCESS(NAME, Q, CT, W, COLL, OUT_T, OUT, IO)                                                                \
    FERRY_BIND(int, NAME, (MPI_File fh, MPI_Offset offset, Q void *buf, CT count, MPI_Datatype datatype, OUT_T *OUT),  \
               (fh, offset, buf, count, datatype, OUT))                                                                \
    {                                                                                                                  \
        ferry_call c = {FERRY_AT, offset, (void *)buf, count, datatype, W, COLL};                                      \
        return IO(fh, &c, OUT, #NAME);                                                                                 \
    }

#define AT_BLOCKING(NAME, Q, CT, W, COLL) AT_ACCESS(NAME, Q, CT, W, COLL, MPI_Status, status, ferry_bind_io)
#define AT_NONBLOCKING(NAME, Q, CT, W, COLL) AT_ACCESS(NAME, Q, CT, W, COLL, MPI_Request, request, ferry_bind_iio)

/* The read and the write of one kind: FORM is AT_BLOCKING, or
 * AT_NONBLOCKING with I = i for the MPI_File_i* names. */
#define AT_PAIR(FORM, I, KIND, SUFFIX, CT, COLL)                                                                       \
    FORM(MPI_File_##I##read_at##KIND##SUFFIX, , CT, 0, COLL)                                                           \
    FORM(MPI_File_##I##write_at##KIND##SUFFIX, const, CT, 1, COLL)

#define AT_KIND(KIND, SUFFIX, CT, COLL)                                                                                \
    AT_PAIR(AT_BLOCKING, , KIND, SUFFIX, CT, COLL)                                                                     \
    AT_PAIR(AT_NONBLOCKING, i, KIND, SUFFIX, CT, COLL)

#define AT_FAMILY(SUFFIX, CT) AT_KIND(, SUFFIX, CT, 0) AT_KIND(_all, SUFFIX, CT, 1)

AT_FAMILY(, int)
#if FERRY_HAVE_C
AT_FAMILY(_c, MPI_Count)
#endif
