/*
 * Randomized differential tester: seeded random nested memory types and
 * random valid views (nonnegative, nondecreasing, non-overlapping
 * filetypes), random etype, displacement, offset, sieving hint and call
 * kind. Each rank writes its own region through its view, checks the region
 * against the MPI_Unpack oracle and reads its data back; the runner compares
 * the file with the native MPI-IO's. A failure names its seed:
 *
 *   t_random -s FIRST -n COUNT     (seeds FIRST .. FIRST+COUNT-1)
 *
 * Steers clear of the natives' own datatype bugs (see tests/datatype):
 * no negative strides (Open MPI 4.1 mis-packs overlapping negative vectors),
 * no empty struct members (Open MPI 4.1 mis-packs them; MPICH 4.0 crashes on
 * a zero-size member with a nonzero lower bound), and, on MPICH, where
 * ROMIO is the only native, no subarray, darray or resized inside another
 * constructor (ROMIO 4.0 misplaces them there) and no memory type with
 * blocks out of order in a collective call (ROMIO's two-phase assumes order).
 * Open MPI's romio321 mis-writes and then hangs on these seeds; OMPIO is the
 * reference there, so under romio321 the tester only opens and closes.
 * MPICH 4.0 itself (MPI_Pack, and ROMIO) goes wrong after a few hundred
 * types have come and gone in one run: run long seed ranges there in
 * batches of about 60.
 */
#include "vtypes.h"

#include <stdarg.h>

static uint64_t rs;
static char desc[4096];
static size_t dlen;

static uint64_t next(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static int64_t range(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1)); }

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (dlen < sizeof desc)
        dlen += (size_t)vsnprintf(desc + dlen, sizeof desc - dlen, fmt, ap);
    va_end(ap);
}

static MPI_Datatype leaf(void)
{
    static const char *ns[4] = {"byte", "int", "double", "short"};
    MPI_Datatype all[4] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, MPI_SHORT};
    int i = (int)range(0, 3);
    say("%s", ns[i]);
    return all[i];
}

static int named(MPI_Datatype t)
{
    int ni, na, nd, c;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
    return c == MPI_COMBINER_NAMED;
}
static void drop(MPI_Datatype t)
{
    if (!named(t))
        MPI_Type_free(&t);
}
static int64_t ext_of(MPI_Datatype t)
{
    int64_t lb, e;
    vt_extent(t, &lb, &e);
    return e;
}

/* A type whose blocks are in increasing order, do not overlap, and lie in
 * [0, extent): valid as a filetype, and tiles without overlap. With `any`,
 * block order is free (memory types): still non-overlapping. */
