/*
 * --from RUN.json: a proxy for an application, rebuilt from ferry's
 * statistics record of one of its files. The record gives, per direction,
 * the calls (collective or independent), the bytes, and the holes between
 * the pieces of each call (ferry counts those on its independent paths; a
 * collective call that two-phase or local aggregation served leaves them
 * uncounted, and then the piece size in auto's reason stands in).
 *
 * Each ferry-bench pattern is a model: given its options and the rank
 * count, the calls, bytes and holes it makes follow from its layout (the
 * same arithmetic as tools/bench/pat_*.c). The proxy is the pattern and
 * options whose shape is closest to the record's: calls per rank exactly
 * when possible, then bytes, holes, and hole sizes.
 *   ior   contiguous calls of any size and count, collective or not
 *   tile  one call per rank of K pieces of S bytes, holes (tx-1)*S
 *   hacc  one call of 9 pieces (struct) or 9 contiguous calls (pervar)
 *   btio  one call per step of many rows of a 3-D block
 */
#define _GNU_SOURCE
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- shapes of records ---- */

static int independent_path(const char *strategy)
{
    return !strcmp(strategy, "independent") || !strcmp(strategy, "direct") || !strcmp(strategy, "sieve");
}

/* "... 8 KiB pieces ..." in auto's reason: the mean piece size */
static double reason_piece(const char *reason)
{
    const char *p = strstr(reason, " pieces");
    if (!p)
        return -1;
    const char *u = p;
    while (u > reason && u[-1] != ' ')
        u--;
    const char *n = u - 1;
    while (n > reason && n[-1] != ' ')
        n--;
    double v = atof(n);
    double unit = !strncmp(u, "GiB", 3) ? 1073741824.0 : !strncmp(u, "MiB", 3) ? 1048576.0 : !strncmp(u, "KiB", 3) ? 1024.0
                                                                                          : 1.0;
    return v > 0 ? v * unit : -1;
}

void tune_shape_of_record(const json_t *rec, int write, tune_shape *s)
{
    memset(s, 0, sizeof *s);
    const char *rw = write ? "write" : "read";
    char key[64];
    snprintf(key, sizeof key, "counters.coll_%ss", rw);
    double coll = tj_num(rec, key, 0);
    snprintf(key, sizeof key, "counters.ind_%ss", rw);
    double ind = tj_num(rec, key, 0);
    s->calls = coll + ind;
    s->present = s->calls > 0;
    s->gaps = s->gap_bytes = s->piece = -1;
    if (!s->present)
        return;
    s->coll = coll >= ind;
    snprintf(key, sizeof key, "counters.bytes_%s", write ? "written" : "read");
    s->bytes = tj_num(rec, key, 0);
    snprintf(key, sizeof key, "strategies.%s_%s.strategy", s->coll ? "coll" : "ind", rw);
    snprintf(s->strategy, sizeof s->strategy, "%s", tj_str(rec, key, "none"));
    snprintf(key, sizeof key, "strategies.%s_%s.reason", s->coll ? "coll" : "ind", rw);
    const char *reason = tj_str(rec, key, "");
    snprintf(key, sizeof key, "counters.%s_gaps", rw);
    double gaps = tj_num(rec, key, 0);
    snprintf(key, sizeof key, "counters.%s_gap_bytes", rw);
    double gap_bytes = tj_num(rec, key, 0);
    if (gaps > 0 || independent_path(s->strategy)) {
        s->gaps = gaps;
        s->gap_bytes = gap_bytes;
        s->piece = s->bytes / (s->calls + gaps);
    } else
        s->piece = reason_piece(reason);
}

/* ---- the models ---- */

typedef struct {
    char pattern[16];
    char args[TUNE_MAX_ARGS][48];
    int nargs;
    tune_shape m[2];
    int needs_ind; /* collective calls standing in for independent ones */
} model;

static void arg(model *m, const char *fmt, long long v)
{
    if (m->nargs < TUNE_MAX_ARGS)
        snprintf(m->args[m->nargs++], sizeof m->args[0], fmt, v);
}

