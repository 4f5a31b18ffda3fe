/*
 * The statistics at close: reduced over the ranks, then what rank 0 prints:
 * the FERRY_STATS table, the FERRY_TIMERS table, and the FERRY_STATS_JSON
 * record (schema in docs/hints.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/compat_env.h"
#include "core/stats_internal.h"
#include "core/version.h"
#include "ferry.h"
#include "util/json.h"
#include "util/plural.h"
#include "core/switches.h"
#include "core/say.h"
#include "util/size.h"

/* ---- a growable string ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
    if (b->oom || b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    sb_reserve(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void sb_putc(sbuf *b, char c)
{
    sb_reserve(b, 1);
    if (b->oom)
        return;
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

static double fin(double x) { return isfinite(x) ? x : 0.0; }

static void emit(sbuf *b, FILE *out)
{
    if (!b->oom && b->p) {
        fwrite(b->p, 1, b->len, out);
        fflush(out);
    }
    free(b->p);
}

#define G(name) ferry_stats_total_get(t, name)

/* Control characters would break a table row. */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
}

/* A row with a read and a write column; "-" where a value does not apply. */
static void row_n(sbuf *b, const char *label, int64_t r, int64_t w, int r_na, int w_na)
{
    char rs[32], ws[32];
    snprintf(rs, sizeof rs, "%" PRId64, r);
    snprintf(ws, sizeof ws, "%" PRId64, w);
    sb_printf(b, "  %-34s %14s %14s\n", label, r_na ? "-" : rs, w_na ? "-" : ws);
}

static void row_b(sbuf *b, const char *label, int64_t r, int64_t w, int r_na, int w_na)
{
    char rs[32], ws[32];
    ferry_size_format((double)r, FERRY_SIZE_TENTHS, rs, sizeof rs);
    ferry_size_format((double)w, FERRY_SIZE_TENTHS, ws, sizeof ws);
    sb_printf(b, "  %-34s %14s %14s\n", label, r_na ? "-" : rs, w_na ? "-" : ws);
}

void ferry_stats_print_table(const ferry_stats_total *t, const char *filename, FILE *out)
{
    static const char *kind_label[FERRY_KIND_COUNT] = {"independent read", "independent write",
                                                       "collective read", "collective write"};
    sbuf b = {0};
    int64_t sr = G("sys_reads"), sw = G("sys_writes");
    int64_t rg = G("read_gaps"), wg = G("write_gaps");
    /* the version as every tool gives it: "ferry 0.1.0 (openmpi)" */
    sb_printf(&b, "ferry: statistics for \"%s\", %s\n", filename ? filename : "", ferry_version());
    sb_printf(&b, "  ranks %d, nodes %d, aggregators %" PRId64 " of %d ranks\n", t->ranks, t->nodes,
              G("aggregators"), t->ranks);
    if (t->fs.name[0]) {
        char fs[256];
        ferry_fs_describe(&t->fs, fs, sizeof fs);
        sb_printf(&b, "  file system %s\n", fs);
        ferry_fs_describe_consistency(&t->fs, fs, sizeof fs);
        sb_printf(&b, "  other clients' writes: %s\n", fs);
    }
    sb_printf(&b, "  %-34s %14s %14s\n", "", "read", "write");
    row_n(&b, "independent calls", G("ind_reads"), G("ind_writes"), 0, 0);
    row_n(&b, "collective calls", G("coll_reads"), G("coll_writes"), 0, 0);
    row_b(&b, "bytes moved by the program", G("bytes_read"), G("bytes_written"), 0, 0);
    row_n(&b, "system calls", sr, sw, 0, 0);
    row_b(&b, "  average size", sr ? G("sys_read_bytes") / sr : 0, sw ? G("sys_write_bytes") / sw : 0,
          sr == 0, sw == 0);
    row_b(&b, "  total", G("sys_read_bytes"), G("sys_write_bytes"), 0, 0);
    row_n(&b, "  sieved", G("sieve_reads"), G("sieve_writes"), 0, 0);
    row_n(&b, "read-modify-write rounds", 0, G("rmw_count"), 1, 0);
    row_b(&b, "read-modify-write bytes read", 0, G("rmw_bytes"), 1, 0);
    row_n(&b, "gaps", rg, wg, 0, 0);
    row_b(&b, "  average gap size", rg ? G("read_gap_bytes") / rg : 0, wg ? G("write_gap_bytes") / wg : 0,
          rg == 0, wg == 0);
    sb_printf(&b, "  %-20s %6s  %-14s %s\n", "strategy", "calls", "chosen", "reason");
    for (int k = 0; k < FERRY_KIND_COUNT; k++) {
        char st[sizeof t->strategy[0]], why[FERRY_REASON_LEN + 24];
        snprintf(st, sizeof st, "%s", t->calls[k] > 0 && t->strategy[k][0] ? t->strategy[k] : "-");
        if (t->calls[k] > 0 && t->from_rank[k] > 0)
            snprintf(why, sizeof why, "%s (rank %d)", t->reason[k], t->from_rank[k]);
        else
            snprintf(why, sizeof why, "%s", t->calls[k] > 0 ? t->reason[k] : "");
        printable(st);
        printable(why);
        sb_printf(&b, "    %-18s %6" PRId64 "  %-14s %s", kind_label[k], t->calls[k], st, why);
        while (b.len > 0 && !b.oom && b.p[b.len - 1] == ' ')
            b.p[--b.len] = '\0';
        sb_putc(&b, '\n');
    }
    char learned[2048];
    if (ferry_learn_summary_text(t->learn, t->learn_agreed, learned, sizeof learned) > 0)
        sb_printf(&b, "%s", learned);
    emit(&b, out);
}

