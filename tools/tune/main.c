/*
 * ferry-tune: the command line, the probes (what the workload does, what
 * ferry's defaults are, whether forwarding exists), and the search run
 * against ferry-bench. See tune.h for the map of the files and
 * docs/tuning.md for the user's side.
 */
#define _GNU_SOURCE
#include "ferry.h"
#include "tune.h"
#include "learn/store.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#ifndef TUNE_MPIEXEC
#define TUNE_MPIEXEC "mpiexec"
#endif
#ifndef TUNE_MPIEXEC_EXTRA
#define TUNE_MPIEXEC_EXTRA ""
#endif
#ifndef TUNE_MPI_FLAVOR
#define TUNE_MPI_FLAVOR "openmpi"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ferry-tune --pattern NAME --ranks N [options] [-- PATTERN OPTIONS]\n"
            "       ferry-tune --from RUN.json [options]\n"
            "  Searches ferry's hints for the fastest configuration of a workload and writes it\n"
            "  as a FERRY_HINTS_FILE. The workload is a ferry-bench pattern (ior, hacc, tile,\n"
            "  btio, flash; its options after --) or a proxy rebuilt from a FERRY_STATS_JSON\n"
            "  record (or ferry-bench --json output) of a real run.\n\n"
            "  --budget T          time budget: 90, 90s, 10m, 1h (default 10m)\n"
            "  --out FILE          hints file to write (default ferry-hints.txt)\n"
            "  --report FILE       the report also into FILE (it always goes to stdout)\n"
            "  --samples FILE      every sample as CSV (for plots)\n"
            "  --metric M          total | write | read seconds per repetition (default total;\n"
            "                      --from: the directions the record has)\n"
            "  --reps N            ferry-bench repetitions per launch, their median is one sample\n"
            "                      (default: as many as the launch costs itself, 3 to 10)\n"
            "  --warmup N          extra leading repetitions per launch, not counted (default 0)\n"
            "  --min-samples N     samples before two configurations are compared (default 3)\n"
            "  --max-samples N     samples per configuration in the descent (default 8)\n"
            "  --alpha A           significance of an improvement (default 0.05)\n"
            "  --min-gain G        smallest improvement worth a hint: 0.03 or 3%% (default 3%%)\n"
            "  --top N             runners-up confirmed beside the best (default 4)\n"
            "  --only KEY[=V1|V2]  search only these hints (repeat); with values: exactly these\n"
            "                      (\"default\" = not set), also for hints outside the space\n"
            "  --exclude KEY       leave a hint out (repeat)\n"
            "  --no-native         skip the native MPI-IO reference\n"
            "  --no-control        skip the A/A control (ferry's defaults measured a second time,\n"
            "                      as if they were another configuration: the noise floor)\n"
            "  --always-write      write the best hints even when they are within noise\n"
            "  --store PATH|off    the store of learned choices the best collective strategy is\n"
            "                      added to, with the hints file (default FERRY_LEARN_CACHE, else\n"
            "                      ~/.cache/ferry/learned.json): the next run starts there\n"
            "  --show-store        print the store of learned choices (--store) and exit\n"
            "  --file PATH         test file (default $TMPDIR/ferry-tune.PID.dat; or -o after --)\n"
            "  --ranks N           ranks (--from: default the record's)\n"
            "  --record N          --from: use record N (1-based) only\n"
            "  --print-proxy       --from: print the proxy and exit\n"
            "  --check             --from: run the proxy once under the record's hints, compare its\n"
            "                      calls, bytes and holes with the record's; exit 1 on a mismatch\n"
            "  --tolerance F       --check: relative tolerance of bytes and hole bytes (default 0.01)\n"
            "  --compare HINTS     no search: run ferry's defaults, the hints file HINTS (as\n"
            "                      FERRY_HINTS_FILE) and native MPI-IO in rotating order, print\n"
            "                      medians and speedups (a held-out check of a tuning result)\n"
            "  --rounds N          --compare: launches of each configuration (default 10)\n"
            "  --list              print the search space (after the probes) and exit\n"
            "  --mpiexec PATH  --mpiexec-extra FLAGS  --bench PATH  --libferry PATH\n"
            "                      override the build's (" TUNE_MPIEXEC "; ferry-bench beside\n"
            "                      ferry-tune, ../lib/libferry.so)\n"
            "  -v, --verbose       print every command    -q, --quiet  no progress lines\n"
            "  --version           print the version\n");
}

