/*
 * ferry-tune: finds the hints that make a workload fastest under ferry.
 * It runs a proxy workload (a ferry-bench pattern, given or rebuilt from a
 * FERRY_STATS_JSON record) through the build's mpiexec with libferry
 * preloaded and one candidate configuration in FERRY_HINTS, searches the
 * space of every hint that affects speed (search.c), and writes the best
 * configuration as a FERRY_HINTS_FILE plus a report.
 *
 *   main.c    command line, probes, the run of the search
 *   space.c   the search space: dimensions, values, relevance, hint strings
 *   search.c  the search itself (MPI-free; see search.h)
 *   stat.c    summaries (medians from util/median.c), spreads, the Mann-Whitney test
 *   runner.c  one launch of mpiexec + ferry-bench, its JSON parsed
 *   proxy.c   a FERRY_STATS_JSON record -> a ferry-bench invocation
 *   report.c  the report, the hints file, the samples CSV
 *   compare.c --compare: a hints file against the defaults, held out
 *   jpath.c   members of a JSON document (jansson) by dotted path
 *   store.c   the store of learned choices (the library's own code): list, add
 */
#ifndef FERRY_TUNE_H
#define FERRY_TUNE_H

#include <stdint.h>
#include <stdio.h>

#include "jpath.h"
#include "search.h"

#define TUNE_MAX_VALS 12
#define TUNE_MAX_ARGS 64
#define TUNE_HINT_LEN 1024
#define TUNE_MAX_RANKS 1000000 /* a record's "ranks" (as --ranks N) */

/* ---- what a run measures ---- */

typedef enum { TUNE_METRIC_TOTAL, TUNE_METRIC_WRITE, TUNE_METRIC_READ } tune_metric;
const char *tune_metric_name(tune_metric m);

/* ---- one launch (runner.c) ---- */

typedef struct {
    const char *mpiexec;       /* launcher of the build */
    const char *mpiexec_extra; /* extra launcher flags, blank-separated */
    const char *flavor;        /* "openmpi" or "mpich": how environment is passed */
    const char *bench;         /* ferry-bench */
    const char *libferry;      /* what LD_PRELOAD gets */
    int ranks;
    const char *pattern;
    char *args[TUNE_MAX_ARGS]; /* pattern options, -o included */
    int nargs;
    int reps;                  /* ferry-bench -i per launch */
    int warmup;                /* leading repetitions not counted */
    tune_metric metric;
    const char *fixed;         /* hints every ferry run gets (a proxy's), "" if none */
    const char *tmpdir;
    int verbose;
} tune_run_cfg;

typedef struct {
    int ok;
    double cost;               /* seconds per repetition: median over the counted ones */
    double write_s, read_s;    /* the phases' medians */
    double bytes_w, bytes_r;   /* per repetition */
    int reps;                  /* repetitions counted */
    double wall;               /* seconds the launch took */
    json_t *last;              /* the last JSON line (for the probes) */
    int have_last;
    int refused;               /* ferry-bench refused its arguments (exit status 2): err is its message */
    char err[1024];
} tune_run_out;

/* paths.c: ferry-bench and libferry beside ferry-tune (or as configured);
 * the check prints what is missing and how to give it, and returns -1. */
void tune_paths_default(tune_run_cfg *c);
int tune_paths_check(const tune_run_cfg *c, FILE *err);

/* Launches one run: preload = 0 is native MPI-IO (no ferry, no hints).
 * hints: FERRY_HINTS value ("" for ferry's defaults). Returns 0 or -1 (out->err). */
int tune_run(const tune_run_cfg *c, int preload, const char *hints, double timeout, tune_run_out *out);
void tune_run_out_free(tune_run_out *o);
double tune_wall(void); /* monotonic seconds */
/* Repetitions per launch when --reps is not given: as many as the launch's
 * own start-up costs (3 to 10), from one repetition's cost and the launch's wall time. */
int tune_auto_reps(double cost, double wall);
/* From a signal handler: kills the launch in progress (its process group). */
void tune_run_interrupt(void);
/* The command a user types to repeat a run (FERRY_HINTS_FILE form when hints_file is given). */
void tune_command(const tune_run_cfg *c, int preload, const char *hints, const char *hints_file, char *buf,
                  size_t len);

/* --compare (compare.c): defaults, the hints file and native MPI-IO in
 * rotating order for rounds rounds; prints the medians and ratios to out.
 * run->reps 0: chosen by one launch first. Returns the exit status. */
int tune_compare(tune_run_cfg *run, const char *hints_file, int rounds, int native, FILE *out);

/* ---- the space (space.c) ---- */

