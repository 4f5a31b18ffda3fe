/* Views: set_view, get_view, get_byte_offset, get_type_extent. */
#include "binding/bind.h"
#include "core/datarep.h"

#include <string.h>

FERRY_BIND_SETTLED_CALL(MPI_File_set_view,
                        (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                         MPI_Info info),
                        (fh, disp, etype, filetype, datarep, info),
                        ferry_view_set(f, disp, etype, filetype, datarep, info))

static int dup_unless_named(MPI_Datatype t, MPI_Datatype *out)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        *out = t;
        return MPI_SUCCESS;
    }
    return MPI_Type_dup(t, out);
}

FERRY_BIND(int, MPI_File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                    MPI_Datatype *filetype, char *datarep),
                                    (fh, disp, etype, filetype, datarep))
{
    FERRY_FILE(fh, f, "MPI_File_get_view");
    if (!disp || !etype || !filetype || !datarep)
        return ferry_raise(f, ferry_err(MPI_ERR_ARG, "an output argument is NULL"), "MPI_File_get_view");
    *disp = f->view.disp;
    int rc = dup_unless_named(f->view.etype, etype);
    if (rc == MPI_SUCCESS)
        rc = dup_unless_named(f->view.filetype, filetype);
    strcpy(datarep, f->view.datarep);
    return ferry_raise(f, rc, "MPI_File_get_view");
}

FERRY_BIND(int, MPI_File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp),
                                          (fh, offset, disp))
{
    FERRY_FILE_OUT(fh, f, disp, "disp", "MPI_File_get_byte_offset");
    if (offset < 0)
        return ferry_raise(f, ferry_err(MPI_ERR_ARG, "offset is negative"), "MPI_File_get_byte_offset");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return ferry_raise(f, ferry_err(MPI_ERR_UNSUPPORTED_OPERATION,
                                        "get_byte_offset is not allowed on MPI_MODE_SEQUENTIAL files"),
                           "MPI_File_get_byte_offset");
    *disp = ferry_view_byte_offset(f, offset);
    return MPI_SUCCESS;
}

static int type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *ext_out, MPI_Count *ext_c,
                       const char *fname)
{
    FERRY_FILE(fh, f, fname);
    if (datatype == MPI_DATATYPE_NULL)
        return ferry_raise(f, ferry_err(MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL"), fname);
    /* the extent in the file: other representations size types their way */
    ferry_rep rep;
    MPI_Datatype ft = datatype;
    int made = 0;
    int rc = ferry_rep_lookup(f->view.datarep, &rep);
    if (rc == MPI_SUCCESS)
        rc = ferry_rep_file_type(&rep, datatype, &ft, &made);
    if (rc != MPI_SUCCESS)
        return ferry_raise(f, rc, fname);
    MPI_Count lb = 0, extent = 0;
    MPI_Type_get_extent_x(ft, &lb, &extent);
    if (made)
        MPI_Type_free(&ft);
    if (ext_out)
        *ext_out = (MPI_Aint)extent;
    if (ext_c)
        *ext_c = extent;
    return MPI_SUCCESS;
}

FERRY_BIND(int, MPI_File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent),
                                          (fh, datatype, extent))
{
    if (!extent)
        return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "extent pointer is NULL"), "MPI_File_get_type_extent");
    return type_extent(fh, datatype, extent, NULL, "MPI_File_get_type_extent");
}

#if FERRY_HAVE_C
FERRY_BIND(int, MPI_File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent),
                                            (fh, datatype, extent))
{
    if (!extent)
        return ferry_raise(NULL, ferry_err(MPI_ERR_ARG, "extent pointer is NULL"), "MPI_File_get_type_extent_c");
    return type_extent(fh, datatype, NULL, extent, "MPI_File_get_type_extent_c");
}
#endif