static void flag(model *m, const char *f)
{
    if (m->nargs < TUNE_MAX_ARGS)
        snprintf(m->args[m->nargs++], sizeof m->args[0], "%s", f);
}

static void set_shape(tune_shape *s, int coll, double calls, double bytes, double gaps, double gap_bytes)
{
    memset(s, 0, sizeof *s);
    s->present = 1;
    s->coll = coll;
    s->calls = calls, s->bytes = bytes, s->gaps = gaps, s->gap_bytes = gap_bytes;
    s->piece = bytes / (calls + gaps);
}

/* ior: -t xfer -b c*xfer: c contiguous calls per rank */
static void model_ior(model *m, int P, const tune_shape *t, int dir)
{
    memset(m, 0, sizeof *m);
    strcpy(m->pattern, "ior");
    double c = floor(t[dir].calls / P + 0.5), xfer;
    if (c < 1)
        c = 1;
    xfer = floor(t[dir].bytes / (c * P) + 0.5);
    if (xfer < 1)
        xfer = 1;
    if (xfer > 2147483647.0)
        xfer = 2147483647.0;
    flag(m, "-t");
    arg(m, "%lld", (long long)xfer);
    flag(m, "-b");
    arg(m, "%lld", (long long)(xfer * c));
    if (t[dir].coll)
        flag(m, "-c");
    int w = t[0].present, r = t[1].present;
    if (w && !r)
        flag(m, "-w"); /* a read needs the file written first: -r alone would not */
    for (int d = 0; d < 2; d++)
        if (d == 0 || r)
            set_shape(&m->m[d], t[dir].coll, c * P, c * P * xfer, 0, 0);
}

static int squarest_y(int P)
{
    int y = (int)sqrt((double)P);
    while (y > 1 && P % y)
        y--;
    return y < 1 ? 1 : y;
}

/* tile: one call per rank, K rows of S bytes, holes (tx-1)*S between rows */
static int model_tile(model *m, int P, const tune_shape *t, int dir)
{
    memset(m, 0, sizeof *m);
    strcpy(m->pattern, "tile");
    const tune_shape *s = &t[dir];
    double per_call = s->bytes / s->calls, K;
    if (s->gaps >= 0)
        K = floor(s->gaps / s->calls + 0.5) + 1;
    else if (s->piece > 0)
        K = floor(per_call / s->piece + 0.5);
    else
        return -1;
    if (K < 1)
        K = 1;
    double S = floor(per_call / K + 0.5);
    if (S < 1 || K > 2147483647.0)
        return -1;
    int tx;
    if (s->gaps > 0 && s->gap_bytes > 0 && P > 1) { /* the divisor of P nearest the hole/piece ratio */
        double want = s->gap_bytes / s->gaps / S + 1, best = 1e300;
        tx = P;
        for (int d = 2; d <= P; d++)
            if (P % d == 0 && fabs(log(d / want)) < best)
                best = fabs(log(d / want)), tx = d;
    } else if (s->gaps == 0)
        tx = 1; /* no holes: the tiles of a row of ranks are stacked */
    else
        tx = P / squarest_y(P);
    int64_t elem = 1;
    for (int e = 8; e > 1; e /= 2)
        if (fmod(S, e) == 0) {
            elem = e;
            break;
        }
    double sx = S / (double)elem;
    if (sx * tx > 2147483647.0 || sx * K > 2147483647.0)
        return -1;
    flag(m, "--nr-tiles-x");
    arg(m, "%lld", tx);
    flag(m, "--nr-tiles-y");
    arg(m, "%lld", P / tx);
    flag(m, "--sz-tile-x");
    arg(m, "%lld", (long long)sx);
    flag(m, "--sz-tile-y");
    arg(m, "%lld", (long long)K);
    flag(m, "--sz-element");
    arg(m, "%lld", (long long)elem);
    double gaps = tx > 1 && K > 1 ? P * (K - 1) : 0;
    for (int d = 0; d < 2; d++)
        set_shape(&m->m[d], 1, P, P * K * S, gaps, gaps * (tx - 1) * S);
    return 0;
}