/* ---- small parsers ---- */

static int parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    if (!strcmp(end, "") || !strcmp(end, "s"))
        *out = v;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        *out = v * 60;
    else if (!strcmp(end, "h"))
        *out = v * 3600;
    else
        return -1;
    return 0;
}

static int parse_int(const char *s, int lo, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_frac(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s)
        return -1;
    if (*end == '%')
        v /= 100, end++;
    if (*end || v < 0 || v >= 1)
        return -1;
    *out = v;
    return 0;
}

/* ---- the search's callbacks ---- */

typedef struct {
    tune_run_cfg *run;
    tune_space *space;
    int ref_native, ref_default, ref_control;
    int quiet;
    char err[1024];
} tuner;

static const char *last_error(void *ctx) { return ((tuner *)ctx)->err; }

static int measure(void *ctx, const int *v, double timeout, double *cost)
{
    tuner *t = ctx;
    char hints[TUNE_HINT_LEN * 2];
    tune_space_hints(t->space, v, t->run->fixed, hints, sizeof hints);
    tune_run_out o;
    int rc = tune_run(t->run, 1, hints, timeout, &o);
    if (rc == 0)
        *cost = o.cost;
    snprintf(t->err, sizeof t->err, "%s", o.err);
    tune_run_out_free(&o);
    return rc;
}

static int measure_ref(void *ctx, int ref, double timeout, double *cost)
{
    tuner *t = ctx;
    tune_run_out o;
    char fixed[600] = "";
    if (t->run->fixed[0])
        snprintf(fixed, sizeof fixed, "*:%s", t->run->fixed);
    int rc = ref == t->ref_native ? tune_run(t->run, 0, NULL, timeout, &o) : tune_run(t->run, 1, fixed, timeout, &o);
    if (rc == 0)
        *cost = o.cost;
    snprintf(t->err, sizeof t->err, "%s", o.err);
    tune_run_out_free(&o);
    return rc;
}

static void canon(void *ctx, int *v) { tune_space_canon(((tuner *)ctx)->space, v); }
static double now_cb(void *ctx)
{
    (void)ctx;
    return tune_wall();
}
static void describe(void *ctx, const int *v, char *buf, size_t len)
{
    tune_space_describe(((tuner *)ctx)->space, v, buf, len);
}

