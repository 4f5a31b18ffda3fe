/*
 * Every operation, decoupled, against the traditional path: the same
 * compute processes read the same parts of the same files with
 * MPI_File_read and reduce them here, with code of this test's own.
 * Integers and lookups must match exactly (lookups as records with file
 * offsets, in file order), floating point within
 *   sum, mean:  1e-9 * sum(|x|) (/ n)      variance: 1e-9 relative
 * (data processes add in a different order when they share a read).
 * Two views: contiguous parts, and interleaved blocks of 7 elements; each
 * part read in three calls, the last one past the end of the file.
 */
#include "dtest.h"

#include <math.h>

#define NTOT 240013
#define BLOCK 7

enum { TI32, TI64, TF32, TF64, TRAW, NT };
static const char *tname[NT] = {"int32", "int64", "float", "double", "raw12"};
static MPI_Datatype ttype[NT];
static int tsize[NT] = {4, 8, 4, 8, 12};

typedef struct xs_state {
    uint64_t x;
    int64_t n;
} xs_state;

static uint64_t bytes_hash(const unsigned char *p, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* User op: an order-free checksum of every element's bytes. */
static int xs_fn(void *state, void *elems, MPI_Count n, MPI_Datatype type)
{
    xs_state *s = state;
    int sz = 0;
    MPI_Type_size(type, &sz);
    for (MPI_Count i = 0; i < n; i++)
        s->x ^= bytes_hash((const unsigned char *)elems + i * sz, sz);
    s->n += n;
    return MPI_SUCCESS;
}

static void xs_combine(void *into, const void *from)
{
    xs_state *a = into;
    const xs_state *b = from;
    a->x ^= b->x;
    a->n += b->n;
}

static ferry_op op_xs;

static double as_d(int ty, const char *b, int64_t i)
{
    switch (ty) {
    case TI32: return (double)((const int32_t *)b)[i];
    case TI64: return (double)((const int64_t *)b)[i];
    case TF32: return (double)((const float *)b)[i];
    default: return ((const double *)b)[i];
    }
}

static int64_t as_i(int ty, const char *b, int64_t i)
{
    return ty == TI32 ? ((const int32_t *)b)[i] : ((const int64_t *)b)[i];
}

static int is_int(int ty) { return ty == TI32 || ty == TI64; }

/* the view: contiguous parts (0) or interleaved blocks (1) */
typedef struct view {
    int kind;
    MPI_Offset disp;
    MPI_Datatype ft;
    int64_t blockbytes, extent;
} view;

static int64_t offset_of(const view *v, int64_t pos)
{
    if (v->kind == 0)
        return v->disp + pos;
    return v->disp + (pos / v->blockbytes) * v->extent + pos % v->blockbytes;
}

typedef struct params {
    int bins;
    double hlo, hhi, llo, lhi, thr;
    int cap, k;
} params;

static params params_of(int ty)
{
    params p = {.bins = 17, .cap = 50, .k = 10};
    switch (ty) {
    case TI32: p.hlo = -1e6; p.hhi = 1e6; p.llo = -1000.5; p.lhi = 2000.5; p.thr = 999000.0; break;
    case TI64: p.hlo = -36028797018963968.0; p.hhi = 36028797018963968.0; p.llo = -1e15; p.lhi = 1e15; p.thr = 3.5e16; break;
    default: p.hlo = -1000; p.hhi = 1000; p.llo = -1.0; p.lhi = 2.0; p.thr = 999.0; break;
    }
    return p;
}

static int match_hit(int ty, const params *p, int threshold, const char *b, int64_t i)
{
    if (is_int(ty)) {
        int64_t x = as_i(ty, b, i);
        if (threshold)
            return (double)x > p->thr;
        return x >= (int64_t)ceil(p->llo) && x <= (int64_t)floor(p->lhi);
    }
    double x = as_d(ty, b, i);
    return threshold ? x > p->thr : x >= p->llo && x <= p->lhi;
}

static int same_value(int ty, ferry_value v, const char *b, int64_t i)
{
    switch (ty) {
    case TI32: return v.i32 == ((const int32_t *)b)[i];
    case TI64: return v.i64 == ((const int64_t *)b)[i];
    case TF32: return v.f == ((const float *)b)[i];
    default: return v.d == ((const double *)b)[i];
    }
}

typedef struct piece {
    const char *data;  /* elements read traditionally */
    int64_t n;         /* elements */
    int64_t pos0;      /* stream byte position of the first */
    int64_t bytes;     /* the traditional status */
} piece;

static const char *opname(int which)
{
    static const char *names[] = {"sum", "min", "max", "count", "mean", "variance", "histogram",
                                  "lookup", "threshold", "topk", "user"};
    return names[which];
}

/* Compares a decoupled result with this test's own reduction of the piece. */
static void compare(int ty, int which, const params *p, const view *v, const piece *pc, const char *res,
                    int64_t resbytes, const char *where)
{
    const char *b = pc->data;
    int64_t n = pc->n;
    double abs = 0;
    for (int64_t i = 0; ty != TRAW && i < n; i++)
        abs += fabs(as_d(ty, b, i));
    switch (which) {
    case 0: { /* sum */
        if (is_int(ty)) {
            uint64_t s = 0;
            for (int64_t i = 0; i < n; i++)
                s += (uint64_t)as_i(ty, b, i);
            int64_t got;
            memcpy(&got, res, 8);
            CHECK(got == (int64_t)s, "%s: sum %lld, traditional %lld", where, (long long)got, (long long)s);
        } else {
            double s = 0, got;
            for (int64_t i = 0; i < n; i++)
                s += as_d(ty, b, i);
            memcpy(&got, res, 8);
            CHECK(fabs(got - s) <= 1e-9 * abs + 1e-300, "%s: sum %.17g, traditional %.17g", where, got, s);
        }
        break;
    }
    case 1:
    case 2: { /* min, max */
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++) {
            double x = as_d(ty, b, i), y = as_d(ty, b, best);
            int better = is_int(ty) ? (which == 1 ? as_i(ty, b, i) < as_i(ty, b, best) : as_i(ty, b, i) > as_i(ty, b, best))
                                    : (which == 1 ? x < y : x > y);
            if (better)
                best = i;
        }
        CHECK(resbytes == tsize[ty] && !memcmp(res, b + best * tsize[ty], (size_t)tsize[ty]),
              "%s: %s differs from the traditional one (%.17g)", where, opname(which), as_d(ty, b, best));
        break;
    }
    case 3: {
        int64_t got;
        memcpy(&got, res, 8);
        CHECK(got == n, "%s: count %lld, traditional %lld", where, (long long)got, (long long)n);
        break;
    }
    case 4: { /* mean */
        double m, got;
        if (is_int(ty)) {
            uint64_t s = 0;
            for (int64_t i = 0; i < n; i++)
                s += (uint64_t)as_i(ty, b, i);
            m = (double)(int64_t)s / (double)n;
        } else {
            double s = 0;
            for (int64_t i = 0; i < n; i++)
                s += as_d(ty, b, i);
            m = s / (double)n;
        }
        memcpy(&got, res, 8);
        CHECK(fabs(got - m) <= 1e-9 * abs / (double)n + 1e-12, "%s: mean %.17g, traditional %.17g", where, got, m);
        break;
    }
    case 5: { /* population variance, two passes in long double */
        long double s = 0, q = 0;
        for (int64_t i = 0; i < n; i++)
            s += (long double)as_d(ty, b, i);
        long double mean = s / n;
        for (int64_t i = 0; i < n; i++) {
            long double d = (long double)as_d(ty, b, i) - mean;
            q += d * d;
        }
        double ref = (double)(q / n), got;
        memcpy(&got, res, 8);
        CHECK(fabs(got - ref) <= 1e-9 * ref + 1e-9, "%s: variance %.17g, traditional %.17g", where, got, ref);
        break;
    }
    case 6: { /* histogram */
        int64_t *ref = calloc((size_t)p->bins, sizeof *ref);
        for (int64_t i = 0; i < n; i++) {
            int64_t bin = ferry_hist_bin(as_d(ty, b, i), p->bins, p->hlo, p->hhi);
            if (bin >= 0)
                ref[bin]++;
        }
        CHECK(resbytes == p->bins * 8 && !memcmp(res, ref, (size_t)p->bins * 8), "%s: histogram differs", where);
        free(ref);
        break;
    }
    case 7:
    case 8: { /* lookup, threshold: the first cap matches in file order, and the total */
        int threshold = which == 8, cap = threshold ? 1000000 : p->cap;
        ferry_matches *m = (ferry_matches *)(void *)res;
        ferry_match *r = ferry_matches_at(m);
        int64_t total = 0, kept = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!match_hit(ty, p, threshold, b, i))
                continue;
            if (kept < cap && kept < m->n) {
                int64_t off = offset_of(v, pc->pos0 + i * tsize[ty]);
                CHECK(r[kept].offset == off && same_value(ty, r[kept].value, b, i),
                      "%s: %s record %lld: offset %lld, traditional %lld", where, opname(which), (long long)kept,
                      (long long)r[kept].offset, (long long)off);
            }
            kept += kept < cap;
            total++;
        }
        CHECK(m->total == total && m->n == kept, "%s: %s found %lld (kept %lld), traditional %lld (%lld)", where,
              opname(which), (long long)m->total, (long long)m->n, (long long)total, (long long)kept);
        CHECK(total > 0, "%s: %s: the test data should match something", where, opname(which));
        break;
    }
    case 9: { /* top-k: largest first, equal values in file order */
        ferry_matches *m = (ferry_matches *)(void *)res;
        ferry_match *r = ferry_matches_at(m);
        int64_t *idx = malloc((size_t)p->k * sizeof *idx);
        int kept = 0;
        for (int64_t i = 0; i < n; i++) {
            int at = kept;
            while (at > 0) {
                int64_t j = idx[at - 1];
                int worse = is_int(ty) ? as_i(ty, b, j) < as_i(ty, b, i) : as_d(ty, b, j) < as_d(ty, b, i);
                if (!worse)
                    break;
                at--;
            }
            if (at >= p->k)
                continue;
            int last = kept < p->k ? kept : p->k - 1;
            memmove(idx + at + 1, idx + at, (size_t)(last - at) * sizeof *idx);
            idx[at] = i;
            if (kept < p->k)
                kept++;
        }
        CHECK(m->total == n && m->n == kept, "%s: topk kept %lld of %lld, traditional %d of %lld", where,
              (long long)m->n, (long long)m->total, kept, (long long)n);
        for (int i = 0; i < kept && i < m->n; i++) {
            int64_t off = offset_of(v, pc->pos0 + idx[i] * tsize[ty]);
            CHECK(r[i].offset == off && same_value(ty, r[i].value, b, idx[i]),
                  "%s: topk record %d: offset %lld, traditional %lld", where, i, (long long)r[i].offset,
                  (long long)off);
        }
        free(idx);
        break;
    }
    case 10: { /* user op */
        xs_state ref = {0, 0};
        xs_fn(&ref, (void *)b, n, ttype[ty]);
        xs_state got;
        memcpy(&got, res, sizeof got);
        CHECK(resbytes == (int64_t)sizeof got && got.x == ref.x && got.n == ref.n, "%s: user op checksum differs",
              where);
        break;
    }
    }
}