void ferry_stats_print_timers(const ferry_stats_total *t, const char *filename, FILE *out)
{
    static const char *label[FERRY_PHASE_COUNT] = {"open",       "metadata exchange", "data exchange",
                                                   "file write", "file read",         "sync",
                                                   "close",      "wait"};
    sbuf b = {0};
    sb_printf(&b, "ferry: timers for \"%s\", %s: seconds over %d rank%s\n", filename ? filename : "",
              ferry_version(), t->ranks, ferry_s(t->ranks));
    sb_printf(&b, "  %-20s %12s %12s %12s\n", "phase", "min", "max", "avg");
    for (int p = 0; p < FERRY_PHASE_COUNT; p++)
        sb_printf(&b, "  %-20s %12.6f %12.6f %12.6f\n", label[p], fin(t->tmin[p]), fin(t->tmax[p]),
                  fin(t->tavg[p]));
    emit(&b, out);
}

static json_t *strategies_json(const ferry_stats_total *t, int *ok)
{
    json_t *all = json_object();
    for (int k = 0; k < FERRY_KIND_COUNT; k++) {
        int used = t->calls[k] > 0 && t->strategy[k][0];
        ferry_json_set(all, ferry_kind_name((ferry_kind)k),
                       json_pack("{s:o,s:o,s:I,s:i}", "strategy", ferry_json_str(used ? t->strategy[k] : "none"),
                                 "reason", ferry_json_str(used ? t->reason[k] : ""), "calls", (json_int_t)t->calls[k],
                                 "rank", used ? t->from_rank[k] : -1),
                       ok);
    }
    return all;
}

static json_t *timers_json(const ferry_stats_total *t, int *ok)
{
    json_t *all = json_object();
    for (int p = 0; p < FERRY_PHASE_COUNT; p++)
        ferry_json_set(all, ferry_phase_name((ferry_phase)p),
                       json_pack("{s:o,s:o,s:o}", "min", ferry_json_real(t->tmin[p], 9), "max",
                                 ferry_json_real(t->tmax[p], 9), "avg", ferry_json_real(t->tavg[p], 9)),
                       ok);
    return all;
}