static void on_signal(int sig)
{
    tune_run_interrupt();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- probes ---- */

static const json_t *stats_record(const json_t *run, int write)
{
    const json_t *r = tj_at(run, write ? "ferry_stats.write" : "ferry_stats.read");
    return json_is_object(r) ? r : NULL;
}

/* What the workload does under ferry's defaults. Keeps the probe's output
 * alive in *keep: facts->defaults points into it. */
static int probe(tune_run_cfg *run, tune_facts *f, tune_run_out *keep, double *bytes, double timeout)
{
    tune_run_cfg one = *run;
    one.reps = 1;
    one.warmup = 0;
    char fixed[600] = "";
    if (run->fixed[0])
        snprintf(fixed, sizeof fixed, "*:%s", run->fixed);
    if (tune_run(&one, 1, fixed, timeout, keep) != 0) {
        if (keep->refused)
            fprintf(stderr, "ferry-tune: ferry-bench refused the workload (the pattern or its options after --): %s\n",
                    keep->err);
        else
            fprintf(stderr, "ferry-tune: the workload does not run under ferry's defaults: %s\n", keep->err);
        return keep->refused ? -2 : -1;
    }
    const json_t *last = keep->last;
    snprintf(f->ferry, sizeof f->ferry, "%s", tj_str(last, "ferry", "ferry not loaded?"));
    snprintf(f->mpi, sizeof f->mpi, "%s", tj_str(last, "mpi", "?"));
    if (!json_is_string(tj_at(last, "ferry"))) {
        fprintf(stderr, "ferry-tune: ferry-bench did not see ferry loaded (LD_PRELOAD=%s)\n", run->libferry);
        return -1;
    }
    const json_t *w = stats_record(last, 1), *r = stats_record(last, 0);
    f->ranks = run->ranks;
    f->nodes = 1;
    for (int k = 0; k < 2; k++) {
        const json_t *rec = k ? r : w;
        if (!rec)
            continue;
        f->nodes = (int)tj_num(rec, "nodes", f->nodes);
        tune_shape s;
        tune_shape_of_record(rec, k == 0, &s);
        int *coll = k ? &f->coll_r : &f->coll_w, *ind = k ? &f->ind_r : &f->ind_w, *gaps = k ? &f->gaps_r : &f->gaps_w;
        *coll = tj_num(rec, k ? "counters.coll_reads" : "counters.coll_writes", 0) > 0;
        *ind = tj_num(rec, k ? "counters.ind_reads" : "counters.ind_writes", 0) > 0;
        *gaps = !s.present ? 0 : s.gaps < 0 ? -1 : s.gaps > 0;
        /* known only when the default run took the independent path */
        int ind_path = *ind || !strcmp(s.strategy, "independent");
        *(k ? &f->sieved_r : &f->sieved_w) =
            !ind_path ? -1 : tj_num(rec, k ? "counters.sieve_reads" : "counters.sieve_writes", 0) > 0;
        const char *kind = k ? "strategies.coll_read" : "strategies.coll_write";
        char key[96];
        snprintf(key, sizeof key, "%s.strategy", kind);
        snprintf(k ? f->chosen_r : f->chosen_w, sizeof f->chosen_w, "%s", *coll ? tj_str(rec, key, "") : "");
        snprintf(key, sizeof key, "%s.reason", kind);
        snprintf(k ? f->reason_r : f->reason_w, sizeof f->reason_w, "%s", *coll ? tj_str(rec, key, "") : "");
        const json_t *h = tj_at(rec, "hints");
        if (json_is_object(h) && !f->have_defaults) {
            f->defaults = h; /* borrowed: owned by *keep */
            f->have_defaults = 1;
        }
    }
    if (!w && !r) {
        fprintf(stderr, "ferry-tune: the default run left no ferry statistics record\n");
        return -1;
    }
    f->ppn = (f->ranks + f->nodes - 1) / (f->nodes > 0 ? f->nodes : 1);
    f->probe_cost = keep->cost;
    f->probe_wall = keep->wall;
    *bytes = (run->metric != TUNE_METRIC_READ ? keep->bytes_w : 0) + (run->metric != TUNE_METRIC_WRITE ? keep->bytes_r : 0);
    return 0;
}

/* Does the library forward? A tiny run of independent calls that asks for
 * it: forwarding exists when the record names it as the strategy of the
 * independent calls (only those forward; without MPI_THREAD_MULTIPLE ferry
 * falls back to the independent path and says so). */
static int probe_forward(const tune_run_cfg *run, const char *file, double timeout)
{
    if (run->ranks < 2)
        return 0;
    tune_run_cfg t = *run;
    t.pattern = "ior";
    char *args[] = {"-t", "4k", "-b", "16k", "-o", (char *)file};
    memcpy(t.args, args, sizeof args);
    t.nargs = 6;
    t.ranks = 2;
    t.reps = 1;
    t.warmup = 0;
    t.metric = TUNE_METRIC_TOTAL;
    tune_run_out o;
    int found = 0;
    if (tune_run(&t, 1, "*:ferry_ind_write_strategy=forward:ferry_ind_read_strategy=forward", timeout, &o) == 0)
        for (int k = 0; k < 2; k++) {
            const json_t *rec = stats_record(o.last, k == 0);
            const char *s = rec ? tj_str(rec, k ? "strategies.ind_read.strategy" : "strategies.ind_write.strategy", "")
                                : "";
            found |= !strcmp(s, "forward");
        }
    tune_run_out_free(&o);
    return found;
}

static int striped_fs(const char *file)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct statfs s;
    if (statfs(dir, &s) != 0)
        return 0;
    unsigned long m = (unsigned long)s.f_type;
    return m == 0x0BD00BD0UL /* Lustre */ || m == 0x47504653UL /* GPFS */;
}

