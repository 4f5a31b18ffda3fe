/* MPI_Register_datarep: ferry owns the file views, so it owns their datareps. */
#include "binding/bind.h"
#include "core/datarep.h"

/* The two forms differ in the conversion functions' count type: LARGE is 1
 * for the MPI_Count (_c) one. */
#define REGISTER_DATAREP(NAME, CONV_T, LARGE)                                                                          \
    FERRY_BIND(int, NAME,                                                                                              \
               (const char *datarep, CONV_T *read_conversion_fn, CONV_T *write_conversion_fn,                          \
                MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state),                                 \
               (datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state))                  \
    {                                                                                                                  \
        return ferry_raise(NULL,                                                                                       \
                           ferry_datarep_register(datarep, (void *)read_conversion_fn, (void *)write_conversion_fn,    \
                                                  dtype_file_extent_fn, extra_state, LARGE),                           \
                           #NAME);                                                                                     \
    }

REGISTER_DATAREP(MPI_Register_datarep, MPI_Datarep_conversion_function, 0)
#if FERRY_HAVE_C
REGISTER_DATAREP(MPI_Register_datarep_c, MPI_Datarep_conversion_function_c, 1)
#endif
