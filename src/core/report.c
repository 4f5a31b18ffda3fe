/*
 * The job report at MPI_Finalize (report.h). Each process keeps the reduced
 * statistics of the files whose statistics it printed (rank 0 of each
 * file's communicator); MPI_Finalize gathers them on rank 0 of
 * MPI_COMM_WORLD, which writes the report.
 */
#include "core/report.h"
#include "core/finalize.h"
#include "learn/summary.h"
#include "core/say.h"
#include "ferry.h"
#include "util/fnv.h"
#include "util/plural.h"
#include "util/size.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_LEN 256
#define MAX_KEPT 1024 /* files one process keeps; beyond, the report says how many it left out */

typedef struct kept_file {
    ferry_stats_total t;
    char name[NAME_LEN];
} kept_file;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char target[1024]; /* rank 0's FERRY_REPORT: "" for standard error */
static kept_file *kept;
static int nkept, dropped;

/* At a close, on the rank that has the file's reduced statistics. */
static void ferry_report_note(const ferry_stats_total *t, const char *filename)
{
    pthread_mutex_lock(&lock);
    if (!kept)
        kept = calloc(MAX_KEPT, sizeof *kept);
    if (kept && nkept < MAX_KEPT) {
        kept[nkept].t = *t;
        snprintf(kept[nkept].name, NAME_LEN, "%s", filename ? filename : "");
        nkept++;
    } else {
        dropped++;
    }
    pthread_mutex_unlock(&lock);
}

/* ---- the text ---- */

typedef struct text {
    char *p;
    size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !b->p)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap;
        while (b->len + (size_t)n + 1 > cap)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            free(b->p);
            b->p = NULL;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The basename with each run of digits as '*': "out/ckpt.0007.h5" -> "ckpt.*.h5",
 * the glob FERRY_HINTS matches against a basename. */
static void group_of(const char *name, char *out, size_t cap)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t o = 0;
    for (const char *p = base; *p && o + 2 < cap; p++) {
        if (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)p[1]))
                p++;
            out[o++] = '*';
        } else {
            out[o++] = (unsigned char)*p < 0x20 ? '?' : *p;
        }
    }
    out[o] = '\0';
}

typedef struct group {
    char glob[NAME_LEN];
    int opens, ranks;
    int64_t counter[FERRY_STATS_MAX_COUNTERS];
    double phase[FERRY_PHASE_COUNT]; /* slowest rank, summed over opens */
    const ferry_stats_total *last[2]; /* the last open with collective reads, writes */
    const ferry_learn_summary *learn[2]; /* the open whose pattern had the most calls */
} group;

/* The counter `name` of a summed counter array (in ferry_stats_counters' order). */
static int64_t counter(const int64_t *c, const char *name)
{
    for (int i = 0; i < ferry_stats_ncounters; i++)
        if (!strcmp(ferry_stats_counters[i].name, name))
            return c[i];
    return 0;
}

