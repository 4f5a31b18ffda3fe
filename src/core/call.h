/* A data call as the binding describes it to the core. */
#ifndef FERRY_CORE_CALL_H
#define FERRY_CORE_CALL_H

#include "core/file.h"

typedef enum { FERRY_AT, FERRY_INDIVIDUAL, FERRY_SHARED, FERRY_ORDERED } ferry_where;

typedef struct ferry_call {
    ferry_where where;
    MPI_Offset offset;    /* FERRY_AT: in etypes */
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int is_write;
    int collective;       /* every rank of the file calls it */
} ferry_call;

#endif