/* hacc: 9 variables of n particles per rank, variable-major over ranks */
static int model_hacc(model *m, int P, const tune_shape *t, int dir)
{
    static const int size[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};
    memset(m, 0, sizeof *m);
    strcpy(m->pattern, "hacc");
    double per_rank_calls = floor(t[dir].calls / P + 0.5);
    int pervar = per_rank_calls == 9;
    if (!pervar && per_rank_calls != 1)
        return -1;
    double n = floor(t[dir].bytes / (38.0 * P) + 0.5);
    if (n < 1 || n * 8 > 2147483647.0)
        return -1;
    flag(m, "-n");
    arg(m, "%lld", (long long)n);
    if (pervar) {
        flag(m, "--mode");
        flag(m, "pervar");
    }
    double gap_bytes = 0;
    for (int r = 0; r < P && !pervar; r++)
        for (int v = 0; v < 8; v++)
            gap_bytes += n * ((P - 1 - r) * (double)size[v] + r * (double)size[v + 1]);
    double gaps = pervar || P == 1 ? 0 : 8.0 * P;
    for (int d = 0; d < 2; d++)
        set_shape(&m->m[d], 1, P * (pervar ? 9 : 1), 38.0 * n * P, gaps, gap_bytes);
    return 0;
}

/* btio: the diagonal multipartition of an n^3 grid of 40-byte points; one
 * collective call per step, each rank's rows in file order */
static int model_btio(model *m, int P, int n, int steps)
{
    memset(m, 0, sizeof *m);
    strcpy(m->pattern, "btio");
    int pr = squarest_y(P), nc = P / pr;
    if (n < nc || (double)n * n * n / P * 2 > 2147483647.0 / 40)
        return -1;
    int *cell_of = malloc(sizeof(int) * (size_t)n);
    if (!cell_of)
        return -1;
    for (int i = 0; i < nc; i++)
        for (int g = (int)((int64_t)i * n / nc); g < (int)((int64_t)(i + 1) * n / nc); g++)
            cell_of[g] = i;
    double gaps = 0, gap_bytes = 0;
    for (int rank = 0; rank < P; rank++) {
        int64_t prev_end = -1;
        for (int z = 0; z < n; z++)
            for (int y = 0; y < n; y++)
                for (int x = 0; x < nc; x++) {
                    int owner = ((cell_of[y] + cell_of[z]) % pr) + pr * (((x - cell_of[z]) % nc + nc) % nc);
                    if (owner != rank)
                        continue;
                    int64_t lo = (int64_t)x * n / nc, hi = (int64_t)(x + 1) * n / nc;
                    int64_t off = (((int64_t)z * n + y) * n + lo) * 40, len = (hi - lo) * 40;
                    if (prev_end >= 0 && off > prev_end)
                        gaps++, gap_bytes += (double)(off - prev_end);
                    prev_end = off + len;
                }
    }
    free(cell_of);
    flag(m, "-n");
    arg(m, "%lld", n);
    flag(m, "--steps");
    arg(m, "%lld", steps);
    double bytes = 40.0 * n * n * n * steps;
    for (int d = 0; d < 2; d++)
        set_shape(&m->m[d], 1, (double)P * steps, bytes, gaps * steps, gap_bytes * steps);
    return 0;
}

/* ---- fitting ---- */

static double dlog(double a, double b)
{
    return fabs(log((a + 1) / (b + 1)));
}

static double score(const model *m, const tune_shape *t)
{
    double s = m->needs_ind ? 0.5 : 0;
    for (int d = 0; d < 2; d++) {
        if (!t[d].present) {
            s += m->m[d].present ? 0.2 : 0; /* a phase the metric ignores */
            continue;
        }
        if (!m->m[d].present) {
            s += 100;
            continue;
        }
        s += 10 * dlog(m->m[d].calls, t[d].calls) + 3 * dlog(m->m[d].bytes, t[d].bytes);
        if (t[d].gaps >= 0)
            s += 3 * dlog(m->m[d].gaps, t[d].gaps) + dlog(m->m[d].gap_bytes, t[d].gap_bytes);
        else if (t[d].piece > 0)
            s += 3 * dlog(m->m[d].piece, t[d].piece);
    }
    return s;
}

