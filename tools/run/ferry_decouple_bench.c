/*
 * ferry-decouple-bench: sum, histogram and lookup over one large file of
 * doubles, traditional against decoupled, with the compute side busy (a
 * compute loop between I/O calls).
 *
 *   traditional  each compute process reads its part, a call at a time,
 *                with MPI_File_read_at, reduces it itself, then computes
 *   decoupled    the data processes read and reduce; the compute process
 *                asks for the next call's result before computing and
 *                collects it after (ferry_decouple_iread, one in flight)
 *
 * Reports, per operation and mode, the median wall time over repetitions
 * (slowest compute process), the bytes that reached compute processes
 * (traditional: the data; decoupled: every reply, heartbeat and header),
 * and their ratio. Both modes' results are cross-checked.
 *
 *   ferry-run -np 1 -dp 1 ferry-decouple-bench [-s 2g] [-t 64m] [-w 0.05] [-r 3]
 *   ferry-run -np 2 -dp 0 ferry-decouple-bench --mode traditional
 */
#define _GNU_SOURCE
#include <ferry.h>
#include "util/median.h"
#include "util/size.h"
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OP_SUM, OP_HIST, OP_LOOKUP, NOPS };
static const char *opnames[NOPS] = {"sum", "histogram", "lookup"};
enum { M_TRAD, M_DEC, NMODES };
static const char *modenames[NMODES] = {"traditional", "decoupled"};

#define BINS 100
#define LO 0.0
#define HI 1000.0
/* lookup: a thin slice of the values, about one element in 10^6 */
#define LLO 500.0
#define LHI 500.001
#define CAP 4096

static struct {
    const char *path;
    int64_t size, call;
    double work;
    int reps, json, clean;
    int ops[NOPS];
    int modes[NMODES];
} o = {.path = "/tmp/ferry-decouple-bench.dat", .size = (int64_t)2 << 30, .call = 64 << 20, .work = 0.05,
       .reps = 3, .ops = {1, 1, 1}, .modes = {1, 1}};

static int rank, size, ndata;
static MPI_Comm comm;

static double value_at(int64_t k)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (double)(x >> 11) * (1000.0 / 9007199254740992.0);
}

/* The file: made once (by the compute processes, their parts in
 * parallel), reused while its size matches. */