/* The handle for op number `which` (freed by the caller when parameterised). */
static ferry_op make_op(int ty, int which, const params *p)
{
    ferry_op op = FERRY_OP_NULL;
    switch (which) {
    case 0: return FERRY_OP_SUM;
    case 1: return FERRY_OP_MIN;
    case 2: return FERRY_OP_MAX;
    case 3: return FERRY_OP_COUNT;
    case 4: return FERRY_OP_MEAN;
    case 5: return FERRY_OP_VARIANCE;
    case 6: ferry_op_histogram(p->bins, p->hlo, p->hhi, &op); return op;
    case 7: ferry_op_lookup(p->llo, p->lhi, p->cap, &op); return op;
    case 8: ferry_op_threshold(p->thr, 1000000, &op); return op;
    case 9: ferry_op_topk(p->k, &op); return op;
    default: (void)ty; return op_xs;
    }
}

static void make_files(MPI_Comm comm)
{
    char path[512];
    if (d_rank == 0) {
        for (int ty = 0; ty < TRAW; ty++) {
            char *buf = malloc((size_t)NTOT * (size_t)tsize[ty]);
            for (int64_t k = 0; k < NTOT; k++) {
                if (ty == TI32) ((int32_t *)buf)[k] = d_i32(k);
                if (ty == TI64) ((int64_t *)buf)[k] = d_i64(k);
                if (ty == TF32) ((float *)buf)[k] = d_f32(k);
                if (ty == TF64) ((double *)buf)[k] = d_f64(k);
            }
            d_path(path, sizeof path, tname[ty]);
            strcat(path, ".dcops");
            FILE *f = fopen(path, "wb");
            CHECK(f && fwrite(buf, (size_t)tsize[ty], NTOT, f) == NTOT, "cannot write %s", path);
            if (f)
                fclose(f);
            free(buf);
        }
    }
    MPI_Barrier(comm);
}