static void consider(model *best, double *best_score, model *m, const tune_shape *t)
{
    int dir = t[0].present ? 0 : 1;
    m->needs_ind = m->m[0].coll && !t[dir].coll;
    double s = score(m, t);
    if (s < *best_score) {
        *best_score = s;
        *best = *m;
    }
}

static void fit(tune_proxy *p)
{
    const tune_shape *t = p->target;
    int P = p->ranks, dir = t[0].present ? 0 : 1;
    model best, m;
    double bs = 1e300;
    memset(&best, 0, sizeof best);
    model_ior(&m, P, t, dir);
    consider(&best, &bs, &m, t);
    if (model_tile(&m, P, t, dir) == 0)
        consider(&best, &bs, &m, t);
    if (model_hacc(&m, P, t, dir) == 0)
        consider(&best, &bs, &m, t);
    int steps = (int)floor(t[dir].calls / P + 0.5);
    if (steps >= 1) {
        int n0 = (int)floor(cbrt(t[dir].bytes / steps / 40) + 0.5);
        for (int n = n0 - 1; n <= n0 + 1; n++)
            if (n >= 1 && model_btio(&m, P, n, steps) == 0)
                consider(&best, &bs, &m, t);
    }
    snprintf(p->pattern, sizeof p->pattern, "%s", best.pattern);
    for (int i = 0; i < best.nargs; i++)
        p->args[p->nargs++] = strdup(best.args[i]);
    p->model[0] = best.m[0];
    p->model[1] = best.m[1];
    p->score = bs;
    p->metric = t[0].present && t[1].present ? TUNE_METRIC_TOTAL : t[0].present ? TUNE_METRIC_WRITE : TUNE_METRIC_READ;
    if (best.needs_ind) {
        /* the application's independent calls, replayed as collective
         * calls that ferry serves independently */
        snprintf(p->fixed, sizeof p->fixed, "ferry_write_strategy=independent:ferry_read_strategy=independent");
        size_t at = strlen(p->note);
        snprintf(p->note + at, sizeof p->note - at,
                 "the record's independent calls are replayed as collective calls under "
                 "ferry_*_strategy=independent (fixed for every run; not written to the hints file)\n");
    }
}

/* ---- reading the record(s) ---- */

/* the record's hints as FERRY_HINTS pairs: every hint but the romio_cb_*
 * aliases, cb_config_list last (its value holds ':' and ',') */
static void record_hints(const json_t *rec, char *buf, size_t len)
{
    json_t *h = (json_t *)tj_at(rec, "hints"); /* jansson's iteration takes no const */
    size_t at = 0;
    buf[0] = '\0';
    if (!json_is_object(h))
        return;
    for (int pass = 0; pass < 2; pass++) {
        const char *k;
        json_t *v;
        json_object_foreach(h, k, v) {
            if (at >= len)
                break;
            if (!strncmp(k, "romio_cb_", 9) || (pass == 0) != (strcmp(k, "cb_config_list") != 0))
                continue;
            char val[300];
            if (json_is_string(v))
                snprintf(val, sizeof val, "%s", json_string_value(v));
            else if (json_is_boolean(v))
                snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
            else if (json_is_number(v) && !strcmp(k, "ferry_local_aggregators") && json_number_value(v) >= 2147483647.0)
                snprintf(val, sizeof val, "all");
            else if (json_is_number(v))
                snprintf(val, sizeof val, "%.0f", json_number_value(v));
            else
                continue;
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? ":" : "", k, val);
        }
    }
}

typedef struct {
    json_t **docs;
    int ndocs;
    const json_t **recs;
    int nrecs;
} record_set;

static void add_rec(record_set *rs, const json_t *r)
{
    if (json_is_object(r) && tj_at(r, "counters")) {
        const json_t **n = realloc(rs->recs, sizeof *n * (size_t)(rs->nrecs + 1));
        if (n) {
            rs->recs = n;
            rs->recs[rs->nrecs++] = r;
        }
    }
}