static json_t *filesystem_json(const ferry_fs_info *fs)
{
    return json_pack("{s:o,s:s,s:s,s:I,s:i,s:s,s:o,s:b,s:b,s:s,s:b,s:b,s:s,s:b,s:b,s:b,s:I,s:i,s:b}", "name",
                     ferry_json_str(fs->name), "type", ferry_fs_type_name(fs->type), "class",
                     ferry_fs_class_name(fs->fs_class), "stripe_unit", (json_int_t)fs->stripe_unit, "stripe_count",
                     fs->stripe_count, "stripe_source", ferry_stripe_source_name(fs->stripe_src), "stripe_how",
                     ferry_json_str(fs->stripe_how), "coherent_locks", fs->coherent_locks, "coherent_cache",
                     fs->coherent_cache, "cache_source", fs->cache_from_hint ? "hint" : "detected", "rmw_safe",
                     fs->rmw_safe, "keeps_pages", fs->keeps_pages, "size_refresh",
                     ferry_size_refresh_name(fs->size_refresh), "close_behind", fs->close_behind, "size_race",
                     fs->size_race, "truncate_stale", fs->truncate_stale, "whole_file_cache",
                     (json_int_t)fs->whole_file_cache, "clients_here", fs->clients_here, "one_client", fs->one_client);
}