static void set_view(view *v, int ty, int kind, MPI_Datatype et)
{
    v->kind = kind;
    int es = tsize[ty] == 12 ? 4 : tsize[ty];
    if (kind == 0) {
        int64_t part = NTOT / d_size;
        v->disp = (MPI_Offset)d_rank * part * tsize[ty];
        v->ft = et;
    } else {
        MPI_Datatype blk;
        MPI_Type_contiguous(BLOCK, et, &blk);
        v->blockbytes = (int64_t)BLOCK * es;
        v->extent = v->blockbytes * d_size;
        MPI_Type_create_resized(blk, 0, (MPI_Aint)v->extent, &v->ft);
        MPI_Type_commit(&v->ft);
        MPI_Type_free(&blk);
        v->disp = (MPI_Offset)d_rank * v->blockbytes;
    }
}

static void run_case(MPI_Comm comm, int ty, int kind)
{
    char path[512], where[160];
    d_path(path, sizeof path, tname[ty == TRAW ? TI32 : ty]);
    strcat(path, ".dcops");
    MPI_Datatype et = ty == TRAW ? MPI_INT : ttype[ty];
    view v;
    set_view(&v, ty, kind, et);
    int64_t es = tsize[ty];
    int64_t mine = kind == 0 ? NTOT / d_size : NTOT / d_size; /* about what the view gives me */
    if (ty == TRAW)
        mine /= 3;
    int64_t cnt[3] = {mine / 3, mine / 3, mine - 2 * (mine / 3) + 7};

    /* traditional: read everything here */
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "MPI_File_open %s: %s", path, d_class_name(rc));
    MPI_File_set_view(fh, v.disp, et, v.ft, "native", MPI_INFO_NULL);
    char *data = malloc((size_t)((cnt[0] + cnt[1] + cnt[2]) * es));
    piece pc[3];
    int64_t at = 0;
    for (int i = 0; i < 3; i++) {
        MPI_Status st;
        MPI_File_read(fh, data + at * es, (int)cnt[i], ttype[ty], &st);
        MPI_Count b = 0;
        MPI_Get_elements_x(&st, MPI_BYTE, &b);
        pc[i].data = data + at * es;
        pc[i].n = b / es;
        pc[i].bytes = b;
        pc[i].pos0 = at * es;
        at += cnt[i];
    }
    MPI_File_close(&fh);

    /* decoupled: the same parts, the results only */
    ferry_dfile d;
    rc = ferry_decouple_open(comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &d);
    CHECK(rc == MPI_SUCCESS, "ferry_decouple_open %s: %s", path, d_class_name(rc));
    rc = ferry_decouple_set_view(d, v.disp, et, v.ft, "native", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "ferry_decouple_set_view: %s", d_class_name(rc));
    params p = params_of(ty);
    int nops = 11;
    char *res = malloc(1 << 24);
    for (int which = 0; which < nops; which++) {
        if (ty == TRAW && which != 3 && which != 10)
            continue;
        ferry_op op = make_op(ty, which, &p);
        MPI_Count rsize = -1;
        ferry_op_result_size(op, ttype[ty], &rsize);
        ferry_decouple_seek(d, 0, MPI_SEEK_SET);
        for (int i = 0; i < 3; i++) {
            MPI_Status st;
            snprintf(where, sizeof where, "%s view %d %s piece %d", tname[ty], kind, opname(which), i);
            memset(res, 0xA5, (size_t)rsize);
            rc = ferry_decouple_read(d, res, cnt[i], ttype[ty], op, &st);
            CHECK(rc == MPI_SUCCESS, "%s: %s", where, d_class_name(rc));
            MPI_Count b = -1;
            MPI_Get_elements_x(&st, MPI_BYTE, &b);
            CHECK(b == pc[i].bytes, "%s: status %lld bytes, traditional %lld", where, (long long)b,
                  (long long)pc[i].bytes);
            if (rc == MPI_SUCCESS)
                compare(ty, which, &p, &v, &pc[i], res, rsize, where);
        }
        if (op != op_xs && which >= 6)
            ferry_op_free(&op);
    }
    if (ty == TRAW) {
        int64_t dummy;
        rc = ferry_decouple_read(d, &dummy, 1, ttype[ty], FERRY_OP_SUM, MPI_STATUS_IGNORE);
        CHECK(d_class(rc) == MPI_ERR_TYPE, "sum over opaque records: %s, expected MPI_ERR_TYPE", d_class_name(rc));
    } else {
        /* nonblocking: three reads in flight at once, then MPI_Waitall */
        int64_t sums[3];
        MPI_Request req[3];
        MPI_Status sts[3];
        ferry_decouple_seek(d, 0, MPI_SEEK_SET);
        for (int i = 0; i < 3; i++) {
            rc = ferry_decouple_iread(d, &sums[i], cnt[i], ttype[ty], FERRY_OP_SUM, &req[i]);
            CHECK(rc == MPI_SUCCESS, "iread: %s", d_class_name(rc));
        }
        MPI_Offset pos;
        ferry_decouple_get_position(d, &pos);
        CHECK(pos * (ty == TRAW ? 4 : es) == (cnt[0] + cnt[1] + cnt[2]) * es, "iread moves the pointer by what was asked");
        rc = MPI_Waitall(3, req, sts);
        CHECK(rc == MPI_SUCCESS, "MPI_Waitall: %s", d_class_name(rc));
        for (int i = 0; i < 3; i++) {
            snprintf(where, sizeof where, "%s view %d iread sum piece %d", tname[ty], kind, i);
            MPI_Count b = -1;
            MPI_Get_elements_x(&sts[i], MPI_BYTE, &b);
            CHECK(b == pc[i].bytes, "%s: status %lld bytes, traditional %lld", where, (long long)b, (long long)pc[i].bytes);
            compare(ty, 0, &p, &v, &pc[i], (const char *)&sums[i], 8, where);
        }
        /* and one polled with MPI_Test while "computing" */
        ferry_op h;
        ferry_op_histogram(p.bins, p.hlo, p.hhi, &h);
        ferry_decouple_seek(d, 0, MPI_SEEK_SET);
        MPI_Request r;
        rc = ferry_decouple_iread(d, res, cnt[0], ttype[ty], h, &r);
        int flag = 0;
        long spins = 0;
        while (!flag) {
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            spins++;
        }
        snprintf(where, sizeof where, "%s view %d iread histogram (%ld tests)", tname[ty], kind, spins);
        compare(ty, 6, &p, &v, &pc[0], res, p.bins * 8, where);
        ferry_op_free(&h);
        /* a request freed without waiting is collected by the library */
        ferry_decouple_seek(d, 0, MPI_SEEK_SET);
        int64_t lost;
        rc = ferry_decouple_iread(d, &lost, cnt[0], ttype[ty], FERRY_OP_COUNT, &r);
        MPI_Request_free(&r);
    }
    rc = ferry_decouple_close(&d);
    CHECK(rc == MPI_SUCCESS && d == FERRY_DFILE_NULL, "ferry_decouple_close: %s", d_class_name(rc));
    free(res);
    free(data);
    if (kind == 1)
        MPI_Type_free(&v.ft);
}

