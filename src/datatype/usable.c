/* Whether a datatype may be used for data. */
#include "datatype/usable.h"
#include "datatype/flat_internal.h"

int ferry_dt_is_named(MPI_Datatype t)
{
    int comb = -1;
    ferry_dt_combiner(t, &comb);
    return comb == MPI_COMBINER_NAMED;
}

/* MPI has no query for commitment, but MPI_Pack of nothing checks it; the
 * communicator reports that check back instead of aborting. */
int ferry_dt_committed(MPI_Datatype t, MPI_Comm comm)
{
    if (ferry_dt_is_named(t))
        return 1;
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(comm, &eh);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    char none;
    int pos = 0;
    int rc = MPI_Pack(&none, 0, t, &none, 0, &pos, comm);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
    return rc == MPI_SUCCESS;
}