/* What the workload does and what the library offers, from the probes. */
typedef struct {
    int ranks, nodes, ppn;
    int coll_w, coll_r, ind_w, ind_r;    /* kinds of calls present */
    int gaps_w, gaps_r;                  /* 1 holes, 0 none, -1 unknown */
    int sieved_w, sieved_r;              /* the default run sieved: 1 some calls, 0 none, -1 it
                                          * did not take the independent path */
    int forward;                         /* the library reports forwarding */
    int topology;                        /* FERRY_TOPOLOGY is set */
    int striped_fs;                      /* Lustre or GPFS under the test file */
    const json_t *defaults;              /* the "hints" object of a default run */
    int have_defaults;
    char chosen_w[96], chosen_r[96];     /* what the default run's strategies chose */
    char reason_w[128], reason_r[128];
    char ferry[128], mpi[256];
    double probe_cost, probe_wall;       /* one repetition; the probe's launch */
} tune_facts;

typedef struct {
    const char *key;
    int nvals;
    char *val[TUNE_MAX_VALS]; /* NULL: not set, ferry's default */
    const char *why;          /* one line for --list */
} tune_dim;

typedef struct {
    int ndims;
    tune_dim dim[TUNE_MAX_DIMS];
    const tune_facts *facts;
    tune_problem pb;          /* ndims, nvals, origin, anchors, order filled */
    char notes[4096];         /* hints left out, and why */
    int origin_is_default;    /* no --only forced a value over ferry's default */
} tune_space;

/* --only KEY[=V1,V2,...] and --exclude KEY, as given */
typedef struct {
    char *only[TUNE_MAX_DIMS];
    int nonly;
    char *exclude[TUNE_MAX_DIMS];
    int nexclude;
} tune_space_opts;

int tune_space_build(tune_space *s, const tune_facts *f, const tune_space_opts *o, char *err, size_t errlen);
void tune_space_free(tune_space *s);
void tune_space_canon(const tune_space *s, int *v);
/* FERRY_HINTS form ("*:k=v:k=v", "" when nothing is set) of point v, with
 * the fixed hints first. */
void tune_space_hints(const tune_space *s, const int *v, const char *fixed, char *buf, size_t len);
/* "k=v k=v" of what v sets ("defaults" when nothing) */
void tune_space_describe(const tune_space *s, const int *v, char *buf, size_t len);
/* The effective default of hint key, as the default run reported it. */
void tune_space_default_value(const tune_facts *f, const char *key, char *buf, size_t len);
int tune_space_set_count(const tune_space *s, const int *v);
void tune_space_print(const tune_space *s, FILE *out);

/* ---- proxies (proxy.c) ---- */

typedef struct {
    int present, coll;
    double calls, bytes;       /* totals over ranks, per open of the file */
    double gaps, gap_bytes;    /* -1: unknown (a collective strategy that does not count them) */
    double piece;              /* mean piece, -1 unknown */
    char strategy[32];
} tune_shape;

typedef struct {
    char pattern[16];
    char *args[TUNE_MAX_ARGS];
    int nargs;
    int ranks;
    tune_metric metric;
    char fixed[512];           /* hints the replay needs, in FERRY_HINTS pair form "k=v:k=v" */
    char record_hints[TUNE_HINT_LEN]; /* the record's hints, FERRY_HINTS pair form */
    tune_shape target[2];      /* write, read: from the record */
    tune_shape model[2];       /* what the proxy will do */
    double score;
    char file[1024];           /* the file the record describes */
    int records;               /* records it was built from */
    char note[2048];
} tune_proxy;

int tune_proxy_from_file(const char *path, int record, tune_proxy *p, char *err, size_t errlen);
void tune_proxy_free(tune_proxy *p);
/* The shape of one direction of a statistics record (the "ferry_stats" members). */
void tune_shape_of_record(const json_t *rec, int write, tune_shape *s);
void tune_proxy_print(const tune_proxy *p, FILE *out);

/* ---- the report (report.c) ---- */

typedef struct {
    const tune_run_cfg *run;
    const tune_space *space;
    const tune_facts *facts;
    const tune_result *res;
    const tune_options *opts;
    const tune_proxy *proxy;   /* NULL with --pattern */
    int ref_native;            /* index of the native reference, -1 when skipped */
    int ref_default;           /* index of the ferry-defaults reference, -1 when the origin is it */
    int ref_control;           /* index of the A/A control (the defaults again), -1 when skipped */
    const char *hints_out;     /* the hints file written */
    int always_write;
    double bytes;              /* bytes one repetition moves under the metric */
    double budget;
    double spent_total;        /* probes included */
    const char *started;       /* time stamp */
} tune_report;

int tune_write_hints(const tune_report *r, const char *path);
/* 1 when the hints file holds hints (the best beat the defaults, or --always-write). */
int tune_report_has_hints(const tune_report *r);
void tune_print_report(const tune_report *r, FILE *out);
int tune_write_samples(const tune_report *r, const char *path);

/* ---- the store of learned choices (store.c) ---- */

/* Prints the store at path (NULL: there is none); 1 when it cannot be read. */
int tune_store_list(const char *path, FILE *out);
/* Adds the collective strategies of best_hints (a FERRY_HINTS string) for
 * the patterns of the probe run's statistics (ferry-bench --json line), with
 * best_seconds, the search's median per repetition. Returns the entries
 * added, 0 when none applies, -1 when the store could not be written. */
int tune_store_add(const char *path, const char *best_hints, double best_seconds, const json_t *probe, FILE *log);

#endif
