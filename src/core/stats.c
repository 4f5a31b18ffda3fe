/*
 * Statistics on each rank: counting, phase timers, strategy decisions, and
 * the switches that ask for them. stats_report.c reduces them over the
 * ranks at close and writes the tables and the JSON record.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/stats_internal.h"
#include "core/hints.h"

#define C(f, n) {n, offsetof(ferry_stats, f)}
const stats_counter ferry_stats_counters[] = {
    C(ind_reads, "ind_reads"),
    C(ind_writes, "ind_writes"),
    C(coll_reads, "coll_reads"),
    C(coll_writes, "coll_writes"),
    C(bytes_read, "bytes_read"),
    C(bytes_written, "bytes_written"),
    C(sys_reads, "sys_reads"),
    C(sys_writes, "sys_writes"),
    C(sys_read_bytes, "sys_read_bytes"),
    C(sys_write_bytes, "sys_write_bytes"),
    C(rmw_count, "rmw_count"),
    C(rmw_bytes, "rmw_bytes"),
    C(write_gaps, "write_gaps"),
    C(write_gap_bytes, "write_gap_bytes"),
    C(read_gaps, "read_gaps"),
    C(read_gap_bytes, "read_gap_bytes"),
    C(aggregator, "aggregators"),
    C(sieve_reads, "sieve_reads"),
    C(sieve_writes, "sieve_writes"),
};
#undef C
const int ferry_stats_ncounters = (int)(sizeof ferry_stats_counters / sizeof ferry_stats_counters[0]);
_Static_assert(sizeof ferry_stats_counters / sizeof ferry_stats_counters[0] <= FERRY_STATS_MAX_COUNTERS,
               "FERRY_STATS_MAX_COUNTERS too small");

int64_t ferry_stats_total_get(const ferry_stats_total *t, const char *name)
{
    for (int i = 0; i < ferry_stats_ncounters; i++)
        if (strcmp(ferry_stats_counters[i].name, name) == 0)
            return t->counter[i];
    return 0;
}

double ferry_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ferry_stats_phase(ferry_stats *s, ferry_phase p, double t0)
{
    double now = ferry_now();
    if (s && (int)p >= 0 && p < FERRY_PHASE_COUNT && now > t0)
        s->phase[p] += now - t0;
    return now;
}

static void copy_changed(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strnlen(src, cap - 1);
    if (strncmp(dst, src, n) == 0 && dst[n] == '\0')
        return;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void ferry_stats_strategy(ferry_stats *s, ferry_kind k, const char *strategy, const char *reason)
{
    if (!s || (int)k < 0 || k >= FERRY_KIND_COUNT)
        return;
    /* called per I/O call: copy only when the choice changed */
    copy_changed(s->strategy[k], sizeof s->strategy[k], strategy);
    copy_changed(s->reason[k], sizeof s->reason[k], reason);
    s->strategy_calls[k]++;
}

void ferry_stats_init(ferry_stats *s)
{
    if (s)
        memset(s, 0, sizeof *s);
}

const char *ferry_phase_name(ferry_phase p)
{
    static const char *names[FERRY_PHASE_COUNT] = {"open", "meta", "exchange", "write",
                                                   "read", "sync", "close", "wait"};
    return (int)p >= 0 && p < FERRY_PHASE_COUNT ? names[p] : "?";
}

const char *ferry_kind_name(ferry_kind k)
{
    static const char *names[FERRY_KIND_COUNT] = {"ind_read", "ind_write", "coll_read", "coll_write"};
    return (int)k >= 0 && k < FERRY_KIND_COUNT ? names[k] : "?";
}

/* ---- environment, read once ---- */

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_stats, env_timers;
static char *env_json;

int ferry_env_level(const char *name, const char *cray)
{
    const char *s = cray ? ferry_env_either(name, cray) : getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end != s && *end == '\0')
        return v < 0 ? 0 : v > 100 ? 100 : (int)v;
    if (strcasecmp(s, "no") == 0 || strcasecmp(s, "false") == 0 || strcasecmp(s, "off") == 0)
        return 0;
    return 1;
}

static void env_read(void)
{
    /* Cray MPICH's switches, for job scripts written for it; ferry's own win */
    env_stats = ferry_env_level("FERRY_STATS", "MPICH_MPIIO_STATS");
    env_timers = ferry_env_level("FERRY_TIMERS", "MPICH_MPIIO_TIMERS");
    const char *j = getenv("FERRY_STATS_JSON");
    env_json = j && *j ? strdup(j) : NULL;
}

int ferry_env_stats(void)
{
    pthread_once(&env_once, env_read);
    return env_stats;
}

int ferry_env_timers(void)
{
    pthread_once(&env_once, env_read);
    return env_timers;
}

const char *ferry_env_stats_json(void)
{
    pthread_once(&env_once, env_read);
    return env_json;
}

static ferry_stats_sink sink;

void ferry_stats_set_sink(ferry_stats_sink s)
{
    sink = s;
}

ferry_stats_sink ferry_stats_get_sink(void)
{
    return sink;
}

int ferry_stats_job_report(void)
{
    return sink != NULL;
}

int ferry_stats_enabled(void)
{
    return ferry_env_stats() || ferry_env_timers() || ferry_env_stats_json() || sink;
}