char *ferry_report_text(const ferry_stats_total *files, const char *const *names, int n, int ranks,
                        const char *version)
{
    text b = {malloc(4096), 0, 4096};
    group *g = calloc(n > 0 ? (size_t)n : 1, sizeof *g);
    int ng = 0;
    if (!g) {
        free(b.p);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        const ferry_stats_total *t = &files[i];
        char glob[NAME_LEN];
        group_of(names[i], glob, sizeof glob);
        group *x = NULL;
        for (int j = 0; j < ng && !x; j++)
            if (!strcmp(g[j].glob, glob))
                x = &g[j];
        if (!x) {
            x = &g[ng++];
            snprintf(x->glob, sizeof x->glob, "%s", glob);
        }
        x->opens++;
        x->ranks = t->ranks > x->ranks ? t->ranks : x->ranks;
        for (int c = 0; c < ferry_stats_ncounters; c++)
            x->counter[c] += t->counter[c];
        for (int p = 0; p < FERRY_PHASE_COUNT; p++)
            x->phase[p] += isfinite(t->tmax[p]) ? t->tmax[p] : 0;
        for (int d = 0; d < 2; d++)
            if (t->calls[d ? FERRY_KIND_COLL_WRITE : FERRY_KIND_COLL_READ] > 0)
                x->last[d] = t;
        for (int d = 0; d < 2; d++)
            if (t->learn[d].active && (!x->learn[d] || t->learn[d].calls > x->learn[d]->calls))
                x->learn[d] = &t->learn[d];
    }
    int64_t tot[FERRY_STATS_MAX_COUNTERS] = {0};
    double ph[FERRY_PHASE_COUNT] = {0};
    for (int j = 0; j < ng; j++) {
        for (int c = 0; c < ferry_stats_ncounters; c++)
            tot[c] += g[j].counter[c];
        for (int p = 0; p < FERRY_PHASE_COUNT; p++)
            ph[p] += g[j].phase[p];
    }
    char r[32], w[32];
    ferry_size_format((double)counter(tot, "bytes_read"), FERRY_SIZE_TENTHS, r, sizeof r);
    ferry_size_format((double)counter(tot, "bytes_written"), FERRY_SIZE_TENTHS, w, sizeof w);
    put(&b, "ferry job report, %s: %d ranks, %d file open%s in %d group%s, %s read, %s written\n",
        version ? version : "ferry", ranks, n, n == 1 ? "" : "s", ng, ng == 1 ? "" : "s", r, w);

    put(&b, "\nfiles (names grouped with digits as *; calls summed over ranks; seconds of the slowest rank, summed over opens)\n");
    put(&b, "  %-24s %5s %5s %11s %11s %13s %13s %9s\n", "files", "opens", "ranks", "read", "written",
        "coll calls r/w", "ind calls r/w", "seconds");
    for (int j = 0; j < ng; j++) {
        double secs = 0;
        for (int p = 0; p < FERRY_PHASE_COUNT; p++)
            secs += g[j].phase[p];
        char cr[32], cw[32];
        const int64_t *gc = g[j].counter;
        snprintf(cr, sizeof cr, "%" PRId64 "/%" PRId64, counter(gc, "coll_reads"), counter(gc, "coll_writes"));
        snprintf(cw, sizeof cw, "%" PRId64 "/%" PRId64, counter(gc, "ind_reads"), counter(gc, "ind_writes"));
        ferry_size_format((double)counter(gc, "bytes_read"), FERRY_SIZE_TENTHS, r, sizeof r);
        ferry_size_format((double)counter(gc, "bytes_written"), FERRY_SIZE_TENTHS, w, sizeof w);
        put(&b, "  %-24s %5d %5d %11s %11s %13s %13s %9.3f\n", g[j].glob, g[j].opens, g[j].ranks, r, w, cr, cw,
            secs);
    }
    if (!ng)
        put(&b, "  none: no file was opened through ferry's MPI_File_open in this job\n");

    put(&b, "\ntime per phase (seconds of the slowest rank, summed over opens)\n ");
    for (int p = 0; p < FERRY_PHASE_COUNT; p++)
        put(&b, " %s %.3f", ferry_phase_name((ferry_phase)p), ph[p]);
    put(&b, "\n");

    put(&b, "\ncollective calls: what ran, and why (the last open of each group)\n");
    int any = 0;
    for (int j = 0; j < ng; j++)
        for (int d = 1; d >= 0; d--) {
            const ferry_stats_total *t = g[j].last[d];
            int k = d ? FERRY_KIND_COLL_WRITE : FERRY_KIND_COLL_READ;
            if (!t)
                continue;
            any = 1;
            const ferry_learn_summary *l = &t->learn[d];
            if (l->active)
                put(&b, "  %s of %s: %s: %s (%" PRId64 " call%s, %" PRId64 " trial%s)\n", d ? "writes" : "reads",
                    g[j].glob, l->chosen, l->why, l->calls, ferry_s(l->calls), l->trials, ferry_s(l->trials));
            else
                put(&b, "  %s of %s: %s (%s)\n", d ? "writes" : "reads", g[j].glob, t->strategy[k], t->reason[k]);
        }
    if (!any)
        put(&b, "  none\n");

    put(&b, "\nrecommendations (each backed by this run's measurements)\n");
    int recs = 0;
    for (int j = 0; j < ng; j++)
        for (int d = 1; d >= 0; d--) {
            const ferry_learn_summary *l = g[j].learn[d];
            if (!l)
                continue;
            char rec[1024];
            if (ferry_learn_recommend(l, d, g[j].glob, rec, sizeof rec) <= 0)
                continue;
            put(&b, "%s", rec);
            recs++;
        }
    if (!recs)
        put(&b, "  none: no measured alternative beat auto's rules by %.0f%% or more (learning measures "
                "collective patterns that repeat; ferry_learn=explore also tries one option per run for "
                "patterns seen once per run)\n", (FERRY_LEARN_MIN_GAIN - 1) * 100);
    free(g);
    return b.p;
}

/* ---- at MPI_Finalize ---- */