/* The numbers a proxy is built from must be what ferry writes: "ranks" a
 * whole number from 1 to TUNE_MAX_RANKS (a proxy launches that many), the
 * counters whole numbers from 0 to 2^53. Anything else is an error, not a
 * proxy that never finishes. */
static int check_record(const json_t *r, int index, const char *path, char *err, size_t errlen)
{
    static const char *const counters[] = {"coll_writes", "ind_writes", "coll_reads", "ind_reads",
                                           "bytes_written", "bytes_read", "write_gaps", "write_gap_bytes",
                                           "read_gaps", "read_gap_bytes"};
    const json_t *x = tj_at(r, "ranks");
    double v = json_number_value(x);
    if (x && (!json_is_number(x) || v < 1 || v > TUNE_MAX_RANKS || v != floor(v))) {
        snprintf(err, errlen, "%s: record %d: \"ranks\" must be a whole number from 1 to %d (give --ranks to run "
                 "the proxy at another scale)", path, index, TUNE_MAX_RANKS);
        return -1;
    }
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "counters.%s", counters[i]);
        x = tj_at(r, key);
        v = json_number_value(x);
        if (x && (!json_is_number(x) || v < 0 || v > 9007199254740992.0 || v != floor(v))) {
            snprintf(err, errlen, "%s: record %d: \"%s\" must be a whole number from 0 to 2^53", path, index, key);
            return -1;
        }
    }
    return 0;
}

static int read_records(const char *path, record_set *rs, char *err, size_t errlen)
{
    size_t len;
    char *text = tj_read_file(path, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    rs->docs = calloc((size_t)lines + 1, sizeof *rs->docs);
    if (!rs->docs) {
        free(text);
        return -1;
    }
    int bad = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line != '{')
            continue;
        char perr[128];
        json_t *d = rs->docs[rs->ndocs] = tj_parse(line, strlen(line), perr, sizeof perr);
        if (!d) {
            bad++;
            continue;
        }
        rs->ndocs++;
    }
    free(text);
    /* after every parse: the docs array no longer moves */
    for (int i = 0; i < rs->ndocs; i++) {
        const json_t *d = rs->docs[i];
        if (tj_at(d, "counters"))
            add_rec(rs, d); /* a FERRY_STATS_JSON line */
        else if (!strcmp(tj_str(d, "tool", ""), "ferry-bench")) {
            add_rec(rs, tj_at(d, "ferry_stats.write")); /* a ferry-bench --json line */
            add_rec(rs, tj_at(d, "ferry_stats.read"));
        }
    }
    if (rs->nrecs == 0) {
        snprintf(err, errlen, "%s holds no ferry statistics record (FERRY_STATS_JSON lines or ferry-bench --json)%s",
                 path, bad ? "; some lines are not valid JSON" : "");
        return -1;
    }
    for (int i = 0; i < rs->nrecs; i++)
        if (check_record(rs->recs[i], i + 1, path, err, errlen) != 0)
            return -1;
    return 0;
}