static MPI_Datatype gen(int depth, int any, int top)
{
    if (depth == 0 || range(0, 3) == 0)
        return leaf();
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int k = (int)range(0, 10);
#ifndef OPEN_MPI
    if (!top && k >= 8)
        k = (int)range(0, 7);
#else
    (void)top;
#endif
    if (k == 0) {
        int n = (int)range(1, 4);
        say("contig(%d,", n);
        MPI_Datatype c = gen(depth - 1, any, 0);
        MPI_Type_contiguous(n, c, &t);
        drop(c);
    } else if (k == 1 || k == 2) {
        int n = (int)range(1, 5), bl = (int)range(1, 3), st = bl + (int)range(0, 3);
        say("%svector(%d,%d,%d,", k == 2 ? "h" : "", n, bl, st);
        MPI_Datatype c = gen(depth - 1, any, 0);
        if (k == 1)
            MPI_Type_vector(n, bl, st, c, &t);
        else
            MPI_Type_create_hvector(n, bl, (MPI_Aint)st * ext_of(c) + range(0, 5), c, &t);
        drop(c);
    } else if (k == 3 || k == 4 || k == 5 || k == 6) {
        int n = (int)range(1, 4), bl[4], d[4];
        MPI_Aint hd[4];
        say("%s(%d,", k == 3 ? "indexed" : k == 4 ? "hindexed" : k == 5 ? "indexed_block" : "hindexed_block", n);
        MPI_Datatype c = gen(depth - 1, any, 0);
        int64_t e = ext_of(c), at = 0, b0 = range(1, 3), pos[4];
        for (int i = 0; i < n; i++) {
            bl[i] = k >= 5 ? (int)b0 : (int)range(1, 3);
            pos[i] = at + range(0, 2);
            at = pos[i] + bl[i];
        }
        /* memory may list its blocks in any order: shuffle whole blocks */
        for (int i = n - 1; any && i > 0; i--) {
            int j = (int)range(0, i), l = bl[i];
            int64_t p = pos[i];
            pos[i] = pos[j], bl[i] = bl[j];
            pos[j] = p, bl[j] = l;
        }
        for (int i = 0; i < n; i++) {
            d[i] = (int)pos[i];
            hd[i] = (MPI_Aint)(pos[i] * e);
        }
        if (k == 3)
            MPI_Type_indexed(n, bl, d, c, &t);
        else if (k == 4)
            MPI_Type_create_hindexed(n, bl, hd, c, &t);
        else if (k == 5)
            MPI_Type_create_indexed_block(n, (int)b0, d, c, &t);
        else
            MPI_Type_create_hindexed_block(n, (int)b0, hd, c, &t);
        drop(c);
    } else if (k == 7) {
        int n = (int)range(1, 3), bl[3];
        MPI_Aint d[3];
        MPI_Datatype cs[3];
        say("struct(");
        int64_t at = 0;
        for (int i = 0; i < n; i++) {
            cs[i] = gen(depth - 1, any, 0);
            say(i + 1 < n ? "," : "");
            bl[i] = (int)range(1, 2);
            MPI_Count tlb, text;
            MPI_Type_get_true_extent_x(cs[i], &tlb, &text);
            d[i] = (MPI_Aint)(at + range(0, 6));
            at = d[i] + (bl[i] - 1) * ext_of(cs[i]) + tlb + text;
        }
        MPI_Type_create_struct(n, bl, d, cs, &t);
        for (int i = 0; i < n; i++)
            drop(cs[i]);
    } else if (k == 8) {
        int nd = (int)range(1, 3), sz[3], sub[3], st[3];
        int order = range(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        say("subarray(%d,%s,", nd, order == MPI_ORDER_C ? "C" : "F");
        for (int i = 0; i < nd; i++) {
            sz[i] = (int)range(1, 5);
            sub[i] = (int)range(1, sz[i]);
            st[i] = (int)range(0, sz[i] - sub[i]);
        }
        MPI_Datatype c = gen(depth - 1, any, 0);
        MPI_Type_create_subarray(nd, sz, sub, st, order, c, &t);
        drop(c);
    } else if (k == 9) {
        int g[2] = {(int)range(2, 7), (int)range(2, 7)};
        int dist = range(0, 1) ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_CYCLIC;
        int d[2] = {dist, MPI_DISTRIBUTE_BLOCK}, a[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
        int p[2] = {2, 1}, r = (int)range(0, 1);
        say("darray(%s,r%d,", dist == MPI_DISTRIBUTE_BLOCK ? "block" : "cyclic", r);
        MPI_Datatype c = gen(depth - 1, any, 0);
        MPI_Type_create_darray(2, r, 2, g, d, a, p, MPI_ORDER_C, c, &t);
        drop(c);
    } else {
        say("resized(");
        MPI_Datatype c = gen(depth - 1, any, 0);
        MPI_Count tlb, text;
        MPI_Type_get_true_extent_x(c, &tlb, &text);
        int64_t e = ext_of(c);
        int64_t ub = tlb + text > e ? tlb + text : e;
        MPI_Type_create_resized(c, 0, (MPI_Aint)(ub + range(0, 12)), &t);
        drop(c);
    }
    say(")");
    MPI_Type_commit(&t);
    return t;
}

/* Generation is retried until the type holds data (a zero-size filetype
 * cannot be written through) and is not huge. */
static MPI_Datatype gen_ok(int any)
{
    for (;;) {
        size_t mark = dlen;
        MPI_Datatype t = gen(3, any, 1);
        int64_t s = vt_size(t), lb, e;
        vt_extent(t, &lb, &e);
        MPI_Count tlb, text;
        MPI_Type_get_true_extent_x(t, &tlb, &text);
        /* data beyond the extent would make instances overlap */
        if (s > 0 && s < 20000 && e < 200000 && tlb >= 0 && lb == 0 && tlb + text <= e)
            return t;
        drop(t);
        dlen = mark;
        desc[dlen] = 0;
    }
}

static int failures_before;

static void one_seed(MPI_File fh, int seed, int64_t *base)
{
    rs = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 1000003u + (uint64_t)t_rank * 7919u);
    for (int i = 0; i < 4; i++)
        next();
    dlen = 0;
    desc[0] = 0;
    say("seed %d rank %d: file ", seed, t_rank);
    MPI_Datatype ft = gen_ok(0);
    say(" mem ");
    int coll = seed % 5 == 4;
#ifdef OPEN_MPI
    MPI_Datatype mt = gen_ok(1);
#else
    MPI_Datatype mt = gen_ok(!coll);
#endif
    int64_t sf = vt_size(ft), sm = vt_size(mt);
    /* the etype must agree across ranks: int only if every rank can take it */
    int can = sf % 4 == 0 && sm % 4 == 0, all = 0;
    MPI_Allreduce(&can, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Datatype et = all && seed % 2 ? MPI_INT : MPI_BYTE;
    int64_t es = et == MPI_INT ? 4 : 1;
    int64_t nm = range(1, 4);
    int64_t total = nm * sm;
    int64_t off = range(0, 3); /* in etypes */
    int64_t skip = off * es;
    /* instances of the filetype touched: through data byte skip + total */
    int64_t nf = (skip + total + sf - 1) / sf;
    int64_t disp0 = range(0, 64);
    int64_t span = disp0 + vt_span(ft, nf) + 8, R = 0;
    MPI_Allreduce(&span, &R, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    R = (R + 63) / 64 * 64;
    MPI_Offset region = *base + (MPI_Offset)t_rank * R, disp = region + disp0;
    *base += (int64_t)t_size * R;
    static const char *ds[3] = {"automatic", "enable", "disable"};
    int dsi = (int)(seed % 3);
    if (getenv("T_RANDOM_SAY"))
        fprintf(stderr, "%s\n", desc);
    say(" etype %s disp %lld off %lld count %lld ds %s%s", et == MPI_INT ? "int" : "byte", (long long)disp0,
        (long long)off, (long long)nm, ds[dsi], coll ? " collective" : "");

    unsigned char *image = malloc((size_t)R), *back = malloc((size_t)R);
    for (int64_t i = 0; i < R; i++)
        image[i] = t_byte(region + i, seed);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_write_at(fh, region, image, (int)R, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    int64_t mo, ml;
    char *mbuf = vt_alloc(mt, nm, &mo, &ml);
    for (int64_t i = 0; i < ml; i++)
        mbuf[i] = (char)t_byte(i, 100 + seed + t_rank);
    char *stream = malloc((size_t)total);
    int pos = 0;
    MPI_Pack(mbuf + mo, (int)nm, mt, stream, (int)total, &pos, MPI_COMM_SELF);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_read", ds[dsi]);
    MPI_Info_set(info, "romio_ds_write", ds[dsi]);
    MPI_Info_set(info, "ind_wr_buffer_size", "2048");
    MPI_Info_set(info, "ind_rd_buffer_size", "4096");
    int rc = MPI_File_set_view(fh, disp, et, ft, "native", info);
    MPI_Info_free(&info);
    EXPECT(rc == MPI_SUCCESS, "%s: set_view %s", desc, t_class_name(rc));
    MPI_Status st;
    rc = coll ? MPI_File_write_at_all(fh, off, mbuf + mo, (int)nm, mt, &st)
              : MPI_File_write_at(fh, off, mbuf + mo, (int)nm, mt, &st);
    int cnt = -1;
    MPI_Get_count(&st, mt, &cnt);
    EXPECT(rc == MPI_SUCCESS && cnt == nm, "%s: write %s count %d", desc, t_class_name(rc), cnt);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    /* oracle: the stream lands at data bytes skip .. skip+total of the tiled filetype */
    int64_t fo, fl;
    char *tiled = vt_alloc(ft, nf, &fo, &fl);
    char *full = malloc((size_t)(nf * sf));
    pos = 0;
    MPI_Pack(image + disp0, (int)nf, ft, full, (int)(nf * sf), &pos, MPI_COMM_SELF);
    memcpy(full + skip, stream, (size_t)total);
    pos = 0;
    MPI_Unpack(full, (int)(nf * sf), &pos, image + disp0, (int)nf, ft, MPI_COMM_SELF);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, region, back, (int)R, MPI_BYTE, MPI_STATUS_IGNORE);
    int64_t bad = -1;
    for (int64_t i = 0; i < R && bad < 0; i++)
        if (back[i] != image[i])
            bad = i;
    EXPECT(bad < 0, "%s: region byte %lld is wrong", desc, (long long)bad);
    if (bad >= 0 && getenv("T_RANDOM_DEBUG")) {
        int64_t lb, e;
        vt_extent(ft, &lb, &e);
        MPI_Count tlb, text;
        MPI_Type_get_true_extent_x(ft, &tlb, &text);
        fprintf(stderr, "ft size %lld lb %lld extent %lld true %lld+%lld nf %lld skip %lld total %lld\n",
                (long long)sf, (long long)lb, (long long)e, (long long)tlb, (long long)text, (long long)nf,
                (long long)skip, (long long)total);
        for (int64_t i = 0; i < R; i++)
            fprintf(stderr, "%lld:%02x/%02x%s", (long long)i, back[i], image[i], back[i] != image[i] ? "*\n" : " ");
        fprintf(stderr, "\n");
    }

    MPI_File_set_view(fh, disp, et, ft, "native", MPI_INFO_NULL);
    int64_t ro, rl;
    char *rbuf = vt_alloc(mt, nm, &ro, &rl);
    rc = coll ? MPI_File_read_at_all(fh, off, rbuf + ro, (int)nm, mt, &st)
              : MPI_File_read_at(fh, off, rbuf + ro, (int)nm, mt, &st);
    MPI_Get_count(&st, mt, &cnt);
    char *s2 = malloc((size_t)total);
    pos = 0;
    MPI_Pack(rbuf + ro, (int)nm, mt, s2, (int)total, &pos, MPI_COMM_SELF);
    EXPECT(rc == MPI_SUCCESS && cnt == nm && !memcmp(s2, stream, (size_t)total), "%s: read back (count %d)", desc,
           cnt);
    t_report("seed %d write_count=%d read_count=%d digest=%llx", seed, (int)nm, cnt, vt_digest(s2, total));
    if (t_failures > failures_before)
        fprintf(stderr, "t_random: failing case: %s\n", desc);
    failures_before = t_failures;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    free(image);
    free(back);
    free(mbuf);
    free(stream);
    free(tiled);
    free(full);
    free(rbuf);
    free(s2);
    drop(ft);
    drop(mt);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int first = 1, count = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-s"))
            first = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-n"))
            count = atoi(argv[i + 1]);
    }
    char path[600];
    t_path(path, sizeof path, "random.dat");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    int64_t base = 0;
#ifdef OPEN_MPI
    MPI_Info used;
    int romio = 0;
    if (!t_under_ferry() && MPI_File_get_info(fh, &used) == MPI_SUCCESS) {
        char v[64];
        MPI_Info_get(used, "romio_cb_read", sizeof v - 1, v, &romio);
        MPI_Info_free(&used);
    }
    if (romio)
        count = 0;
#endif
    for (int s = first; s < first + count; s++)
        one_seed(fh, s, &base);
    MPI_File_close(&fh);
    if (t_rank == 0)
        printf("t_random: seeds %d..%d\n", first, first + count - 1);
    return t_finish("t_random");
}
