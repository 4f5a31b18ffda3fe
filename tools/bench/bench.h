/*
 * ferry-bench: one MPI program that runs the access patterns of the
 * benchmarks HPC centres already use (IOR, HACC-IO, MPI-Tile-IO, BT-IO,
 * FLASH-IO), verifies every byte it reads back, and reports per-phase times.
 *
 * It uses standard MPI-IO (and HDF5) calls only and is linked against the MPI
 * library alone, so the same binary measures native MPI-IO and ferry
 * (LD_PRELOAD). This header is the contract between the driver (main.c), the
 * shared services (options, timing, verification, JSON) and the patterns.
 */
#ifndef FERRY_BENCH_H
#define FERRY_BENCH_H

#include <jansson.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

/* ---- options (opts.c) ---- */

typedef enum { FB_FLAG, FB_SIZE, FB_INT, FB_STR, FB_CHOICE } fb_kind;

/* One command-line option. Patterns describe their options with a table of
 * these; parsing, usage text and the "config" member of the JSON record all
 * come from the same table, so they cannot drift apart. */
typedef struct {
    const char *flag;            /* "-t" or "--mode" */
    const char *key;             /* name in the JSON config, e.g. "xfer" */
    fb_kind kind;
    void *ptr;                   /* int* (FLAG, INT, CHOICE), int64_t* (SIZE), const char** (STR) */
    const char *help;
    const char *const *choices;  /* FB_CHOICE: NULL-terminated names */
} fb_opt;

/* ---- phases (timing.c) ---- */

enum {
    FB_OPEN_W, FB_WRITE, FB_CLOSE_W,
    FB_OPEN_R, FB_READ, FB_CLOSE_R,
    FB_NPHASE
};

/* ---- verification (verify.c) ---- */

/* The first mismatch a rank saw, and how many it saw. */
typedef struct {
    int64_t bad;        /* mismatching bytes */
    int64_t checked;    /* bytes compared */
    int64_t first_off;  /* file offset of the first mismatch (INT64_MAX if none) */
    unsigned got, want; /* byte values there */
    char where[512];    /* file (or dataset) of that mismatch */
} fb_verify;

/* ---- the run context ---- */

typedef struct fb_ctx fb_ctx;

typedef struct {
    const char *name;
    const char *summary;
    const fb_opt *opts;            /* pattern options, terminated by {0} */
    void *opt_values;              /* the struct the options store into */
    const void *opt_defaults;      /* copied over opt_values before each --then segment */
    size_t opt_size;
    const char *(*check)(fb_ctx *c); /* validate options after parsing: NULL, or what is wrong */
    void (*run)(fb_ctx *c, int rep); /* one repetition: write and/or read, timed */
    const char *unavailable;       /* non-NULL: why this pattern cannot run in this build */
    const char *elsewhere;         /* non-NULL: the program that runs it instead (beside this one) */
    const char *no_data;           /* moves no bytes: its one line, of this name, times open, calls, close */
} fb_pattern;

struct fb_ctx {
    int rank, size;
    const fb_pattern *pat;
    /* common options */
    const char *path;      /* -o: the test file (or file-name prefix with -F) */
    int json, reps, keep, corrupt, help;
    const char *label;
    /* what this rep moves; set by the pattern */
    int did_write, did_read;
    int64_t bytes_w, bytes_r;   /* total over all ranks */
    /* timing: this rank's seconds per phase, and rank 0's maxima */
    double t_local[FB_NPHASE], t_max[FB_NPHASE], t_start;
    fb_verify v;                /* what the pattern read back */
    fb_verify vf;               /* the file itself, read with pread (fb_check_file) */
    /* ferry */
    const char *ferry;          /* ferry_version() when ferry is loaded, else NULL */
    char stats_path[4096];      /* FERRY_STATS_JSON in effect ("" when ferry is absent) */
    int stats_own;              /* stats_path is ours (not the caller's): removed at exit */
    json_t *rec_w, *rec_r;      /* ferry's records for the write and read files */
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
};

/* The members of a pattern that runs: its option table, the struct the
 * options store into with the defaults each --then segment starts from, and
 * its check and run. */
