/* The running MPI library against this build's ABI (mpi_lib.h). */
#define _GNU_SOURCE
#include "core/mpi_lib.h"

#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPICH's MPI_MAX_LIBRARY_VERSION_STRING is 8192, Open MPI's 256: the
 * buffer must hold the larger, whichever header this build saw. */
#define VERSION_CAP 16384

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* 1 for the launcher's world rank 0, or when no launcher says */
static int first_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) == 0;
    }
    return 1;
}

static void check(void)
{
    static char version[VERSION_CAP];
    int len = 0;
    if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[VERSION_CAP - 1] = 0;
    int running_ompi = strstr(version, "Open MPI") != NULL;
#ifdef OPEN_MPI
    int built_ompi = 1;
#else
    int built_ompi = 0;
#endif
    if (running_ompi == built_ompi)
        return;
    /* the first line of the version, tabs as spaces */
    version[strcspn(version, "\n")] = 0;
    for (char *p = version; *p; p++)
        if (*p == '\t')
            *p = ' ';
    char self[512] = "libferry";
    Dl_info di;
    if (dladdr((void *)ferry_mpi_lib_check, &di) && di.dli_fname)
        snprintf(self, sizeof self, "%s", di.dli_fname);
    if (first_rank())
        fprintf(stderr, "ferry: error: %s is the %s build, but this program runs %.120s: use the %s build of ferry "
                        "(build/%s/lib/libferry.so)\n",
                self, built_ompi ? "Open MPI" : "MPICH", version, running_ompi ? "Open MPI" : "MPICH",
                running_ompi ? "openmpi" : "mpich");
    fflush(stderr);
    exit(1);
}

void ferry_mpi_lib_check(void)
{
    pthread_once(&once, check);
}
