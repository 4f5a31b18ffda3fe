/* Settings of the decoupled layer, read once from the environment. */
#define _GNU_SOURCE
#include "decouple/decouple.h"

#include "util/size.h"
#include "core/say.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef FERRY_FAULTS
/* FERRY_DECOUPLE_FAULT=die:RANK:N (test library only): that world rank's
 * data process exits at once on its N-th incoming request. */
static int die_rank = -1;
static long die_after, requests;

static void die_on_request(int wrank)
{
    if (wrank == die_rank && ++requests >= die_after) {
        ferry_say(FERRY_INFO, "data process %d: FERRY_DECOUPLE_FAULT: dying now", wrank);
        _exit(3);
    }
}
#endif

/* One line from world rank 0 (every rank reads the same environment). */
static void warn_once(const char *name, const char *value, const char *why, const char *instead)
{
    int init = 0, wrank = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0)
        ferry_say(FERRY_WARN, "%s=\"%.40s\" ignored: %s; %s", name, value, why, instead);
}

/* A size (util/size.h); at least min. */
static int64_t env_size(const char *name, int64_t dflt, int64_t min)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    int64_t v;
    char why[160], instead[64], h[32];
    if (ferry_size_parse(e, &v, why, sizeof why) != 0) {
        ferry_size_format((double)dflt, FERRY_SIZE_SHORT, h, sizeof h);
        snprintf(instead, sizeof instead, "using %s", h);
        warn_once(name, e, why, instead);
        return dflt;
    }
    if (v < min) {
        ferry_size_format((double)min, FERRY_SIZE_SHORT, h, sizeof h);
        snprintf(why, sizeof why, "below the smallest, %s", h);
        snprintf(instead, sizeof instead, "using %s", h);
        warn_once(name, e, why, instead);
        return min;
    }
    return v;
}

/* A whole number of processes from 0 to 2^20. */
static int env_count(const char *name)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (errno || end == e || *end || v < 0 || v > (1L << 20)) {
        warn_once(name, e, "not a whole number from 0 to 1048576", "using 0 (no data processes)");
        return 0;
    }
    return (int)v;
}

static double env_double(const char *name, double dflt)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    double v = strtod(e, NULL);
    return v > 0 ? v : dflt;
}

const dc_config *dc_cfg(void)
{
    static dc_config c;
    static int loaded;
    if (loaded)
        return &c;
    loaded = 1;
    c.data_procs = env_count("FERRY_DATA_PROCS");
    const char *s = getenv("FERRY_DECOUPLE_SERVE");
    c.serve_in_init = s && !strcmp(s, "init");
    c.timeout = env_double("FERRY_DECOUPLE_TIMEOUT", 60.0);
    c.heartbeat = c.timeout / 4 < 1.0 ? c.timeout / 4 : 1.0;
    c.chunk = env_size("FERRY_DECOUPLE_CHUNK", 8 << 20, 4096);
    c.split = env_size("FERRY_DECOUPLE_SPLIT", (int64_t)64 << 20, 1);
    c.message = env_size("FERRY_DECOUPLE_MESSAGE", 16 << 20, 4096);
    if (c.message > (1 << 30))
        c.message = 1 << 30; /* one message stays far below MPI's int count */
    c.window = env_size("FERRY_DECOUPLE_WINDOW", (int64_t)256 << 20, 0);
#ifdef FERRY_FAULTS
    const char *f = getenv("FERRY_DECOUPLE_FAULT");
    if (f && !strncmp(f, "die:", 4)) {
        char *end;
        die_rank = (int)strtol(f + 4, &end, 10);
        die_after = *end == ':' ? strtol(end + 1, NULL, 10) : 1;
        c.on_request = die_on_request;
    }
#endif
    return &c;
}

double dc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void dc_backoff(int *idle)
{
    /* a few quick polls first: a reply that is nearly there costs no sleep */
    if (++*idle < 32)
        return;
    int us = *idle < 64 ? 20 : *idle < 256 ? 100 : 1000;
    struct timespec t = {0, us * 1000L};
    nanosleep(&t, NULL);
}
