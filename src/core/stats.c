/*
 * Statistics: counting, phase timers, strategy decisions, and the
 * collective reduction at close. The tables and the JSON record are
 * written by stats_report.c.
 */
#include <pthread.h>
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

static int64_t counter_of(const ferry_stats *s, int i)
{
    int64_t v;
    memcpy(&v, (const char *)s + ferry_stats_counters[i].offset, sizeof v);
    return v;
}

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

/* "0", "", "no", "false", "off" → 0; a number → that number; else 1. */
static int env_level(const char *name, const char *cray)
{
    const char *s = ferry_env_either(name, cray);
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
    env_stats = env_level("FERRY_STATS", "MPICH_MPIIO_STATS");
    env_timers = env_level("FERRY_TIMERS", "MPICH_MPIIO_TIMERS");
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

int ferry_stats_enabled(void)
{
    return ferry_env_stats() || ferry_env_timers() || ferry_env_stats_json();
}

/* ---- the collective report ---- */

#define NC FERRY_STATS_MAX_COUNTERS
#define NP FERRY_PHASE_COUNT
#define NK FERRY_KIND_COUNT
#define TAG_STRATEGY 0x4645 /* the comm is ferry's private duplicate */

void ferry_stats_report(const ferry_stats *s, MPI_Comm comm, const char *filename,
                        const char *hints_json, int nodes)
{
    if (!s || comm == MPI_COMM_NULL || !ferry_stats_enabled())
        return;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* max of t and of -t (= -min) per phase, and of -rank per kind (=
     * -lowest rank that decided that kind): one Allreduce, every rank
     * needs the last part to know whether it sends its strategy */
    double mx[2 * NP + NK], rmx[2 * NP + NK];
    for (int p = 0; p < NP; p++) {
        mx[p] = s->phase[p];
        mx[NP + p] = -s->phase[p];
    }
    for (int k = 0; k < NK; k++)
        mx[2 * NP + k] = s->strategy_calls[k] > 0 ? -(double)rank : -(double)size;
    MPI_Allreduce(mx, rmx, 2 * NP + NK, MPI_DOUBLE, MPI_MAX, comm);

    /* sums */
    int64_t sum[NC + NK], rsum[NC + NK];
    memset(sum, 0, sizeof sum);
    for (int i = 0; i < ferry_stats_ncounters; i++)
        sum[i] = counter_of(s, i);
    for (int i = 0; i < ferry_stats_ncounters; i++)
        if (strcmp(ferry_stats_counters[i].name, "aggregators") == 0)
            sum[i] = sum[i] != 0; /* count the ranks that aggregated */
    for (int k = 0; k < NK; k++)
        sum[NC + k] = s->strategy_calls[k];
    MPI_Reduce(sum, rsum, NC + NK, MPI_INT64_T, MPI_SUM, 0, comm);
    double tsum[NP];
    MPI_Reduce(s->phase, tsum, NP, MPI_DOUBLE, MPI_SUM, 0, comm);

    /* strategy and reason: those of the lowest rank that decided each kind */
    ferry_stats_total t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < NK; k++) {
        int from = (int)-rmx[2 * NP + k];
        t.from_rank[k] = from < size ? from : -1;
        char msg[24 + FERRY_REASON_LEN];
        if (from <= 0 || from >= size) {
            if (rank == 0 && from == 0) {
                memcpy(t.strategy[k], s->strategy[k], sizeof t.strategy[k]);
                memcpy(t.reason[k], s->reason[k], sizeof t.reason[k]);
            }
            continue;
        }
        if (rank == from) {
            memcpy(msg, s->strategy[k], 24);
            memcpy(msg + 24, s->reason[k], FERRY_REASON_LEN);
            MPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, TAG_STRATEGY + k, comm);
        } else if (rank == 0) {
            MPI_Recv(msg, (int)sizeof msg, MPI_CHAR, from, TAG_STRATEGY + k, comm, MPI_STATUS_IGNORE);
            memcpy(t.strategy[k], msg, 24);
            memcpy(t.reason[k], msg + 24, FERRY_REASON_LEN);
        }
    }
    if (rank != 0)
        return;

    t.ranks = size;
    t.nodes = nodes;
    t.fs = s->fs;
    for (int i = 0; i < ferry_stats_ncounters; i++)
        t.counter[i] = rsum[i];
    for (int k = 0; k < NK; k++) {
        t.calls[k] = rsum[NC + k];
        t.strategy[k][sizeof t.strategy[k] - 1] = '\0';
        t.reason[k][sizeof t.reason[k] - 1] = '\0';
    }
    for (int p = 0; p < NP; p++) {
        t.tmax[p] = rmx[p];
        t.tmin[p] = -rmx[NP + p];
        t.tavg[p] = tsum[p] / size;
    }

    if (ferry_env_stats())
        ferry_stats_print_table(&t, filename, stderr);
    if (ferry_env_timers())
        ferry_stats_print_timers(&t, filename, stderr);
    const char *path = ferry_env_stats_json();
    if (path) {
        char *line = ferry_stats_json_record(&t, filename, hints_json, (long long)time(NULL));
        int rc = line ? ferry_stats_append(path, line) : -12;
        if (rc != 0)
            fprintf(stderr, "ferry: FERRY_STATS_JSON=%s: cannot append the record: %s\n", path,
                    strerror(-rc));
        free(line);
    }
}
