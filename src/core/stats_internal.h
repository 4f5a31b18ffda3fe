/*
 * Private to the statistics module: the reduced (all-rank) statistics and
 * the printers of the tables and of the JSON record.
 */
#ifndef FERRY_CORE_STATS_INTERNAL_H
#define FERRY_CORE_STATS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/stats.h"

/* The counters of ferry_stats in record order, with their JSON names. */
typedef struct stats_counter {
    const char *name;
    size_t offset;
} stats_counter;
extern const stats_counter ferry_stats_counters[];
extern const int ferry_stats_ncounters;
#define FERRY_STATS_MAX_COUNTERS 32

typedef struct ferry_stats_total {
    int ranks, nodes;
    int64_t counter[FERRY_STATS_MAX_COUNTERS]; /* summed; "aggregators" = ranks with aggregator != 0 */
    int64_t calls[FERRY_KIND_COUNT];           /* strategy decisions, summed */
    int from_rank[FERRY_KIND_COUNT];           /* rank whose strategy is shown, -1: none */
    char strategy[FERRY_KIND_COUNT][24];
    char reason[FERRY_KIND_COUNT][FERRY_REASON_LEN];
    double tmin[FERRY_PHASE_COUNT], tmax[FERRY_PHASE_COUNT], tavg[FERRY_PHASE_COUNT];
    ferry_fs_info fs;                          /* rank 0's; name empty: not known */
    ferry_learn_summary learn[2];              /* rank 0's (reads, writes) */
    int learn_agreed[2];                       /* every rank made the same decisions */
} ferry_stats_total;

/* Value of the counter named `name` in t (0 if unknown). */
int64_t ferry_stats_total_get(const ferry_stats_total *t, const char *name);

/* The FERRY_STATS and FERRY_TIMERS tables, each written with one fwrite. */
void ferry_stats_print_table(const ferry_stats_total *t, const char *filename, FILE *out);
void ferry_stats_print_timers(const ferry_stats_total *t, const char *filename, FILE *out);
/* The JSON record as one line ending in '\n' (malloc'd; NULL on no memory). */
char *ferry_stats_json_record(const ferry_stats_total *t, const char *filename, const char *hints_json,
                              long long unix_time);
/* Appends line to path with one write() on an O_APPEND descriptor. 0 or -errno. */
int ferry_stats_append(const char *path, const char *line);
/* Whoever wants every file's reduced statistics at close (the job report,
 * report.c), on the rank that has them. Set alike on every rank: setting
 * one makes every close reduce. */
typedef void (*ferry_stats_sink)(const ferry_stats_total *t, const char *filename);
void ferry_stats_set_sink(ferry_stats_sink s);
ferry_stats_sink ferry_stats_get_sink(void);

#endif
