#include "core/errors.h"
#include "core/file.h"

int ferry_agree(ferry_file *f, int code, const char *elsewhere)
{
    int cls = ferry_err_class(code), all = cls;
    if (f->size > 1)
        MPI_Allreduce(&cls, &all, 1, MPI_INT, MPI_MAX, f->comm);
    if (code != MPI_SUCCESS)
        return code;
    return all == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(all, elsewhere);
}
