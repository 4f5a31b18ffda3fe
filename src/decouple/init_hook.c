/*
 * Serving inside MPI_Init (FERRY_DECOUPLE_SERVE=init, `ferry-run
 * --serve-in-init`): data processes then never run a line of the program
 * after MPI_Init. They serve, finalize and exit inside MPI_Init; compute
 * processes return from it with the groups already built. Without that
 * setting these pass through to the MPI library, asking for
 * MPI_THREAD_MULTIPLE when the environment asks for forwarding.
 */
#include "decouple/decouple.h"
#include "strategy/forward.h"

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
    int want = ferry_forward_thread_level(MPI_THREAD_SINGLE), provided;
    int rc = want > MPI_THREAD_SINGLE ? PMPI_Init_thread(argc, argv, want, &provided) : PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}

FERRY_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, ferry_forward_thread_level(required), provided);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}
