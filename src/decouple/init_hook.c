/*
 * Serving inside MPI_Init (FERRY_DECOUPLE_SERVE=init, `ferry-run
 * --serve-in-init`): data processes then never run a line of the program
 * after MPI_Init. They serve, finalize and exit inside MPI_Init; compute
 * processes return from it with the groups already built. Without that
 * setting these are plain pass-throughs to the MPI library.
 */
#include "decouple/decouple.h"

#include <stdio.h>
#include <stdlib.h>

static void after_init(void)
{
    if (!dc_cfg()->serve_in_init)
        return;
    int rc = ferry_decouple_init();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ferry: FERRY_DECOUPLE_SERVE=init: could not set up decoupled I/O\n");
        return;
    }
    if (ferry_is_data_process()) {
        PMPI_Finalize();
        exit(0);
    }
}

FERRY_PUBLIC int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}

FERRY_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}
