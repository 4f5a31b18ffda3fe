/* File error handlers. The default for files is MPI_ERRORS_RETURN; the
 * handler set on MPI_FILE_NULL applies to opens and becomes each new file's. */
#include "binding/bind.h"

FERRY_BIND(int, MPI_File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn,
                                             MPI_Errhandler *errhandler),
                                             (file_errhandler_fn, errhandler))
{
    return ferry_raise(NULL, ferry_errh_create(file_errhandler_fn, errhandler), "MPI_File_create_errhandler");
}

FERRY_BIND(int, MPI_File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler),
                                         (file, errhandler))
{
    const char *fn = "MPI_File_set_errhandler";
    if (file == MPI_FILE_NULL) {
        if (!ferry_errh_valid(errhandler))
            return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "not a file error handler"), fn);
        ferry_errh_set_null_file(errhandler);
        return MPI_SUCCESS;
    }
    FERRY_FILE(file, f, fn);
    if (!ferry_errh_valid(errhandler))
        return ferry_raise(f, ferry_err(MPI_ERR_ARG, "not a file error handler"), fn);
    f->errhandler = errhandler;
    return MPI_SUCCESS;
}

FERRY_BIND(int, MPI_File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler),
                                         (file, errhandler))
{
    const char *fn = "MPI_File_get_errhandler";
    if (!errhandler)
        return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "errhandler pointer is NULL"), fn);
    if (file == MPI_FILE_NULL) {
        *errhandler = ferry_errh_null_file();
        return MPI_SUCCESS;
    }
    FERRY_FILE(file, f, fn);
    *errhandler = f->errhandler;
    return MPI_SUCCESS;
}

FERRY_BIND(int, MPI_File_call_errhandler, (MPI_File fh, int errorcode), (fh, errorcode))
{
    if (fh == MPI_FILE_NULL) {
        ferry_raise(NULL, errorcode, "MPI_File_call_errhandler");
        return MPI_SUCCESS;
    }
    FERRY_FILE(fh, f, "MPI_File_call_errhandler");
    ferry_raise(f, errorcode, "MPI_File_call_errhandler");
    return MPI_SUCCESS;
}