int tune_proxy_from_file(const char *path, int record, tune_proxy *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    record_set rs = {0};
    if (read_records(path, &rs, err, errlen) != 0) {
        for (int i = 0; i < rs.ndocs; i++)
            json_decref(rs.docs[i]);
        free(rs.docs);
        free(rs.recs);
        return -1;
    }
    const char *file;
    if (record > 0) {
        if (record > rs.nrecs) {
            snprintf(err, errlen, "--record %d: %s holds %d records", record, path, rs.nrecs);
            for (int i = 0; i < rs.ndocs; i++)
                json_decref(rs.docs[i]);
            free(rs.docs);
            free(rs.recs);
            return -1;
        }
        file = tj_str(rs.recs[record - 1], "file", "");
    } else { /* the file that moved the most bytes */
        double most = -1;
        file = "";
        for (int i = 0; i < rs.nrecs; i++) {
            const char *f = tj_str(rs.recs[i], "file", "");
            double b = 0;
            for (int j = 0; j < rs.nrecs; j++)
                if (!strcmp(tj_str(rs.recs[j], "file", ""), f))
                    b += tj_num(rs.recs[j], "counters.bytes_written", 0) + tj_num(rs.recs[j], "counters.bytes_read", 0);
            if (b > most)
                most = b, file = f;
        }
    }
    snprintf(p->file, sizeof p->file, "%s", file);
    /* per direction: the mean over the file's records that have that
     * direction; a record counts once however many directions it gives */
    for (int d = 0; d < 2; d++) {
        int k = 0;
        tune_shape sum;
        memset(&sum, 0, sizeof sum);
        for (int i = 0; i < rs.nrecs; i++) {
            if (record > 0 && i != record - 1)
                continue;
            if (strcmp(tj_str(rs.recs[i], "file", ""), file))
                continue;
            tune_shape s;
            tune_shape_of_record(rs.recs[i], d == 0, &s);
            if (!s.present)
                continue;
            if (k == 0) {
                sum = s;
                if (!p->record_hints[0])
                    record_hints(rs.recs[i], p->record_hints, sizeof p->record_hints);
            } else {
                sum.calls += s.calls, sum.bytes += s.bytes;
                sum.gaps = sum.gaps < 0 || s.gaps < 0 ? -1 : sum.gaps + s.gaps;
                sum.gap_bytes = sum.gap_bytes < 0 || s.gap_bytes < 0 ? -1 : sum.gap_bytes + s.gap_bytes;
                sum.piece = sum.piece < 0 || s.piece < 0 ? -1 : sum.piece + s.piece;
            }
            int r = (int)tj_num(rs.recs[i], "ranks", 1);
            if (r > p->ranks)
                p->ranks = r;
            k++;
            /* once per record: with its writes, or with its reads when it has none */
            int first = d == 0;
            if (!first) {
                tune_shape w;
                tune_shape_of_record(rs.recs[i], 1, &w);
                first = !w.present;
            }
            p->records += first;
        }
        if (k > 1) {
            sum.calls /= k, sum.bytes /= k;
            if (sum.gaps >= 0)
                sum.gaps /= k, sum.gap_bytes /= k;
            if (sum.piece > 0)
                sum.piece /= k;
        }
        p->target[d] = sum;
    }
    for (int i = 0; i < rs.ndocs; i++)
        json_decref(rs.docs[i]);
    free(rs.docs);
    free(rs.recs);
    if (!p->target[0].present && !p->target[1].present) {
        snprintf(err, errlen, "the record of %s has no reads or writes", p->file);
        return -1;
    }
    if (p->ranks < 1)
        p->ranks = 1;
    fit(p);
    return 0;
}

void tune_proxy_free(tune_proxy *p)
{
    for (int i = 0; i < p->nargs; i++)
        free(p->args[i]);
    p->nargs = 0;
}

static void shape_line(FILE *out, const char *what, const tune_shape *s)
{
    if (!s->present) {
        fprintf(out, "    %-7s none\n", what);
        return;
    }
    fprintf(out, "    %-7s %s calls %.0f, bytes %.0f, holes ", what, s->coll ? "collective" : "independent", s->calls,
            s->bytes);
    if (s->gaps >= 0)
        fprintf(out, "%.0f (%.0f bytes)", s->gaps, s->gap_bytes);
    else
        fprintf(out, "not counted (%s)", s->strategy[0] ? s->strategy : "?");
    if (s->piece > 0)
        fprintf(out, ", mean piece %.0f B", s->piece);
    fprintf(out, "\n");
}

void tune_proxy_print(const tune_proxy *p, FILE *out)
{
    fprintf(out, "proxy for %s (%d record%s, %d ranks):\n  record\n", p->file, p->records, p->records == 1 ? "" : "s",
            p->ranks);
    shape_line(out, "write", &p->target[0]);
    shape_line(out, "read", &p->target[1]);
    fprintf(out, "  proxy   ferry-bench %s", p->pattern);
    for (int i = 0; i < p->nargs; i++)
        fprintf(out, " %s", p->args[i]);
    fprintf(out, "   (fit %.3f; 0 = exact)\n", p->score);
    shape_line(out, "write", &p->model[0]);
    shape_line(out, "read", &p->model[1]);
    if (p->note[0])
        fprintf(out, "  note: %s", p->note);
}