/* ---- --check: the proxy against the record ---- */

static int check_proxy(tune_run_cfg *run, const tune_proxy *p, double tol)
{
    char hints[TUNE_HINT_LEN + 8] = "";
    if (p->record_hints[0])
        snprintf(hints, sizeof hints, "*:%s", p->record_hints);
    tune_run_cfg one = *run;
    one.reps = 1;
    one.warmup = 0;
    one.fixed = "";
    tune_run_out o;
    if (tune_run(&one, 1, hints, 600, &o) != 0) {
        fprintf(stderr, "ferry-tune: the proxy failed: %s\n", o.err);
        return 1;
    }
    int bad = 0;
    printf("proxy check: the proxy run under the record's hints against the record\n");
    printf("  %-6s %-10s %16s %16s  %s\n", "", "", "record", "proxy", "");
    for (int d = 0; d < 2; d++) {
        const tune_shape *t = &p->target[d];
        if (!t->present)
            continue;
        const json_t *rec = stats_record(o.last, d == 0);
        tune_shape s;
        memset(&s, 0, sizeof s);
        if (rec)
            tune_shape_of_record(rec, d == 0, &s);
        struct {
            const char *name;
            double want, got, tol;
        } rows[] = {
            {"calls", t->calls, s.calls, 0},
            {"bytes", t->bytes, s.bytes, tol},
            {"holes", t->gaps, s.gaps, 0},
            {"hole bytes", t->gap_bytes, s.gap_bytes, tol},
        };
        for (int i = 0; i < 4; i++) {
            double w = rows[i].want, g = rows[i].got;
            int ok = fabs(g - w) <= rows[i].tol * fabs(w) + 0.5;
            if (w < 0 && g < 0)
                ok = 1; /* not counted in either: a collective strategy served both */
            bad += !ok;
            printf("  %-6s %-10s %16.0f %16.0f  %s\n", d ? "read" : "write", rows[i].name, w, g,
                   ok ? "ok" : "MISMATCH");
        }
        if (s.coll != t->coll && !p->fixed[0]) {
            printf("  %-6s collective/independent differ\n", d ? "read" : "write");
            bad++;
        }
    }
    tune_run_out_free(&o);
    printf("proxy check: %s\n", bad ? "MISMATCH" : "the proxy reproduces the record's counts");
    return bad ? 1 : 0;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    tune_run_cfg run = {0};
    tune_options opt;
    tune_options_default(&opt);
    tune_space_opts so = {0};
    const char *compare = NULL;
    int rounds = 10;
    const char *from = NULL, *out = "ferry-hints.txt", *report_path = NULL, *samples = NULL, *file = NULL;
    int ranks = 0, record = 0, print_proxy = 0, check = 0, list = 0, native = 1, control = 1, always_write = 0;
    int quiet = 0, show_store = 0;
    const char *store_opt = NULL;
    int metric_set = 0;
    double budget = 600, tol = 0.01;
    run.mpiexec = TUNE_MPIEXEC;
    run.mpiexec_extra = TUNE_MPIEXEC_EXTRA;
    run.flavor = TUNE_MPI_FLAVOR;
    tune_paths_default(&run);
    run.reps = 0; /* auto, after the probe */
    run.fixed = "";
    const char *tmp = getenv("TMPDIR");
    run.tmpdir = tmp && *tmp ? tmp : "/tmp";

    enum { O_PATTERN = 256, O_FROM, O_RANKS, O_BUDGET, O_OUT, O_REPORT, O_SAMPLES, O_METRIC, O_REPS, O_WARMUP,
           O_MINS, O_MAXS, O_ALPHA, O_GAIN, O_TOP, O_ONLY, O_EXCLUDE, O_NONATIVE, O_NOCONTROL, O_ALWAYS, O_STORE, O_SHOW_STORE, O_FILE,
           O_RECORD, O_PROXY, O_CHECK, O_TOL, O_COMPARE, O_ROUNDS, O_LIST, O_MPIEXEC, O_EXTRA, O_BENCH, O_LIB,
           O_VERSION };
    static const struct option longs[] = {
        {"pattern", required_argument, NULL, O_PATTERN}, {"from", required_argument, NULL, O_FROM},
        {"ranks", required_argument, NULL, O_RANKS},     {"budget", required_argument, NULL, O_BUDGET},
        {"out", required_argument, NULL, O_OUT},         {"report", required_argument, NULL, O_REPORT},
        {"samples", required_argument, NULL, O_SAMPLES}, {"metric", required_argument, NULL, O_METRIC},
        {"reps", required_argument, NULL, O_REPS},       {"warmup", required_argument, NULL, O_WARMUP},
        {"min-samples", required_argument, NULL, O_MINS}, {"max-samples", required_argument, NULL, O_MAXS},
        {"alpha", required_argument, NULL, O_ALPHA},     {"min-gain", required_argument, NULL, O_GAIN},
        {"top", required_argument, NULL, O_TOP},         {"only", required_argument, NULL, O_ONLY},
        {"exclude", required_argument, NULL, O_EXCLUDE}, {"no-native", no_argument, NULL, O_NONATIVE},
        {"no-control", no_argument, NULL, O_NOCONTROL},  {"always-write", no_argument, NULL, O_ALWAYS},
        {"store", required_argument, NULL, O_STORE},     {"show-store", no_argument, NULL, O_SHOW_STORE},
        {"file", required_argument, NULL, O_FILE},       {"record", required_argument, NULL, O_RECORD},
        {"print-proxy", no_argument, NULL, O_PROXY},     {"check", no_argument, NULL, O_CHECK},
        {"tolerance", required_argument, NULL, O_TOL},   {"compare", required_argument, NULL, O_COMPARE},
        {"rounds", required_argument, NULL, O_ROUNDS},   {"list", no_argument, NULL, O_LIST},
        {"mpiexec", required_argument, NULL, O_MPIEXEC}, {"mpiexec-extra", required_argument, NULL, O_EXTRA},
        {"bench", required_argument, NULL, O_BENCH},     {"libferry", required_argument, NULL, O_LIB},
        {"verbose", no_argument, NULL, 'v'},             {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},                {"version", no_argument, NULL, O_VERSION},
        {0}};
    /* "+": the pattern's own options come after --, untouched */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+:hvq", longs, NULL)) != -1) {
        const char *v = optarg;
        int bad = 0;
        switch (ch) {
        case 'h': usage(stdout); return 0;
        case O_VERSION: printf("ferry-tune, %s\n", ferry_version()); return 0;
        case O_PATTERN: run.pattern = v; break;
        case O_FROM: from = v; break;
        case O_RANKS: bad = parse_int(v, 1, &ranks); break;
        case O_BUDGET: bad = parse_seconds(v, &budget) || budget <= 0; break;
        case O_OUT: out = v; break;
        case O_REPORT: report_path = v; break;
        case O_SAMPLES: samples = v; break;
        case O_METRIC:
            metric_set = 1;
            if (!strcmp(v, "total"))
                run.metric = TUNE_METRIC_TOTAL;
            else if (!strcmp(v, "write"))
                run.metric = TUNE_METRIC_WRITE;
            else if (!strcmp(v, "read"))
                run.metric = TUNE_METRIC_READ;
            else
                bad = 1;
            break;
        case O_REPS: bad = parse_int(v, 1, &run.reps); break;
        case O_WARMUP: bad = parse_int(v, 0, &run.warmup); break;
        case O_MINS: bad = parse_int(v, 1, &opt.min_samples); break;
        case O_MAXS: bad = parse_int(v, 1, &opt.max_samples); break;
        case O_ALPHA: bad = parse_frac(v, &opt.alpha) || opt.alpha <= 0; break;
        case O_GAIN: bad = parse_frac(v, &opt.min_gain); break;
        case O_TOP: bad = parse_int(v, 0, &opt.top); break;
        case O_ONLY:
            if (so.nonly < TUNE_MAX_DIMS)
                so.only[so.nonly++] = (char *)v;
            break;
        case O_EXCLUDE:
            if (so.nexclude < TUNE_MAX_DIMS)
                so.exclude[so.nexclude++] = (char *)v;
            break;
        case O_NONATIVE: native = 0; break;
        case O_NOCONTROL: control = 0; break;
        case O_ALWAYS: always_write = 1; break;
        case O_STORE: store_opt = v; break;
        case O_SHOW_STORE: show_store = 1; break;
        case O_FILE: file = v; break;
        case O_RECORD: bad = parse_int(v, 1, &record); break;
        case O_PROXY: print_proxy = 1; break;
        case O_CHECK: check = 1; break;
        case O_TOL: bad = parse_frac(v, &tol); break;
        case O_COMPARE: compare = v; break;
        case O_ROUNDS: bad = parse_int(v, 1, &rounds); break;
        case O_LIST: list = 1; break;
        case O_MPIEXEC: run.mpiexec = v; break;
        case O_EXTRA: run.mpiexec_extra = v; break;
        case O_BENCH: run.bench = v; break;
        case O_LIB: run.libferry = v; break;
        case 'v': run.verbose = 1; break;
        case 'q': quiet = 1; break;
        case ':':
            fprintf(stderr, "ferry-tune: %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "ferry-tune: unknown option '%s' (see --help)\n", argv[optind - 1]);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "ferry-tune: bad value for %s: %s\n", argv[optind - 1 - (v == argv[optind - 1])], v);
            return 2;
        }
    }
    int i = optind;
    if (i < argc && strcmp(argv[i - 1], "--") != 0) {
        fprintf(stderr, "ferry-tune: unexpected argument '%s' (pattern options go after --)\n", argv[i]);
        return 2;
    }
    /* the store as the library finds it: before the runs' environment is set */
    static char store_buf[4200];
    const char *store = ferry_learned_path(store_opt, store_buf, sizeof store_buf);
    if (show_store)
        return tune_store_list(store, stdout);
    if (!!run.pattern == !!from) {
        fprintf(stderr, "ferry-tune: give either --pattern NAME or --from RUN.json (see --help)\n");
        return 2;
    }
    if (opt.max_samples < opt.min_samples)
        opt.max_samples = opt.min_samples;
    if (!print_proxy && tune_paths_check(&run, stderr) != 0)
        return 2;

    /* the test file */
    static char own_file[4200];
    snprintf(own_file, sizeof own_file, "%s/ferry-tune.%ld.dat", run.tmpdir, (long)getpid());
    const char *test_file = file ? file : own_file;

    tune_proxy proxy;
    memset(&proxy, 0, sizeof proxy);
    if (from) {
        char err[512];
        if (tune_proxy_from_file(from, record, &proxy, err, sizeof err) != 0) {
            fprintf(stderr, "ferry-tune: %s\n", err);
            return 2;
        }
        if (print_proxy) {
            tune_proxy_print(&proxy, stdout);
            tune_proxy_free(&proxy);
            return 0;
        }
        run.pattern = proxy.pattern;
        for (int k = 0; k < proxy.nargs; k++)
            run.args[run.nargs++] = proxy.args[k];
        run.ranks = ranks ? ranks : proxy.ranks;
        if (!metric_set)
            run.metric = proxy.metric;
        run.fixed = proxy.fixed;
        if (i < argc)
            fprintf(stderr, "ferry-tune: pattern options after -- are ignored with --from\n");
    } else {
        if (!ranks) {
            fprintf(stderr, "ferry-tune: --pattern needs --ranks N\n");
            return 2;
        }
        run.ranks = ranks;
        for (; i < argc && run.nargs < TUNE_MAX_ARGS - 2; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "-i") || !strcmp(a, "--json") || !strncmp(a, "--json=", 7) || !strcmp(a, "-h") ||
                !strcmp(a, "--help") || !strcmp(a, "--then")) {
                fprintf(stderr, "ferry-tune: ferry-bench option %s is the tuner's (use --reps)\n", a);
                return 2;
            }
            if (!strcmp(a, "-o") && i + 1 < argc)
                test_file = argv[i + 1];
            run.args[run.nargs++] = argv[i];
        }
    }
    int user_o = 0;
    for (int k = 0; k < run.nargs; k++)
        user_o |= !strcmp(run.args[k], "-o");
    if (!user_o) {
        run.args[run.nargs++] = "-o";
        run.args[run.nargs++] = (char *)test_file;
    }

    /* a clean environment: the runs decide every hint themselves */
    static const char owned[][24] = {"FERRY_HINTS", "FERRY_HINTS_FILE", "FERRY_STATS_JSON", "FERRY_STATS",
                                     "FERRY_TIMERS", "FERRY_HINTS_DISPLAY", "FERRY_TRACE"};
    for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++)
        if (getenv(owned[k])) {
            if (!quiet)
                fprintf(stderr, "ferry-tune: %s is set; unset for the runs\n", owned[k]);
            unsetenv(owned[k]);
        }
    /* the runs neither read nor change the store: each starts where a new job would */
    setenv("FERRY_LEARN_CACHE", "off", 1);
    if (!strcmp(run.flavor, "openmpi") && geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    static char extra[1024];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(extra, sizeof extra, "%s", run.mpiexec_extra);
    if (!strcmp(run.flavor, "openmpi") && run.ranks > cpus && !strstr(extra, "oversubscribe")) {
        size_t n = strlen(extra);
        snprintf(extra + n, sizeof extra - n, "%s--oversubscribe", n ? " " : "");
    }
    run.mpiexec_extra = extra;
    if (!strcmp(run.flavor, "mpich") && run.ranks > cpus && !quiet)
        fprintf(stderr, "ferry-tune: warning: %d MPICH ranks on %ld cores busy-wait for each other; timings will "
                        "mostly measure that\n",
                run.ranks, cpus);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    double t0 = tune_wall();
    time_t started = time(NULL);
    char stamp[64];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M", localtime(&started));

    if (check) {
        if (!from) {
            fprintf(stderr, "ferry-tune: --check needs --from\n");
            return 2;
        }
        tune_proxy_print(&proxy, stdout);
        int rc = check_proxy(&run, &proxy, tol);
        tune_proxy_free(&proxy);
        return rc;
    }

    if (compare) {
        int rc = tune_compare(&run, compare, rounds, native, stdout);
        tune_proxy_free(&proxy);
        return rc;
    }

    /* probes */
    tune_facts facts;
    memset(&facts, 0, sizeof facts);
    tune_run_out probe_out;
    double bytes = 0;
    if (!quiet)
        fprintf(stderr, "ferry-tune: probing the workload under ferry's defaults\n");
    /* the probes count against the budget too: none may outlive it */
    int rc = probe(&run, &facts, &probe_out, &bytes, budget);
    if (rc != 0)
        return rc == -2 ? 2 : 1; /* a usage error, as ferry-bench's */
    if (run.reps == 0) {
        run.reps = tune_auto_reps(facts.probe_cost, facts.probe_wall);
        if (!quiet)
            fprintf(stderr, "ferry-tune: one repetition takes %.3f s, a launch %.1f s: %d repetitions per launch\n",
                    facts.probe_cost, facts.probe_wall, run.reps);
    }
    if (facts.ind_w || facts.ind_r) {
        char fwd_file[4300];
        snprintf(fwd_file, sizeof fwd_file, "%s.forward", test_file);
        double left = budget - (tune_wall() - t0);
        facts.forward = left > 0 && probe_forward(&run, fwd_file, left < 120 ? left : 120);
    }
    const char *topo = getenv("FERRY_TOPOLOGY");
    facts.topology = topo && *topo;
    facts.striped_fs = striped_fs(test_file);

    tune_space space;
    char err[512];
    if (tune_space_build(&space, &facts, &so, err, sizeof err) != 0) {
        fprintf(stderr, "ferry-tune: %s\n", err);
        return 2;
    }
    if (list || !quiet)
        tune_space_print(&space, list ? stdout : stderr);
    if (list)
        return 0;

    tuner t = {.run = &run, .space = &space, .ref_native = -1, .ref_default = -1, .ref_control = -1, .quiet = quiet};
    tune_problem *pb = &space.pb;
    pb->nrefs = 0;
    if (native)
        t.ref_native = pb->nrefs++;
    if (!space.origin_is_default)
        t.ref_default = pb->nrefs++;
    if (control)
        t.ref_control = pb->nrefs++;
    if (t.ref_native >= 0)
        pb->ref_name[t.ref_native] = "native MPI-IO";
    if (t.ref_default >= 0)
        pb->ref_name[t.ref_default] = "ferry defaults";
    if (t.ref_control >= 0)
        pb->ref_name[t.ref_control] = "defaults (A/A control)";
    pb->last_error = last_error;
    pb->measure = measure;
    pb->measure_ref = measure_ref;
    pb->canon = canon;
    pb->now = now_cb;
    pb->ctx = &t;
    opt.log = quiet ? NULL : stderr;
    opt.describe = describe;
    /* what the probes left, less a margin for the last kill and the report */
    double left = budget - (tune_wall() - t0);
    opt.budget = left - (left / 100 > 1 ? left / 100 : 1);
    if (opt.budget <= 0) {
        fprintf(stderr, "ferry-tune: the probes used the whole budget (%.0f s)\n", budget);
        return 1;
    }
    tune_result res;
    if (tune_search(pb, &opt, &res) != 0) {
        fprintf(stderr, "ferry-tune: ferry's default configuration could not be measured within the budget\n");
        return 1;
    }

    tune_report rep = {
        .run = &run,
        .space = &space,
        .facts = &facts,
        .res = &res,
        .opts = &opt,
        .proxy = from ? &proxy : NULL,
        .ref_native = t.ref_native,
        .ref_default = t.ref_default,
        .ref_control = t.ref_control,
        .hints_out = out,
        .always_write = always_write,
        .bytes = bytes,
        .budget = budget,
        .spent_total = tune_wall() - t0,
        .started = stamp,
    };
    int status = 0;
    if (tune_write_hints(&rep, out) != 0) {
        fprintf(stderr, "ferry-tune: cannot write %s: %s\n", out, strerror(errno));
        status = 1;
    }
    if (tune_report_has_hints(&rep)) {
        char best[TUNE_HINT_LEN];
        int n = 0;
        tune_space_hints(&space, res.p[res.best].v, run.fixed, best, sizeof best);
        tune_summary sm;
        const double *smp = tune_judged(&res.p[res.best], &n);
        tune_summarize(smp, n, &sm);
        if (tune_store_add(store, best, sm.median, probe_out.last, quiet ? NULL : stderr) < 0)
            status = 1;
    }
    tune_print_report(&rep, stdout);
    if (report_path) {
        FILE *f = fopen(report_path, "w");
        if (f) {
            tune_print_report(&rep, f);
            fclose(f);
        } else {
            fprintf(stderr, "ferry-tune: cannot write %s: %s\n", report_path, strerror(errno));
            status = 1;
        }
    }
    if (samples && tune_write_samples(&rep, samples) != 0) {
        fprintf(stderr, "ferry-tune: cannot write %s: %s\n", samples, strerror(errno));
        status = 1;
    }
    tune_result_free(&res);
    tune_space_free(&space);
    tune_run_out_free(&probe_out);
    tune_proxy_free(&proxy);
    return status;
}