static void write_report(const kept_file *all, int total, int lost, int ranks)
{
    ferry_stats_total *t = calloc(total > 0 ? (size_t)total : 1, sizeof *t);
    const char **names = calloc(total > 0 ? (size_t)total : 1, sizeof *names);
    char *txt = NULL;
    if (t && names) {
        for (int i = 0; i < total; i++) {
            t[i] = all[i].t;
            names[i] = all[i].name;
        }
        txt = ferry_report_text(t, names, total, ranks, ferry_version());
    }
    FILE *out = target[0] ? fopen(target, "w") : stderr;
    if (!out) {
        ferry_say(FERRY_WARN, "FERRY_REPORT=%s: cannot write the job report there; it follows here", target);
        out = stderr;
    }
    fputs(txt ? txt : "ferry job report: out of memory\n", out);
    if (lost)
        fprintf(out, "(%d more file opens were left out of this report)\n", lost);
    if (out != stderr)
        fclose(out);
    free(txt);
    free(t);
    free(names);
}

/* Collective over MPI_COMM_WORLD (every rank registered it at MPI_Init):
 * how many each rank kept, how many rank 0 has room for, the records. */
static void report_at_finalize(void)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_mutex_lock(&lock);
    int mine[2] = {nkept, dropped};
    int *counts = rank == 0 ? calloc((size_t)size * 2, sizeof *counts) : NULL;
    int *takes = rank == 0 ? calloc((size_t)size, sizeof *takes) : NULL;
    int *bytes = rank == 0 ? calloc((size_t)size, sizeof *bytes) : NULL;
    int *displ = rank == 0 ? calloc((size_t)size, sizeof *displ) : NULL;
    int room = rank != 0 || (counts && takes && bytes && displ);
    MPI_Bcast(&room, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0 cannot take part without its arrays */
    if (!room) {
        if (rank == 0)
            ferry_say(FERRY_WARN, "out of memory for the job report");
        free(counts);
        free(takes);
        free(bytes);
        free(displ);
        free(kept);
        kept = NULL;
        nkept = dropped = 0;
        pthread_mutex_unlock(&lock);
        return;
    }
    MPI_Gather(mine, 2, MPI_INT, counts, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0, lost = 0;
    kept_file *all = NULL;
    if (rank == 0) {
        for (int i = 0; i < size; i++) {
            int64_t upto = (int64_t)(total + counts[2 * i]) * (int64_t)sizeof(kept_file);
            takes[i] = upto <= INT32_MAX ? counts[2 * i] : 0; /* a gather counts bytes in an int */
            lost += counts[2 * i] - takes[i] + counts[2 * i + 1];
            displ[i] = total * (int)sizeof(kept_file);
            bytes[i] = takes[i] * (int)sizeof(kept_file);
            total += takes[i];
        }
        all = calloc(total > 0 ? (size_t)total : 1, sizeof *all);
        if (!all)
            room = 0;
    }
    if (rank == 0 && !room) { /* no room for the records: none come */
        memset(takes, 0, (size_t)size * sizeof *takes);
        memset(bytes, 0, (size_t)size * sizeof *bytes);
    }
    int take = 0;
    MPI_Scatter(takes, 1, MPI_INT, &take, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(kept, take * (int)sizeof(kept_file), MPI_BYTE, all, bytes, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(kept);
    kept = NULL;
    nkept = dropped = 0;
    pthread_mutex_unlock(&lock);
    if (rank == 0) {
        if (all && room)
            write_report(all, total, lost, size);
        else
            ferry_say(FERRY_WARN, "out of memory for the job report");
    }
    free(all);
    free(counts);
    free(takes);
    free(bytes);
    free(displ);
}

/* "0", "", "no", "off", "false": off; "1", "yes", "on", "true", "stderr":
 * on, to standard error; anything else: on, to that path. */
static int parse(const char *s, char *path, size_t cap)
{
    path[0] = '\0';
    if (!s || !*s || !strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcasecmp(s, "false"))
        return 0;
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcasecmp(s, "true") ||
        !strcasecmp(s, "stderr"))
        return 1;
    snprintf(path, cap, "%s", s);
    return 1;
}

void ferry_report_init(void)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        return;
    char mine[sizeof target];
    const char *env = getenv("FERRY_REPORT");
    int want = parse(env, mine, sizeof mine);
    int64_t hv = (int64_t)(ferry_fnv_str(want ? env : NULL) >> 2);
    int64_t v[4] = {want, -want, hv, -hv}, r[4];
    MPI_Allreduce(v, r, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (!r[0])
        return; /* nobody asked */
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        memcpy(target, mine, sizeof target);
        if (r[0] != -r[1] || r[2] != -r[3])
            ferry_say(FERRY_WARN,
                      "FERRY_REPORT differs between ranks; the job report is on, written %s%s "
                      "(rank 0's setting)",
                      target[0] ? "to " : "on standard error", target);
    }
    ferry_stats_set_sink(ferry_report_note);
    ferry_at_finalize(report_at_finalize);
}
