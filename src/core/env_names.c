/*
 * The FERRY_ variables the library reads, for "did you mean": a variable
 * of the environment that is one or two edits from one of them (FERRY_STAT,
 * FERRY_HINT_FILE) is a slip that would otherwise change nothing, silently.
 * Other FERRY_ names (the tools', the tests') are left alone.
 */
#include "core/env_names.h"
#include "driver/faults.h"
#include "util/suggest.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern char **environ;

/* every variable the library reads (keep in step with ferry(7); the man_ferry_env
 * test finds the ones src/ reads, env_names_known checks this list has them) */
static const char *const known[] = {
    "FERRY_HINTS",          "FERRY_HINTS_FILE",      "FERRY_HINTS_DISPLAY",    "FERRY_STATS",
    "FERRY_STATS_JSON",     "FERRY_TIMERS",          "FERRY_TRACE",            "FERRY_RANKS_PER_NODE",
    "FERRY_TOPOLOGY",       "FERRY_ASYNC",           "FERRY_AGGREGATOR_DISPLAY", "FERRY_DATA_PROCS",
    "FERRY_DECOUPLE_SERVE", "FERRY_DECOUPLE_TIMEOUT", "FERRY_DECOUPLE_CHUNK",  "FERRY_DECOUPLE_SPLIT",
    "FERRY_DECOUPLE_MESSAGE", "FERRY_DECOUPLE_WINDOW",
    "FERRY_STATS_FILE",     "FERRY_ABORT_ON_RW_ERROR", "FERRY_LEARN_CACHE",     "FERRY_REPORT",
    "FERRY_IOND",
};

int ferry_env_misspelt(char **env, char *out, size_t len)
{
    size_t o = 0;
    int n = 0;
    if (len)
        out[0] = '\0';
    for (char **e = env; e && *e; e++) {
        if (strncmp(*e, "FERRY_", 6) != 0)
            continue;
        char name[64];
        size_t l = strcspn(*e, "=");
        if (l >= sizeof name)
            continue;
        memcpy(name, *e, l);
        name[l] = '\0';
        const char *near = ferry_suggest(name, known, sizeof known / sizeof *known);
        int exact = 0;
        for (size_t i = 0; i < sizeof known / sizeof *known; i++)
            exact |= !strcmp(name, known[i]);
        for (size_t i = 0; ferry_testlib_env_names && ferry_testlib_env_names[i]; i++)
            exact |= !strcmp(name, ferry_testlib_env_names[i]);
        if (!near || exact)
            continue;
        int w = snprintf(out + o, o < len ? len - o : 0, "ferry: warning: %s is not a variable ferry reads; did you "
                                                         "mean %s?\n", name, near);
        if (w > 0)
            o += (size_t)w;
        n++;
    }
    return n;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void check(void)
{
    int wrank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char text[2048];
    if (wrank == 0 && ferry_env_misspelt(environ, text, sizeof text) > 0)
        fputs(text, stderr);
}

void ferry_env_check_once(void)
{
    pthread_once(&once, check);
}
