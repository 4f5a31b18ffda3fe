/* MPI_Register_datarep: ferry owns the file views, so it owns their datareps. */
#include "binding/bind.h"
#include "core/datarep.h"

FERRY_BIND(int, MPI_Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                                       MPI_Datarep_conversion_function *write_conversion_fn,
                                       MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state),
                                       (datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
                                        extra_state))
{
    return ferry_raise(NULL, ferry_datarep_register(datarep, (void *)read_conversion_fn, (void *)write_conversion_fn,
                                                    dtype_file_extent_fn, extra_state, 0),
                       "MPI_Register_datarep");
}

#if FERRY_HAVE_C
FERRY_BIND(int, MPI_Register_datarep_c, (const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                                         MPI_Datarep_conversion_function_c *write_conversion_fn,
                                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state),
                                         (datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
                                        extra_state))
{
    return ferry_raise(NULL, ferry_datarep_register(datarep, (void *)read_conversion_fn, (void *)write_conversion_fn,
                                                    dtype_file_extent_fn, extra_state, 1),
                       "MPI_Register_datarep_c");
}
#endif
