/* The environment switches and their agreement at open (switches.h). */
#include "core/switches.h"
#include "core/compat_env.h"
#include "core/machine.h"
#include "core/stats.h"
#include "util/fnv.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[FERRY_SW_COUNT] = {
    "FERRY_STATS", "FERRY_TIMERS", "FERRY_STATS_JSON", "FERRY_HINTS_DISPLAY",
    "FERRY_AGGREGATOR_DISPLAY", "ROMIO_PRINT_HINTS", "FERRY_ASYNC", "FERRY_TOPOLOGY"};

/* FNV-1a, cut to 62 bits: equal texts give equal values on every rank. */
static int64_t digest(const char *s)
{
    if (!s || !*s)
        return 0;
    return (int64_t)(ferry_fnv_str(s) >> 2) | 1;
}

void ferry_switches_local(ferry_switches *s)
{
    memset(s, 0, sizeof *s);
    s->v[FERRY_SW_STATS] = ferry_env_stats();
    s->v[FERRY_SW_TIMERS] = ferry_env_timers();
    s->v[FERRY_SW_JSON] = ferry_env_stats_json() != NULL;
    s->v[FERRY_SW_DISPLAY] = ferry_env_hints_display();
    const char *a = ferry_env_either("FERRY_AGGREGATOR_DISPLAY", "MPICH_MPIIO_AGGREGATOR_PLACEMENT_DISPLAY");
    s->v[FERRY_SW_AGGDISPLAY] = a && atoi(a) > 0;
    s->v[FERRY_SW_ROMIO_PRINT] = ferry_env_romio_print_hints();
    /* opt-in: on Open MPI 4.1 a thread blocked in MPI_Wait starves the
     * worker's collectives (docs/collective.md) */
    const char *e = getenv("FERRY_ASYNC");
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    s->v[FERRY_SW_ASYNC] = e && strcmp(e, "1") == 0 && provided == MPI_THREAD_MULTIPLE;
    s->v[FERRY_SW_TOPOLOGY] = ferry_machine() ? digest(getenv("FERRY_TOPOLOGY")) : 0;
}

int ferry_switches_settle(ferry_switches *s, const int64_t *max, const int64_t *negmax, ferry_hint_warnings *w)
{
    int differ = 0;
    static atomic_int warned[FERRY_SW_COUNT]; /* once per process: the difference stays */
    for (int i = 0; i < FERRY_SW_COUNT; i++) {
        if (max[i] == -negmax[i])
            continue;
        if (!atomic_exchange(&warned[i], 1))
            ferry_hint_warn(w, "%s differs between ranks; it is off on every rank for the files they "
                               "open together", names[i]);
        s->v[i] = 0;
        differ++;
    }
    return differ;
}