#define FB_PATTERN_RUN(table, values, defaults, check_fn, run_fn)                                                      \
    .opts = (table), .opt_values = &(values), .opt_defaults = &(defaults), .opt_size = sizeof(values),                 \
    .check = (check_fn), .run = (run_fn)

/* opts.c */
int fb_parse_args(fb_ctx *c, const fb_opt *pat_opts, int argc, char **argv);
void fb_usage(FILE *f, const fb_pattern *const *pats, int npats);

/* timing.c: fb_phase_begin synchronises (barrier) then starts the clock;
 * fb_phase_end adds this rank's elapsed time; fb_times_reduce takes the
 * maximum over ranks at the end of a repetition. */
void fb_phase_begin(fb_ctx *c, int phase);
void fb_phase_end(fb_ctx *c, int phase);
void fb_times_reduce(fb_ctx *c);
/* One timed pass of write (or read) over the pattern's file, c->path, opened
 * over MPI_COMM_WORLD with amode: the open, then view (if any; a pattern
 * that counts setting its view as part of opening sets it there), then io,
 * then the close, each in its phase; a failure ends the run. */
typedef void fb_pass_fn(fb_ctx *c, MPI_File fh, int write, void *arg);
void fb_pass(fb_ctx *c, int amode, int write, fb_pass_fn *view, fb_pass_fn *io, void *arg);
/* A pass over path is closed: the report counts its phases, and ferry's
 * record of the file is taken. */
void fb_pass_done(fb_ctx *c, const char *path, int write);

/* verify.c: the data of every pattern is a pure function of (seed, file
 * offset), so any rank can regenerate what any byte of the file must hold. */
uint64_t fb_seed(const char *pattern, int rep, int64_t file_id);
void fb_fill(void *buf, int64_t off, size_t len, uint64_t seed);
void fb_check(fb_verify *v, const void *buf, int64_t off, size_t len, uint64_t seed, const char *where);
void fb_check_bytes(fb_verify *v, const void *got, const void *want, int64_t off, size_t len, const char *where);
int fb_verify_finish(fb_ctx *c);    /* collective; 0 = all bytes matched */
void fb_check_file(fb_ctx *c, const char *path, int64_t size, uint64_t seed, int shared);
/* collective; with --corrupt-after-write, rank 0 flips the byte at offset off of path */
void fb_corrupt(fb_ctx *c, const char *path, int64_t off);
void fb_remove(fb_ctx *c, const char *path);  /* rank 0 removes path (collective barrier after) */
void fb_discard(fb_ctx *c, const char *path); /* fb_remove, unless --keep */

/* json_out.c */
typedef struct {
    char *s;
    size_t len, cap;
} fb_str;
void fb_str_add(fb_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fb_config_text(fb_str *b, const fb_opt *opts);
void fb_report(fb_ctx *c, int rep); /* rank 0: the human lines or the JSON record */

/* ferry.c: ferry detection and its statistics record */
void fb_ferry_setup(fb_ctx *c, int records); /* before MPI_Init; records: a --json run wants ferry's statistics */
void fb_ferry_capture(fb_ctx *c, const char *file, int is_write); /* rank 0, after a close */
void fb_ferry_cleanup(fb_ctx *c);

/* overlap.c: computation between the start and the wait of nonblocking
 * collectives, and the overlap achieved (ior --overlap-ms) */
double fb_compute(double seconds);
void fb_overlap_report(fb_ctx *c, const char *phase, double io, double compute, double both);

/* helpers shared by the patterns (main.c) */
void fb_die(fb_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void fb_mpi_check(fb_ctx *c, int rc, const char *what, const char *path);
void fb_check_count(fb_ctx *c, const MPI_Status *st, MPI_Datatype t, int64_t want, const char *what);
void *fb_alloc(fb_ctx *c, size_t n);
int fb_squarest(int n); /* the largest divisor of n not above sqrt(n): the rows of the squarest grid */

/* the patterns */
extern const fb_pattern fb_pat_ior, fb_pat_hacc, fb_pat_tile, fb_pat_btio, fb_pat_flash, fb_pat_open,
    fb_pat_shared, fb_pat_size, fb_pat_decouple;

#endif
