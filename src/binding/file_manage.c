/* Open, close, delete, size, sync, atomicity, group and amode. */
#include "binding/bind.h"
#include "core/manage.h"
#include "core/mpi_lib.h"

#include <string.h>

FERRY_BIND(int, MPI_File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                                MPI_File *fh), (comm, filename, amode, info, fh))
{
    const char *fn = "MPI_File_open";
    /* a program that initialised MPI without ferry's MPI_Init (Open MPI's
     * Fortran calls PMPI_Init) meets the check here, before any handle */
    ferry_mpi_lib_check();
    if (!fh)
        return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "file handle pointer is NULL"), fn);
    *fh = MPI_FILE_NULL;
    if (comm == MPI_COMM_NULL)
        return ferry_raise(NULL, ferry_err(MPI_ERR_COMM, "communicator is MPI_COMM_NULL"), fn);
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return ferry_raise(NULL, ferry_err(MPI_ERR_COMM, "invalid communicator"), fn);
    if (inter)
        return ferry_raise(NULL, ferry_err(MPI_ERR_COMM, "files cannot be opened on an intercommunicator"), fn);
    /* A bad name on one rank must still fail on all: the core agrees on it. */
    int local = MPI_SUCCESS;
    if (!filename)
        local = ferry_err(MPI_ERR_BAD_FILE, "file name is NULL");
    else if (strlen(filename) >= 4096)
        local = ferry_err(MPI_ERR_BAD_FILE, "file name is too long");
    ferry_file *f = NULL;
    int rc = ferry_file_open(comm, filename, amode, info, local, ferry_chain_tool_file(), &f);
    if (rc == MPI_SUCCESS)
        *fh = ferry_handle(f);
    return ferry_raise(NULL, rc, fn);
}

FERRY_BIND(int, MPI_File_close, (MPI_File *fh), (fh))
{
    if (!fh)
        return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "file handle pointer is NULL"), "MPI_File_close");
    FERRY_FILE_SETTLED(*fh, f, "MPI_File_close");
    MPI_Errhandler eh = f->errhandler;
    ferry_async_stop(f);
    int rc = ferry_file_close(f);
    *fh = MPI_FILE_NULL;
    if (rc != MPI_SUCCESS && eh != MPI_ERRORS_RETURN) {
        /* the file is gone: report through the handler it had */
        MPI_Errhandler saved = ferry_errh_null_file();
        ferry_errh_set_null_file(eh);
        ferry_raise(NULL, rc, "MPI_File_close");
        ferry_errh_set_null_file(saved);
    }
    return rc;
}

FERRY_BIND(int, MPI_File_delete, (const char *filename, MPI_Info info), (filename, info))
{
    ferry_mpi_lib_check();
    if (!filename)
        return ferry_raise(NULL, ferry_err(MPI_ERR_BAD_FILE, "file name is NULL"), "MPI_File_delete");
    return ferry_raise(NULL, ferry_file_delete(filename, info), "MPI_File_delete");
}

FERRY_BIND_SETTLED_CALL(MPI_File_set_size, (MPI_File fh, MPI_Offset size), (fh, size), ferry_file_set_size(f, size))
FERRY_BIND_SETTLED_CALL(MPI_File_preallocate, (MPI_File fh, MPI_Offset size), (fh, size),
                        ferry_file_preallocate(f, size))
FERRY_BIND_GET(MPI_File_get_size, (MPI_File fh, MPI_Offset *size), (fh, size), size, "size",
               ferry_file_get_size(f, size))
FERRY_BIND_GET(MPI_File_get_group, (MPI_File fh, MPI_Group *group), (fh, group), group, "group",
               MPI_Comm_group(f->comm, group))

FERRY_BIND(int, MPI_File_get_amode, (MPI_File fh, int *amode), (fh, amode))
{
    FERRY_FILE_OUT(fh, f, amode, "amode", "MPI_File_get_amode");
    *amode = f->amode;
    return MPI_SUCCESS;
}

FERRY_BIND_SETTLED_CALL(MPI_File_sync, (MPI_File fh), (fh), ferry_file_sync(f))
FERRY_BIND_SETTLED_CALL(MPI_File_set_atomicity, (MPI_File fh, int flag), (fh, flag), ferry_file_set_atomicity(f, flag))

FERRY_BIND(int, MPI_File_get_atomicity, (MPI_File fh, int *flag), (fh, flag))
{
    FERRY_FILE_OUT(fh, f, flag, "flag", "MPI_File_get_atomicity");
    *flag = f->atomic;
    return MPI_SUCCESS;
}