/* The caller's hints object; anything that is not one is replaced by {}. */
static json_t *hints_object(const char *hints_json)
{
    json_t *h = hints_json ? json_loads(hints_json, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (json_is_object(h))
        return h;
    json_decref(h);
    return json_object();
}

char *ferry_stats_json_record(const ferry_stats_total *t, const char *filename, const char *hints_json,
                              long long unix_time)
{
    int ok = 1;
    json_t *counters = json_object();
    for (int i = 0; i < ferry_stats_ncounters; i++)
        ferry_json_set(counters, ferry_stats_counters[i].name, json_integer(t->counter[i]), &ok);
    json_t *r = json_pack("{s:i,s:o,s:o,s:o,s:i,s:i,s:o}", "schema", 1, "ferry_version",
                          ferry_json_str(ferry_version_number()), "mpi", ferry_json_str(ferry_version_flavor()), "file",
                          ferry_json_str(filename), "ranks", t->ranks, "nodes", t->nodes, "counters", counters);
    if (!r)
        ok = 0;
    ferry_json_set(r, "strategies", strategies_json(t, &ok), &ok);
    ferry_json_set(r, "timers", timers_json(t, &ok), &ok);
    if (t->fs.name[0])
        ferry_json_set(r, "filesystem", filesystem_json(&t->fs), &ok);
    if (t->learn[0].active || t->learn[1].active)
        ferry_json_set(r, "learning", ferry_learn_summary_object(t->learn, t->learn_agreed), &ok);
    ferry_json_set(r, "hints", hints_object(hints_json), &ok);
    ferry_json_set(r, "time", json_integer(unix_time), &ok);
    char *line = ok ? ferry_json_line(r) : NULL;
    json_decref(r);
    return line;
}

int ferry_stats_append(const char *path, const char *line)
{
    int fd;
    do
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    size_t len = strlen(line), done = 0;
    int rc = 0;
    /* one write(); the loop only finishes a short write */
    while (done < len) {
        ssize_t n = write(fd, line + done, len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* ---- the collective report ---- */

static int64_t counter_of(const ferry_stats *s, int i)
{
    int64_t v;
    memcpy(&v, (const char *)s + ferry_stats_counters[i].offset, sizeof v);
    return v;
}

/* FERRY_STATS=2 (MPICH_MPIIO_STATS=2): this rank's counters and phase times
 * for the file, one CSV row appended to PREFIX.RANK.csv (world rank), the
 * header first when the file is new. No communication. */
static void append_rank_csv(const ferry_stats *s, const char *filename, int ranks)
{
    int wrank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char path[4200];
    snprintf(path, sizeof path, "%s.%d.csv", ferry_env_stats_file(), wrank);
    sbuf b = {0};
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size == 0) {
        sb_printf(&b, "file,rank,ranks");
        for (int i = 0; i < ferry_stats_ncounters; i++)
            sb_printf(&b, ",%s", ferry_stats_counters[i].name);
        for (int p = 0; p < FERRY_PHASE_COUNT; p++)
            sb_printf(&b, ",%s_s", ferry_phase_name((ferry_phase)p));
        sb_putc(&b, '\n');
    }
    sb_putc(&b, '"');
    for (const char *c = filename ? filename : ""; *c; c++) {
        if (*c == '"')
            sb_putc(&b, '"');
        sb_putc(&b, (*c == '\n' || *c == '\r') ? ' ' : *c);
    }
    sb_printf(&b, "\",%d,%d", wrank, ranks);
    for (int i = 0; i < ferry_stats_ncounters; i++)
        sb_printf(&b, ",%" PRId64, counter_of(s, i));
    for (int p = 0; p < FERRY_PHASE_COUNT; p++)
        sb_printf(&b, ",%.9g", fin(s->phase[p]));
    sb_putc(&b, '\n');
    int rc = b.oom ? -ENOMEM : ferry_stats_append(path, b.p);
    free(b.p);
    static int warned;
    if (rc != 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        ferry_say(FERRY_INFO, "rank %d: cannot append statistics to %s: %s", wrank, path, strerror(-rc));
}

#define NC FERRY_STATS_MAX_COUNTERS
#define NP FERRY_PHASE_COUNT
#define NK FERRY_KIND_COUNT
#define TAG_STRATEGY 0x4645 /* the comm is ferry's private duplicate */

void ferry_stats_report(const ferry_stats *s, MPI_Comm comm, const char *filename,
                        const char *hints_json, int nodes, const ferry_switches *sw)
{
    int want_stats = sw ? (int)sw->v[FERRY_SW_STATS] : ferry_env_stats();
    int want_timers = sw ? (int)sw->v[FERRY_SW_TIMERS] : ferry_env_timers();
    const char *path = sw && !sw->v[FERRY_SW_JSON] ? NULL : ferry_env_stats_json();
    /* the job report's sink is set alike on every rank (FERRY_REPORT is
     * agreed over MPI_COMM_WORLD at MPI_Init), whatever the switches */
    ferry_stats_sink sink = ferry_stats_get_sink();
    if (!s || comm == MPI_COMM_NULL || !(want_stats || want_timers || path || sink))
        return;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (want_stats >= 2 && !s->quiet)
        append_rank_csv(s, filename, size);

    /* max of t and of -t (= -min) per phase, and of -rank per kind (=
     * -lowest rank that decided that kind): one Allreduce, every rank
     * needs the last part to know whether it sends its strategy */
    /* and, per direction, of the learning digest and its negation: 53 of
     * its bits, exact in a double, tell whether every rank decided alike */
    double mx[2 * NP + NK + 4], rmx[2 * NP + NK + 4];
    for (int p = 0; p < NP; p++) {
        mx[p] = s->phase[p];
        mx[NP + p] = -s->phase[p];
    }
    for (int k = 0; k < NK; k++)
        mx[2 * NP + k] = s->strategy_calls[k] > 0 ? -(double)rank : -(double)size;
    for (int d = 0; d < 2; d++) {
        mx[2 * NP + NK + 2 * d] = (double)(s->learn[d].digest >> 11);
        mx[2 * NP + NK + 2 * d + 1] = -(double)(s->learn[d].digest >> 11);
    }
    MPI_Allreduce(mx, rmx, 2 * NP + NK + 4, MPI_DOUBLE, MPI_MAX, comm);

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
    if (rank != 0 || s->quiet)
        return;

    t.ranks = size;
    t.nodes = nodes;
    t.fs = s->fs;
    for (int d = 0; d < 2; d++) {
        t.learn[d] = s->learn[d];
        t.learn_agreed[d] = rmx[2 * NP + NK + 2 * d] == -rmx[2 * NP + NK + 2 * d + 1];
    }
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

    if (sink)
        sink(&t, filename);
    if (want_stats)
        ferry_stats_print_table(&t, filename, stderr);
    if (want_timers)
        ferry_stats_print_timers(&t, filename, stderr);
    if (path) {
        char *line = ferry_stats_json_record(&t, filename, hints_json, (long long)time(NULL));
        int rc = line ? ferry_stats_append(path, line) : -12;
        if (rc != 0)
            ferry_say(FERRY_INFO, "FERRY_STATS_JSON=%s: cannot append the record: %s", path, strerror(-rc));
        free(line);
    }
}
