/* The running MPI library against this build's ABI (mpi_lib.h). */
#define _GNU_SOURCE
#include "core/mpi_lib.h"
#include "core/say.h"

#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Where the other build's libferry is: both builds lay out a tree of their
 * own side by side, named after their MPI (build/openmpi and build/mpich,
 * PREFIX/openmpi and PREFIX/mpich: cmake/install_dirs.cmake), each with
 * lib/libferry.so. So it is this library's tree with the other MPI's name,
 * installed or in a build directory alike. 1 if a file is there. */
static int other_build(const char *self, int want_ompi, char *out, size_t cap)
{
    char real[PATH_MAX];
    const char *mine = want_ompi ? "mpich" : "openmpi", *theirs = want_ompi ? "openmpi" : "mpich";
    snprintf(out, cap, "the %s tree beside this one: %s/lib/libferry.so", theirs, theirs);
    if (!realpath(self, real))
        return 0;
    char *lib = strrchr(real, '/'); /* .../TREE/lib/libferry.so.N */
    if (!lib)
        return 0;
    *lib = '\0';
    char *tree = strrchr(real, '/');
    if (!tree || strcmp(tree, "/lib"))
        return 0;
    *tree = '\0';
    char *name = strrchr(real, '/');
    name = name ? name + 1 : real;
    char *at = strstr(name, mine); /* "mpich", "asan-openmpi", ... */
    if (!at)
        return 0;
    snprintf(out, cap, "%.*s%s%s/lib/libferry.so", (int)(at - real), real, theirs, at + strlen(mine));
    return access(out, R_OK) == 0;
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
    char other[PATH_MAX + 64];
    int found = other_build(self, running_ompi, other, sizeof other);
    if (first_rank()) {
        ferry_say(FERRY_ERROR,
                  "%s is the %s build, but this program runs %.120s: use the %s build of ferry "
                  "(%s%s)",
                  self, built_ompi ? "Open MPI" : "MPICH", version, running_ompi ? "Open MPI" : "MPICH",
                  found ? "" : "not found beside this one, at ", other);
        fflush(stderr);
    } else {
        /* the launcher ends the job at the first rank that exits: rank 0's
         * line must be out before (seen lost in 1 of 10 runs under load);
         * no MPI call can wait for it, since no handle crosses the ABI */
        sleep(5);
    }
    exit(1);
}

void ferry_mpi_lib_check(void)
{
    pthread_once(&once, check);
}
