/*
 * Serving inside MPI_Init (FERRY_DECOUPLE_SERVE=init, `ferry-run
 * --serve-in-init`): data processes then never run a line of the program
 * after MPI_Init. They serve, finalize and exit inside MPI_Init; compute
 * processes return from it with the groups already built. Without that
 * setting these pass through to the MPI library, asking for
 * MPI_THREAD_MULTIPLE when the environment asks for forwarding.
 */
#include "core/chain.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/finalize.h"
#include "core/mpi_lib.h"
#include "core/job.h"
#include "core/report.h"
#include "core/say.h"
#include "decouple/decouple.h"
#include "strategy/forward.h"

#include <stdio.h>
#include <stdlib.h>

/* The text of the refusal, once: it names the counts. */
static const char *not_decoupled(void)
{
    static char text[400];
    static int said;
    if (!text[0]) {
        int wsize = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &wsize);
        int m = dc_cfg()->data_procs;
        snprintf(text, sizeof text,
                 "FERRY_DATA_PROCS=%d (ferry-run -dp %d) sets %d of the %d ranks aside as data processes, but the "
                 "program has not called ferry_decouple_init(), so all %d run it: call it right after MPI_Init, or "
                 "run with -dp 0 (docs/decoupled.md)", m, m, m, wsize, wsize);
    }
    int wrank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0 && !said) {
        said = 1;
        ferry_say(FERRY_ERROR, "%s", text);
    }
    return text;
}

/* With data processes asked for, a file opened before the groups exist
 * would be opened by data processes too: such a program does not know it
 * is decoupled, and its ranks would all run as compute processes. */
static int ready_check(void)
{
    return dc_w.ready ? MPI_SUCCESS : ferry_err(MPI_ERR_OTHER, not_decoupled());
}

/* A program that never opens a file still hears it, at MPI_Finalize. */
static void unused_check(void)
{
    if (!dc_w.ready)
        not_decoupled();
}

static void after_init(void)
{
    if (dc_cfg()->data_procs > 0 && !dc_cfg()->serve_in_init) {
        ferry_open_check_set(ready_check);
        ferry_at_finalize(unused_check);
    }
    if (!dc_cfg()->serve_in_init)
        return;
    int rc = ferry_decouple_init();
    if (rc != MPI_SUCCESS) {
        ferry_say(FERRY_INFO, "FERRY_DECOUPLE_SERVE=init: could not set up decoupled I/O");
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
        ferry_job_init(); /* collective, as is the next: before data processes go serving */
        ferry_report_init();
        after_init();
    }
    return rc;
}

FERRY_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    ferry_mpi_lib_check();
    int rc = init_thread(argc, argv, ferry_forward_thread_level(required), provided);
    if (rc == MPI_SUCCESS) {
        ferry_job_init();
        ferry_report_init();
        after_init();
    }
    return rc;
}
