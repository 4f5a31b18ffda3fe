/*
 * Serving inside MPI_Init (FERRY_DECOUPLE_SERVE=init, `ferry-run
 * --serve-in-init`): data processes then never run a line of the program
 * after MPI_Init. They serve, finalize and exit inside MPI_Init; compute
 * processes return from it with the groups already built. Without that
 * setting these pass through to the MPI library, asking for
 * MPI_THREAD_MULTIPLE when the environment asks for forwarding.
 */
#include "core/chain.h"
#include "core/mpi_lib.h"
#include "core/report.h"
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

/* A profiling tool preloaded after ferry starts in its own MPI_Init (Darshan
 * does): it gets the call, with the thread level ferry needs (core/chain.h). */
typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);
static ferry_chain_slot init_slot, init_thread_slot;

static int init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_thread_fn tool = (init_thread_fn)ferry_chain_resolve("MPI_Init_thread", 1, &init_thread_slot);
    return tool ? tool(argc, argv, required, provided) : PMPI_Init_thread(argc, argv, required, provided);
}

FERRY_PUBLIC int MPI_Init(int *argc, char ***argv)
{
    ferry_mpi_lib_check(); /* the wrong build stops here, with one line */
    int want = ferry_forward_thread_level(MPI_THREAD_SINGLE), provided, rc;
    init_fn tool = (init_fn)ferry_chain_resolve("MPI_Init", 1, &init_slot);
    if (want > MPI_THREAD_SINGLE)
        rc = init_thread(argc, argv, want, &provided);
    else
        rc = tool ? tool(argc, argv) : PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        ferry_report_init(); /* collective: before data processes go serving */
        after_init();
    }
    return rc;
}

FERRY_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    ferry_mpi_lib_check();
    int rc = init_thread(argc, argv, ferry_forward_thread_level(required), provided);
    if (rc == MPI_SUCCESS) {
        ferry_report_init();
        after_init();
    }
    return rc;
}
