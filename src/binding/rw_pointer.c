/* Data access at the individual and shared file pointers:
 * MPI_File_{read,write}[_all], _shared, _ordered, their nonblocking forms,
 * and the large-count (_c) twins. */
#include "binding/bind.h"

/* One entry point. OUT is the blocking form's MPI_Status, which IO
 * (ferry_bind_io) fills, or the nonblocking form's MPI_Request, which IO
 * (ferry_bind_iio) starts. */
#define PTR_ACCESS(NAME, Q, CT, WHERE, W, COLL, OUT_T, OUT, IO)                                                        \
    FERRY_BIND(int, NAME, (MPI_File fh, Q void *buf, CT count, MPI_Datatype datatype, OUT_T *OUT),                     \
               (fh, buf, count, datatype, OUT))                                                                        \
    {                                                                                                                  \
        ferry_call c = {WHERE, 0, (void *)buf, count, datatype, W, COLL};                                              \
        return IO(fh, &c, OUT, #NAME);                                                                                 \
    }

#define PTR_BLOCKING(NAME, Q, CT, WHERE, W, COLL)                                                                      \
    PTR_ACCESS(NAME, Q, CT, WHERE, W, COLL, MPI_Status, status, ferry_bind_io)
#define PTR_NONBLOCKING(NAME, Q, CT, WHERE, W, COLL)                                                                   \
    PTR_ACCESS(NAME, Q, CT, WHERE, W, COLL, MPI_Request, request, ferry_bind_iio)

/* The read and the write of one kind: FORM is PTR_BLOCKING, or
 * PTR_NONBLOCKING with I = i for the MPI_File_i* names. */
#define PTR_PAIR(FORM, I, KIND, SUFFIX, CT, WHERE, COLL)                                                               \
    FORM(MPI_File_##I##read##KIND##SUFFIX, , CT, WHERE, 0, COLL)                                                       \
    FORM(MPI_File_##I##write##KIND##SUFFIX, const, CT, WHERE, 1, COLL)

/* A kind with both forms: MPI_File_{read,write,iread,iwrite}KIND. */
#define PTR_KIND(KIND, SUFFIX, CT, WHERE, COLL)                                                                        \
    PTR_PAIR(PTR_BLOCKING, , KIND, SUFFIX, CT, WHERE, COLL)                                                            \
    PTR_PAIR(PTR_NONBLOCKING, i, KIND, SUFFIX, CT, WHERE, COLL)

/* Ordered access has no nonblocking form. */
#define PTR_FAMILY(SUFFIX, CT)                                                                                         \
    PTR_KIND(, SUFFIX, CT, FERRY_INDIVIDUAL, 0)                                                                        \
    PTR_KIND(_all, SUFFIX, CT, FERRY_INDIVIDUAL, 1)                                                                    \
    PTR_KIND(_shared, SUFFIX, CT, FERRY_SHARED, 0)                                                                     \
    PTR_PAIR(PTR_BLOCKING, , _ordered, SUFFIX, CT, FERRY_ORDERED, 1)

PTR_FAMILY(, int)
#if FERRY_HAVE_C
PTR_FAMILY(_c, MPI_Count)
#endif
