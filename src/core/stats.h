/*
 * Per-file access statistics and phase timers. Every layer counts into the
 * file's ferry_stats; at close the ranks reduce them and rank 0 prints the
 * FERRY_STATS table, the FERRY_TIMERS table, and appends the JSON record that
 * the benchmark, tuner and model read (FERRY_STATS_JSON).
 */
#ifndef FERRY_CORE_STATS_H
#define FERRY_CORE_STATS_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "learn/summary.h"
#include "driver/fsinfo.h"

typedef enum {
    FERRY_PHASE_OPEN = 0,
    FERRY_PHASE_META,     /* metadata exchange: offsets, counts, pattern agreement */
    FERRY_PHASE_EXCHANGE, /* data exchange between ranks */
    FERRY_PHASE_WRITE,    /* file write system calls */
    FERRY_PHASE_READ,     /* file read system calls */
    FERRY_PHASE_SYNC,
    FERRY_PHASE_CLOSE,
    FERRY_PHASE_WAIT,     /* waiting on nonblocking and split operations */
    FERRY_PHASE_COUNT
} ferry_phase;

/* Which kind of call a strategy decision belongs to. */
typedef enum {
    FERRY_KIND_IND_READ = 0,
    FERRY_KIND_IND_WRITE,
    FERRY_KIND_COLL_READ,
    FERRY_KIND_COLL_WRITE,
    FERRY_KIND_COUNT
} ferry_kind;

typedef struct ferry_stats {
    /* calls made by the program */
    int64_t ind_reads, ind_writes, coll_reads, coll_writes;
    int64_t bytes_read, bytes_written;   /* bytes the program moved */
    /* what reached the file system from this rank */
    int64_t sys_reads, sys_writes;
    int64_t sys_read_bytes, sys_write_bytes;
    int64_t rmw_count, rmw_bytes;        /* read-modify-write rounds and bytes read for them */
    int64_t write_gaps, write_gap_bytes; /* holes between the pieces of a write */
    int64_t read_gaps, read_gap_bytes;
    int64_t aggregator;                  /* 1 if this rank aggregated for any collective */
    int64_t sieve_reads, sieve_writes;   /* sieved system calls (subset of sys_*) */
    /* the last strategy chosen for each kind of call, and why */
    char strategy[FERRY_KIND_COUNT][24];
    char reason[FERRY_KIND_COUNT][FERRY_REASON_LEN];
    int64_t strategy_calls[FERRY_KIND_COUNT];
    /* seconds spent per phase on this rank */
    double phase[FERRY_PHASE_COUNT];
    ferry_fs_info fs; /* the file system, as the open found it (the same on every rank) */
    int quiet;        /* a profiling tool's own file: reduced like any other, never shown */
    ferry_learn_summary learn[2]; /* collective reads [0] and writes [1] */
} ferry_stats;

double ferry_now(void);
/* Adds the seconds since t0 to phase p and returns the current time. */
double ferry_stats_phase(ferry_stats *s, ferry_phase p, double t0);
void ferry_stats_strategy(ferry_stats *s, ferry_kind k, const char *strategy, const char *reason);

struct ferry_switches;
/* Collective over comm: reduces every rank's stats; rank 0 prints/appends
 * according to FERRY_STATS, FERRY_TIMERS and FERRY_STATS_JSON as the ranks
 * agreed them (`sw`, core/switches.h; NULL: this process's environment, which
 * must then be alike on every rank), and hands the reduced statistics to the
 * job report's sink when FERRY_REPORT set one. Does nothing when all three
 * are off and there is no sink.
 * `hints_json` is the hints in effect as a JSON object (may be NULL). */
void ferry_stats_report(const ferry_stats *s, MPI_Comm comm, const char *filename,
                        const char *hints_json, int nodes, const struct ferry_switches *sw);

/* A switch: ferry's variable, else the other MPI-IO's (Cray's MPICH_MPIIO_*,
 * ROMIO's); "", "0", "no", "false", "off" -> 0, a number -> that number
 * (at most 100), any other word -> 1. */
int ferry_env_level(const char *name, const char *other);
/* Environment switches, read once. FERRY_STATS (MPICH_MPIIO_STATS) 2 also
 * writes each rank's counters to a CSV file (core/compat_env.h). */
int ferry_env_stats(void);
int ferry_env_timers(void);
const char *ferry_env_stats_json(void);

/* ---- Added by the statistics module ---- */

/* Zeroes s (no strategy recorded yet). */
void ferry_stats_init(ferry_stats *s);
/* 1 if any of FERRY_STATS, FERRY_TIMERS, FERRY_STATS_JSON is set on this
 * rank. ferry_stats_report does nothing (no communication) when it is 0, so
 * these variables must be set alike on every rank (mpiexec -x / -genv). */
int ferry_stats_enabled(void);
/* 1 when the job report (FERRY_REPORT, core/report.h) takes every file's
 * statistics at its close; the same on every rank. */
int ferry_stats_job_report(void);
/* Names used in the JSON record: "open", "meta", ... and "ind_read", ... */
const char *ferry_phase_name(ferry_phase p);
const char *ferry_kind_name(ferry_kind k);

#endif