static void make_file(void)
{
    struct stat st;
    int ok = stat(o.path, &st) == 0 && st.st_size == o.size, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all)
        return;
    if (rank == 0) {
        int fd = open(o.path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0 || ftruncate(fd, o.size) != 0) {
            perror(o.path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        close(fd);
    }
    MPI_Barrier(comm);
    int fd = open(o.path, O_WRONLY);
    int64_t n = o.size / 8, per = (n + size - 1) / size, lo = rank * per, hi = lo + per < n ? lo + per : n;
    const int64_t B = 1 << 20;
    double *buf = malloc(B * sizeof *buf);
    for (int64_t k = lo; k < hi; k += B) {
        int64_t m = hi - k < B ? hi - k : B;
        for (int64_t i = 0; i < m; i++)
            buf[i] = value_at(k + i);
        if (pwrite(fd, buf, (size_t)m * 8, (off_t)k * 8) != (ssize_t)(m * 8)) {
            perror("pwrite");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    free(buf);
    close(fd);
    MPI_Barrier(comm);
}

/* The computation between I/O calls: floating point for `secs` seconds. */
static double compute(double secs)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while (MPI_Wtime() - t0 < secs)
        for (int i = 0; i < 4096; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

typedef struct result {
    double sum;
    int64_t hist[BINS];
    int64_t matches;
    double first_match; /* offset of the first match in my part, a cross-check */
} result;

typedef struct run {
    double seconds;       /* slowest compute process */
    double waited;        /* compute processes' mean time not computing */
    int64_t to_compute;   /* bytes that reached compute processes, all of them */
    result r;             /* this rank's */
} run;

static void my_part(int64_t *lo, int64_t *hi)
{
    int64_t n = o.size / 8, per = (n + size - 1) / size;
    *lo = rank * per * 8;
    *hi = (rank + 1) * per < n ? (rank + 1) * per * 8 : n * 8;
}

static void fold(int op, result *r, const double *x, int64_t n, int64_t off0)
{
    switch (op) {
    case OP_SUM:
        for (int64_t i = 0; i < n; i++)
            r->sum += x[i];
        break;
    case OP_HIST:
        for (int64_t i = 0; i < n; i++) {
            int64_t b = ferry_hist_bin(x[i], BINS, LO, HI);
            if (b >= 0)
                r->hist[b]++;
        }
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            if ((x[i] >= LLO) & (x[i] <= LHI)) {
                if (r->matches++ == 0)
                    r->first_match = (double)(off0 + i * 8);
            }
        break;
    }
}

static run traditional(int op)
{
    run R = {0};
    int64_t lo, hi;
    my_part(&lo, &hi);
    MPI_File fh;
    MPI_File_open(comm, o.path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    double *buf = malloc((size_t)o.call);
    int64_t got_bytes = 0;
    double waited = 0, sink = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int64_t at = lo; at < hi; at += o.call) {
        int64_t len = hi - at < o.call ? hi - at : o.call;
        double w0 = MPI_Wtime();
        MPI_Status st;
        MPI_File_read_at(fh, at, buf, (int)(len / 8), MPI_DOUBLE, &st);
        int cnt = 0;
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        got_bytes += (int64_t)cnt * 8;
        fold(op, &R.r, buf, cnt, at);
        waited += MPI_Wtime() - w0;
        sink += compute(o.work);
    }
    double t = MPI_Wtime() - t0;
    MPI_File_close(&fh);
    free(buf);
    if (sink == 42)
        printf(" ");
    MPI_Allreduce(&t, &R.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&waited, &R.waited, 1, MPI_DOUBLE, MPI_SUM, comm);
    R.waited /= size;
    MPI_Allreduce(&got_bytes, &R.to_compute, 1, MPI_INT64_T, MPI_SUM, comm);
    return R;
}

static run decoupled(int op)
{
    run R = {0};
    int64_t lo, hi;
    my_part(&lo, &hi);
    ferry_op fop = op == OP_SUM ? FERRY_OP_SUM : FERRY_OP_NULL;
    if (op == OP_HIST)
        ferry_op_histogram(BINS, LO, HI, &fop);
    else if (op == OP_LOOKUP)
        ferry_op_lookup(LLO, LHI, CAP, &fop);
    MPI_Count rsz = 0;
    ferry_op_result_size(fop, MPI_DOUBLE, &rsz);
    char *res[2] = {malloc((size_t)rsz), malloc((size_t)rsz)};
    ferry_dfile d;
    if (ferry_decouple_open(comm, o.path, MPI_MODE_RDONLY, MPI_INFO_NULL, &d) != MPI_SUCCESS) {
        fprintf(stderr, "ferry_decouple_open failed\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    ferry_decouple_seek(d, lo, MPI_SEEK_SET);
    int64_t rx0, tx0, rx1, tx1;
    double waited = 0, sink = 0;
    MPI_Barrier(comm);
    ferry_decouple_traffic(&rx0, &tx0);
    double t0 = MPI_Wtime();
    MPI_Request req = MPI_REQUEST_NULL;
    int cur = 0;
    int64_t at = lo, len = hi - at < o.call ? hi - at : o.call;
    if (at < hi)
        ferry_decouple_iread(d, res[cur], len / 8, MPI_DOUBLE, fop, &req);
    while (at < hi) {
        int64_t next = at + len, nlen = hi - next < o.call ? hi - next : o.call;
        MPI_Request nreq = MPI_REQUEST_NULL;
        /* the next call is on its way before this process computes */
        if (next < hi)
            ferry_decouple_iread(d, res[!cur], nlen / 8, MPI_DOUBLE, fop, &nreq);
        sink += compute(o.work);
        double w0 = MPI_Wtime();
        MPI_Status st;
        int rc = MPI_Wait(&req, &st);
        waited += MPI_Wtime() - w0;
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "decoupled read failed\n");
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        if (op == OP_SUM) {
            double s;
            memcpy(&s, res[cur], 8);
            R.r.sum += s;
        } else if (op == OP_HIST) {
            int64_t h[BINS];
            memcpy(h, res[cur], sizeof h);
            for (int b = 0; b < BINS; b++)
                R.r.hist[b] += h[b];
        } else {
            ferry_matches *m = (ferry_matches *)(void *)res[cur];
            if (R.r.matches == 0 && m->n > 0)
                R.r.first_match = (double)ferry_matches_at(m)[0].offset;
            R.r.matches += m->total;
        }
        req = nreq;
        cur = !cur;
        at = next;
        len = nlen;
    }
    double t = MPI_Wtime() - t0;
    ferry_decouple_traffic(&rx1, &tx1);
    ferry_decouple_close(&d);
    if (op != OP_SUM)
        ferry_op_free(&fop);
    free(res[0]);
    free(res[1]);
    if (sink == 42)
        printf(" ");
    int64_t rx = rx1 - rx0;
    MPI_Allreduce(&t, &R.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&waited, &R.waited, 1, MPI_DOUBLE, MPI_SUM, comm);
    R.waited /= size;
    MPI_Allreduce(&rx, &R.to_compute, 1, MPI_INT64_T, MPI_SUM, comm);
    return R;
}

static int same(int op, const result *a, const result *b)
{
    if (op == OP_SUM)
        return fabs(a->sum - b->sum) <= 1e-9 * fabs(a->sum);
    if (op == OP_HIST)
        return !memcmp(a->hist, b->hist, sizeof a->hist);
    return a->matches == b->matches && (a->matches == 0 || a->first_match == b->first_match);
}

static void usage(FILE *to)
{
    fprintf(to, "usage: ferry-decouple-bench [-o file] [-s size] [-t call] [-w seconds] [-r reps]\n"
                "         [--ops sum,histogram,lookup] [--mode both|traditional|decoupled] [--json] [--clean]\n"
                "  -s, --size SIZE   file size (default 2g), doubles; -t, --call SIZE  bytes per I/O call (64m)\n"
                "  -w, --work S      compute seconds between calls (0.05); -r, --reps N  repetitions, median reported (3)\n"
                "  -o, --file PATH   the data file; --clean removes it at the end\n"
                "  --version         print the version\n"
                "  Sizes: k, m, g or t, alone or with B or iB, all powers of 1024 (1.5g, 64MiB).\n");
}

/* The options, read before MPI_Init (so --version and --help need no MPI);
 * a bad one is kept in msg for rank 0 to print. Returns 0 to go on, 1 for
 * --help, 2 for --version. */
static int parse(int argc, char **argv, char *msg, size_t len)
{
    static const struct option longs[] = {
        {"file", required_argument, NULL, 'o'}, {"size", required_argument, NULL, 's'},
        {"call", required_argument, NULL, 't'}, {"work", required_argument, NULL, 'w'},
        {"reps", required_argument, NULL, 'r'}, {"ops", required_argument, NULL, 'O'},
        {"mode", required_argument, NULL, 'M'}, {"json", no_argument, NULL, 'j'},
        {"clean", no_argument, NULL, 'c'},      {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},    {0}};
    opterr = 0;
    int ch;
    while (!msg[0] && (ch = getopt_long(argc, argv, ":o:s:t:w:r:h", longs, NULL)) != -1) {
        const char *word = argv[optind - 1];
        char why[160] = "", *end = NULL;
        int64_t v = 0;
        switch (ch) {
        case 'o': o.path = optarg; break;
        case 's':
        case 't':
            if (ferry_size_parse(optarg, &v, why, sizeof why) != 0)
                snprintf(msg, len, "bad value for -%c: '%s': %s", ch, optarg, why);
            *(ch == 's' ? &o.size : &o.call) = v / 8 * 8;
            break;
        case 'w':
            o.work = strtod(optarg, &end);
            if (end == optarg || *end || !(o.work >= 0))
                snprintf(msg, len, "bad value for -w: '%s': seconds, 0 or more", optarg);
            break;
        case 'r':
            o.reps = (int)strtol(optarg, &end, 10);
            if (end == optarg || *end || o.reps < 1)
                snprintf(msg, len, "bad value for -r: '%s': a whole number, at least 1", optarg);
            break;
        case 'O':
            for (int k = 0; k < NOPS; k++)
                o.ops[k] = strstr(optarg, opnames[k]) != NULL || (k == OP_HIST && strstr(optarg, "hist"));
            break;
        case 'M':
            o.modes[M_TRAD] = !strcmp(optarg, "both") || !strncmp(optarg, "trad", 4);
            o.modes[M_DEC] = !strcmp(optarg, "both") || !strncmp(optarg, "dec", 3);
            if (!o.modes[M_TRAD] && !o.modes[M_DEC])
                snprintf(msg, len, "bad value for --mode: '%s': both, traditional or decoupled", optarg);
            break;
        case 'j': o.json = 1; break;
        case 'c': o.clean = 1; break;
        case 'h': return 1;
        case 'V': return 2;
        case ':': snprintf(msg, len, "%s needs a value", word); break;
        default: snprintf(msg, len, "unknown option '%s' (see --help)", word); break;
        }
    }
    if (!msg[0] && optind < argc)
        snprintf(msg, len, "unexpected argument '%s' (see --help)", argv[optind]);
    if (!msg[0] && (o.call < 8 || o.size < 8 || o.call > ((int64_t)1 << 30)))
        snprintf(msg, len, "-t must be 8 bytes to 1 GiB and -s at least 8 bytes");
    return 0;
}

int main(int argc, char **argv)
{
    char msg[400] = "";
    int what = parse(argc, argv, msg, sizeof msg);
    if (what == 1) {
        usage(stdout);
        return 0;
    }
    if (what == 2) {
        printf("ferry-decouple-bench, %s\n", ferry_version());
        return 0;
    }
    MPI_Init(&argc, &argv);
    if (ferry_decouple_init() != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (ferry_is_data_process()) {
        MPI_Finalize();
        return 0;
    }
    comm = ferry_comm_local();
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (ferry_comm_inter() != MPI_COMM_NULL)
        MPI_Comm_remote_size(ferry_comm_inter(), &ndata);
    if (msg[0]) {
        if (rank == 0) {
            fprintf(stderr, "ferry-decouple-bench: %s\n", msg);
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    double tmk = MPI_Wtime();
    make_file();
    tmk = MPI_Wtime() - tmk;
    if (rank == 0 && !o.json)
        printf("ferry-decouple-bench: %s, %.2f GiB of doubles, %lld MiB per call, %.3f s of computation per call, "
               "%d compute + %d data processes, %d repetitions (file ready in %.1f s)\n",
               o.path, o.size / 1073741824.0, (long long)(o.call >> 20), o.work, size, ndata, o.reps, tmk);

    int bad = 0;
    for (int op = 0; op < NOPS; op++) {
        if (!o.ops[op])
            continue;
        double t[NMODES][64], w[NMODES][64];
        int64_t bytes[NMODES] = {0};
        result first[NMODES];
        int have[NMODES] = {0};
        for (int rep = 0; rep < o.reps && rep < 64; rep++)
            for (int k = 0; k < NMODES; k++) {
                int m = rep % 2 ? NMODES - 1 - k : k; /* alternate the order: drift hits both */
                if (!o.modes[m])
                    continue;
                run R = m == M_TRAD ? traditional(op) : decoupled(op);
                t[m][rep] = R.seconds;
                w[m][rep] = R.waited;
                bytes[m] = R.to_compute;
                if (!have[m]) {
                    first[m] = R.r;
                    have[m] = 1;
                }
            }
        int agree = 1;
        if (have[M_TRAD] && have[M_DEC]) {
            int mine = same(op, &first[M_TRAD], &first[M_DEC]);
            MPI_Allreduce(&mine, &agree, 1, MPI_INT, MPI_MIN, comm);
            bad |= !agree;
        }
        if (rank != 0)
            continue;
        double med[NMODES] = {0};
        for (int m = 0; m < NMODES; m++) {
            if (!o.modes[m])
                continue;
            int n = o.reps < 64 ? o.reps : 64;
            char runs[512] = "";
            json_t *jruns = json_array();
            for (int i = 0; i < n; i++) {
                snprintf(runs + strlen(runs), sizeof runs - strlen(runs), "%s%.3f", i ? "," : "", t[m][i]);
                json_array_append_new(jruns, json_real(t[m][i]));
            }
            med[m] = ferry_median(t[m], n);
            double medw = ferry_median(w[m], n);
            double ratio = bytes[m] > 0 ? (double)o.size / (double)bytes[m] : 0;
            if (o.json) {
                json_t *rec = json_pack("{s:s,s:s,s:s,s:i,s:i,s:I,s:I,s:f,s:o,s:f,s:f,s:I,s:f,s:b}", "pattern",
                                        "decouple", "op", opnames[op], "mode", modenames[m], "compute", size, "data",
                                        ndata, "file_bytes", (json_int_t)o.size, "call_bytes", (json_int_t)o.call,
                                        "work_s", o.work, "runs_s", jruns, "median_s", med[m],
                                        "median_not_computing_s", medw, "bytes_to_compute", (json_int_t)bytes[m],
                                        "reduction", ratio, "agree", agree);
                char *text = rec ? json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
                if (text)
                    printf("%s\n", text);
                free(text);
                json_decref(rec);
            } else {
                json_decref(jruns);
                printf("%-10s %-12s median %8.3f s  (runs %s)  not computing %7.3f s  to compute %14lld B  "
                       "file/moved %12.0fx\n",
                       opnames[op], modenames[m], med[m], runs, medw, (long long)bytes[m], ratio);
            }
        }
        if (!o.json && o.modes[M_TRAD] && o.modes[M_DEC])
            printf("%-10s decoupled/traditional time %.3f, bytes %.2e; results %s\n", opnames[op],
                   med[M_DEC] / med[M_TRAD], (double)bytes[M_DEC] / (double)(bytes[M_TRAD] ? bytes[M_TRAD] : 1),
                   agree ? "agree" : "DIFFER");
        fflush(stdout);
    }
    if (o.clean && rank == 0)
        unlink(o.path);
    MPI_Finalize();
    return bad;
}
