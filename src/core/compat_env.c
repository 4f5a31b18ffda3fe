/* Variables of other MPI-IO libraries (compat_env.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mpi.h>

#include "core/compat_env.h"
#include "core/stats.h"

extern char **environ;

/* Those ferry reads (here, in hints_env.c, hints.c, stats.c, aggregators.c). */
static const char *const honoured[] = {
    "ROMIO_HINTS",
    "ROMIO_PRINT_HINTS",
    "MPICH_MPIIO_HINTS",
    "MPICH_MPIIO_HINTS_DISPLAY",
    "MPICH_MPIIO_STATS",
    "MPICH_MPIIO_STATS_FILE",
    "MPICH_MPIIO_TIMERS",
    "MPICH_MPIIO_AGGREGATOR_PLACEMENT_DISPLAY",
    "MPICH_MPIIO_ABORT_ON_RW_ERROR",
    "ROMIO_FSTYPE_FORCE", /* driver/select.c: the prefix of names without one */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int print_hints;
static const char *abort_var;

/* Cray's values are enable/disable; ferry's switches take numbers and words. */
static int on(const char *name)
{
    const char *v = getenv(name);
    return v && (!strcasecmp(v, "enable") || (strcasecmp(v, "disable") && ferry_env_level(name, NULL) > 0));
}

static void read_env(void)
{
    print_hints = ferry_env_level("ROMIO_PRINT_HINTS", NULL) > 0;
    if (getenv("FERRY_ABORT_ON_RW_ERROR"))
        abort_var = on("FERRY_ABORT_ON_RW_ERROR") ? "FERRY_ABORT_ON_RW_ERROR" : NULL;
    else if (on("MPICH_MPIIO_ABORT_ON_RW_ERROR"))
        abort_var = "MPICH_MPIIO_ABORT_ON_RW_ERROR";
}

int ferry_env_romio_print_hints(void)
{
    pthread_once(&once, read_env);
    return print_hints;
}

const char *ferry_env_abort_on_rw_error(void)
{
    pthread_once(&once, read_env);
    return abort_var;
}

const char *ferry_env_stats_file(void)
{
    const char *p = getenv("FERRY_STATS_FILE");
    if (!p || !*p)
        p = getenv("MPICH_MPIIO_STATS_FILE");
    return p && *p ? p : "_cray_mpiio_stats_";
}

static int is_honoured(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof honoured / sizeof honoured[0]; i++)
        if (strlen(honoured[i]) == len && !strncmp(honoured[i], name, len))
            return 1;
    return 0;
}

void ferry_env_compat_announce(FILE *out)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        return;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        size_t len = (size_t)(eq - *e);
        if ((!strncmp(*e, "ROMIO_", 6) || !strncmp(*e, "MPICH_MPIIO_", 12)) && !is_honoured(*e, len))
            fprintf(out, "ferry: %.*s is another MPI-IO's setting; ferry does not read it\n", (int)len, *e);
    }
}