int main(int argc, char **argv)
{
    /* user operations: registered on every process before the data
     * processes start serving, which may be inside MPI_Init */
    ferry_op_register("xor-checksum", xs_fn, xs_combine, sizeof(xs_state), &op_xs);
    MPI_Init(&argc, &argv);
    int rc = ferry_decouple_init();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ferry_decouple_init: %s\n", d_class_name(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!ferry_is_data_process()) {
        MPI_Comm comm = ferry_comm_local();
        MPI_Comm_rank(comm, &d_rank);
        MPI_Comm_size(comm, &d_size);
        ttype[TI32] = MPI_INT32_T;
        ttype[TI64] = MPI_INT64_T;
        ttype[TF32] = MPI_FLOAT;
        ttype[TF64] = MPI_DOUBLE;
        MPI_Type_contiguous(3, MPI_INT, &ttype[TRAW]);
        MPI_Type_commit(&ttype[TRAW]);
        make_files(comm);
        for (int ty = 0; ty < NT; ty++)
            for (int kind = 0; kind < 2; kind++)
                run_case(comm, ty, kind);
        int fails = 0;
        MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
        MPI_Comm inter = ferry_comm_inter();
        int ndata = 0;
        if (inter != MPI_COMM_NULL)
            MPI_Comm_remote_size(inter, &ndata);
        if (d_rank == 0)
            printf("t_dc_ops: %s (%d compute, %d data processes)\n", fails ? "FAILED" : "passed", d_size, ndata);
        MPI_Type_free(&ttype[TRAW]);
        if (fails) {
            MPI_Finalize();
            return 1;
        }
    }
    MPI_Finalize();
    return 0;
}
