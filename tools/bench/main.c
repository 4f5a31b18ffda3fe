/*
 * ferry-bench PATTERN [options] [--then PATTERN [options]]...: picks each
 * pattern in turn, runs its repetitions, verifies, reports. Exit status:
 * 0 all verified, 1 a read-back mismatch, 2 a usage error or an unavailable
 * pattern; an I/O error aborts the job.
 */
#include "bench.h"
#include "ferry.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const fb_pattern *const patterns[] = {
    &fb_pat_ior,  &fb_pat_hacc,   &fb_pat_tile, &fb_pat_btio,     &fb_pat_flash,
    &fb_pat_open, &fb_pat_shared, &fb_pat_size, &fb_pat_decouple,
};
#define NPATTERNS ((int)(sizeof patterns / sizeof patterns[0]))

void fb_die(fb_ctx *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ferry-bench %s: rank %d: %s\n", c->pat ? c->pat->name : "", c->rank, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2); /* not reached: MPI_Abort does not return */
}

void fb_mpi_check(fb_ctx *c, int rc, const char *what, const char *path)
{
    if (rc == MPI_SUCCESS)
        return;
    char err[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, err, &n);
    fb_die(c, "%s(%s) failed: %s", what, path, err);
}

void fb_check_count(fb_ctx *c, const MPI_Status *st, MPI_Datatype t, int64_t want, const char *what)
{
    int got = -1;
    MPI_Get_count(st, t, &got);
    if (got != want)
        fb_die(c, "%s moved %d items, expected %lld", what, got, (long long)want);
}

void *fb_alloc(fb_ctx *c, size_t n)
{
    void *p = NULL;
    /* page-aligned, as the large buffers of real codes usually are */
    if (posix_memalign(&p, 4096, n ? n : 1) != 0)
        fb_die(c, "out of memory (%zu bytes)", n);
    return p;
}

int fb_squarest(int n)
{
    int rows = (int)sqrt((double)n);
    while (n % rows)
        rows--;
    return rows;
}

/* The first line of the library's version text, blanks collapsed. */
static void mpi_version(fb_ctx *c)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    size_t o = 0;
    for (int i = 0; i < n && v[i] && v[i] != '\n' && o + 1 < sizeof c->mpi_version; i++) {
        char ch = v[i] == '\t' ? ' ' : v[i];
        if (!(ch == ' ' && (o == 0 || c->mpi_version[o - 1] == ' ')))
            c->mpi_version[o++] = ch;
    }
    while (o && c->mpi_version[o - 1] == ' ')
        o--;
    c->mpi_version[o] = '\0';
}

static int finish(fb_ctx *c, int status)
{
    fb_ferry_cleanup(c);
    MPI_Finalize();
    return status;
}

/* One segment of the command line: PATTERN [options], up to a --then. */
static int run_segment(fb_ctx *c, int argc, char **argv)
{
    static char default_path[256];
    c->pat = NULL;
    c->reps = 1;
    c->json = c->keep = c->corrupt = c->help = 0;
    c->label = NULL;
    for (int i = 0; i < NPATTERNS; i++)
        if (!strcmp(argv[0], patterns[i]->name))
            c->pat = patterns[i];
    if (!c->pat) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench: unknown pattern '%s' (ior, hacc, tile, btio, flash, open, shared, size, decouple; see --help)\n",
                    argv[0]);
        return 2;
    }
    if (c->pat->unavailable) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench: pattern '%s' is not available: %s\n", c->pat->name, c->pat->unavailable);
        return 2;
    }
    if (c->pat->elsewhere) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench: pattern '%s' is its own program: %s\n", c->pat->name, c->pat->elsewhere);
        return 2;
    }
    snprintf(default_path, sizeof default_path, "/tmp/ferry-bench-%s.dat", c->pat->name);
    c->path = default_path;
    if (c->pat->opt_values)
        memcpy(c->pat->opt_values, c->pat->opt_defaults, c->pat->opt_size);
    if (fb_parse_args(c, c->pat->opts, argc - 1, argv + 1) != 0)
        return 2;
    if (c->help) {
        if (c->rank == 0)
            fb_usage(stdout, &c->pat, 1);
        return 0;
    }
    const char *err = c->pat->check ? c->pat->check(c) : NULL;
    if (err) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench %s: %s\n", c->pat->name, err);
        return 2;
    }

    int status = 0;
    for (int rep = 0; rep < c->reps && status == 0; rep++) {
        memset(c->t_local, 0, sizeof c->t_local);
        memset(&c->v, 0, sizeof c->v);
        memset(&c->vf, 0, sizeof c->vf);
        c->v.first_off = c->vf.first_off = INT64_MAX;
        c->did_write = c->did_read = 0;
        c->pat->run(c, rep);
        fb_times_reduce(c);
        if (c->did_read && fb_verify_finish(c) != 0)
            status = 1;
        fb_report(c, rep);
    }
    return status;
}

/* The options before the first pattern: --help and --version. */
static int top_options(int argc, char **argv, int *help)
{
    static const struct option longs[] = {{"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {0}};
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
        if (ch == 'h') {
            *help = 1;
        } else if (ch == 'V') {
            printf("ferry-bench, %s\n", ferry_version());
            return 0;
        } else {
            fprintf(stderr, "ferry-bench: unknown option '%s' before the pattern (see --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    static fb_ctx ctx; /* static: large, and zeroed */
    fb_ctx *c = &ctx;
    int help = 0, done = top_options(argc, argv, &help);
    if (done >= 0)
        return done; /* --version or a bad option: no MPI needed */
    int first = optind;
    /* ferry's statistics cost a reduction at every close: collect them only
     * when a --json record will carry them, so plain runs time plain ferry */
    int records = 0, overlap = 0;
    for (int i = first; i < argc; i++) {
        records |= !strcmp(argv[i], "--json");
        overlap |= !strncmp(argv[i], "--overlap-ms", 12);
    }
    fb_ferry_setup(c, records);
    /* nonblocking collectives overlap only where MPI allows threads; other
     * runs keep the default level, which costs the MPI library less */
    int provided;
    if (overlap)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    mpi_version(c);

    if (help || first >= argc) {
        if (c->rank == 0)
            fb_usage(help ? stdout : stderr, patterns, NPATTERNS);
        return finish(c, help ? 0 : 2);
    }
    /* PATTERN [options] [--then PATTERN [options]]...: several patterns in
     * one job, so a suite pays MPI start-up once; the first failure stops it. */
    int status = 0;
    for (int i = first; i < argc && status == 0;) {
        int j = i;
        while (j < argc && strcmp(argv[j], "--then"))
            j++;
        if (j == i || (j < argc && j + 1 == argc)) {
            if (c->rank == 0)
                fprintf(stderr, "ferry-bench: --then must separate two patterns\n");
            return finish(c, 2);
        }
        status = run_segment(c, j - i, argv + i);
        i = j + 1;
    }
    return finish(c, status);
}
