/*
 * Every combiner as a filetype (with contiguous memory), as a memory type
 * (with a byte view), and paired (both noncontiguous). Each rank writes its
 * own region of a prefilled file through the view, then checks the whole
 * region against the oracle (holes keep the prefill) and reads its data back
 * through the view. Reads through a view past end of file give short counts.
 *
 *   t_views -m ind|coll -d automatic|enable|disable
 * -m: independent (write_at/read_at) or collective (_at_all) calls;
 * -d: romio_ds_read/romio_ds_write, with small sieving buffers when enabled so
 *     windows end mid-access.
 */
#include "vtypes.h"

static int collective;
static char ds[16] = "automatic";

static int64_t gcd64(int64_t a, int64_t b) { return b ? gcd64(b, a % b) : a; }

static int do_write(MPI_File fh, MPI_Offset off, const void *buf, int64_t n, MPI_Datatype t, MPI_Status *st)
{
    return collective ? MPI_File_write_at_all(fh, off, buf, (int)n, t, st)
                      : MPI_File_write_at(fh, off, buf, (int)n, t, st);
}

static int do_read(MPI_File fh, MPI_Offset off, void *buf, int64_t n, MPI_Datatype t, MPI_Status *st)
{
    return collective ? MPI_File_read_at_all(fh, off, buf, (int)n, t, st)
                      : MPI_File_read_at(fh, off, buf, (int)n, t, st);
}

static void sync_all(MPI_File fh)
{
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
}

static MPI_Info make_info(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_read", ds);
    MPI_Info_set(info, "romio_ds_write", ds);
    if (!strcmp(ds, "enable")) {
        MPI_Info_set(info, "ind_rd_buffer_size", "8192");
        MPI_Info_set(info, "ind_wr_buffer_size", "4096");
    }
    return info;
}

typedef struct combo {
    int f, m; /* case index, or -1 for plain bytes */
} combo;

/* One combination on its own region [base + rank*R, +R). */
static void run_combo(MPI_File fh, combo c, int64_t *base)
{
    MPI_Datatype ft = c.f >= 0 ? vt_cases[c.f].build() : MPI_BYTE;
    MPI_Datatype mt = c.m >= 0 ? vt_cases[c.m].build() : MPI_BYTE;
    const char *fn = c.f >= 0 ? vt_cases[c.f].name : "bytes";
    const char *mn = c.m >= 0 ? vt_cases[c.m].name : "bytes";
    int64_t sf = vt_size(ft), sm = vt_size(mt);
    int64_t total = c.f >= 0 && c.m >= 0 ? sf / gcd64(sf, sm) * sm : 3 * (c.f >= 0 ? sf : sm);
    while (total < 2 * sf)
        total *= 2;
    int64_t nf = total / sf, nm = total / sm;
    int64_t span = c.f >= 0 ? vt_span(ft, nf) : total;
    int64_t R = (span + 16 + 511) / 512 * 512;
    MPI_Offset disp = *base + (MPI_Offset)t_rank * R;
    *base += (int64_t)t_size * R;

    /* prefill the region */
    unsigned char *image = malloc((size_t)R), *back = malloc((size_t)R);
    for (int64_t i = 0; i < R; i++)
        image[i] = t_byte(disp + i, 1);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    int rc = do_write(fh, disp, image, R, MPI_BYTE, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "%s/%s prefill", fn, mn);
    sync_all(fh);

    /* the data, and its stream */
    int64_t morigin, mlen;
    char *mbuf = vt_alloc(mt, nm, &morigin, &mlen);
    for (int64_t i = 0; i < mlen; i++)
        mbuf[i] = (char)t_byte(i, 2 + t_rank);
    char *stream = malloc((size_t)total);
    int pos = 0;
    MPI_Pack(mbuf + morigin, (int)nm, mt, stream, (int)total, &pos, MPI_COMM_SELF);

    MPI_Datatype et = sf % 4 == 0 && c.f >= 0 && c.f != 7 ? MPI_INT : MPI_BYTE; /* 7: struct */
    rc = MPI_File_set_view(fh, disp, et, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "%s/%s set_view: %s", fn, mn, t_class_name(rc));
    MPI_Status st;
    rc = do_write(fh, 0, mbuf + morigin, nm, mt, &st);
    int cnt = -1;
    MPI_Get_count(&st, mt, &cnt);
    EXPECT(rc == MPI_SUCCESS && cnt == nm, "%s/%s write: %s count %d of %lld", fn, mn, t_class_name(rc), cnt,
           (long long)nm);
    t_report("write %s/%s %s count=%d", fn, mn, t_class_name(rc), cnt);
    sync_all(fh);

    /* the region: data where the filetype says, prefill everywhere else */
    if (c.f >= 0) {
        pos = 0;
        MPI_Unpack(stream, (int)total, &pos, image, (int)nf, ft, MPI_COMM_SELF);
    } else {
        memcpy(image, stream, (size_t)total);
    }
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    rc = do_read(fh, disp, back, R, MPI_BYTE, MPI_STATUS_IGNORE);
    int64_t bad = -1;
    for (int64_t i = 0; i < R && bad < 0; i++)
        if (back[i] != image[i])
            bad = i;
    EXPECT(rc == MPI_SUCCESS && bad < 0, "%s/%s file region differs from the oracle at byte %lld", fn, mn,
           (long long)bad);

    /* and back through the view into the memory type */
    rc = MPI_File_set_view(fh, disp, et, ft, "native", MPI_INFO_NULL);
    int64_t o2, l2;
    char *rbuf = vt_alloc(mt, nm, &o2, &l2);
    rc = do_read(fh, 0, rbuf + o2, nm, mt, &st);
    MPI_Get_count(&st, mt, &cnt);
    char *s2 = malloc((size_t)total);
    pos = 0;
    MPI_Pack(rbuf + o2, (int)nm, mt, s2, (int)total, &pos, MPI_COMM_SELF);
    EXPECT(rc == MPI_SUCCESS && cnt == nm && !memcmp(s2, stream, (size_t)total), "%s/%s read back (count %d)", fn,
           mn, cnt);
    t_report("read %s/%s %s count=%d digest=%llx", fn, mn, t_class_name(rc), cnt, vt_digest(s2, total));
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);

    free(image);
    free(back);
    free(mbuf);
    free(rbuf);
    free(stream);
    free(s2);
    if (c.f >= 0)
        MPI_Type_free(&ft);
    if (c.m >= 0)
        MPI_Type_free(&mt);
}

/* Reads through a view running past end of file stop at the first missing
 * data byte; a read that starts past it gets nothing. Rank-private files. */
static void eof_reads(void)
{
    static const int cases[] = {1, 4, 8, 22, 23};
    char name[64], path[600];
    snprintf(name, sizeof name, "views_eof_%s_r%d.dat", collective ? "coll" : "ind", t_rank);
    t_path(path, sizeof path, name);
    MPI_File fh;
    MPI_Info info = make_info();
    int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    EXPECT(rc == MPI_SUCCESS, "eof open");
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const vt_case *vc = &vt_cases[cases[k]];
        MPI_Datatype ft = vc->build();
        int64_t sf = vt_size(ft);
        MPI_File_set_size(fh, 0);
        MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        char *data = malloc((size_t)(4 * sf));
        for (int64_t i = 0; i < 4 * sf; i++)
            data[i] = (char)(i * 13 + 1);
        /* 2 instances and a bit */
        int64_t wrote = 2 * sf + sf / 3;
        MPI_File_write_at(fh, 0, data, (int)wrote, MPI_BYTE, MPI_STATUS_IGNORE);
        char *got = calloc((size_t)(4 * sf), 1);
        MPI_Status st;
        rc = MPI_File_read_at(fh, 0, got, (int)(4 * sf), MPI_BYTE, &st);
        int n = -1;
        MPI_Get_count(&st, MPI_BYTE, &n);
        /* ROMIO counts the whole request as read, EOF or not */
        EXPECT(rc == MPI_SUCCESS && !memcmp(got, data, (size_t)wrote), "eof %s data", vc->name);
        EXPECT_STD(n == wrote, "eof %s: %d of %lld", vc->name, n, (long long)wrote);
        t_report("eof_short %s %s count=%d", vc->name, t_class_name(rc), n);
        rc = MPI_File_read_at(fh, 3 * sf, got, (int)sf, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        EXPECT_STD(rc == MPI_SUCCESS && n == 0, "eof %s past the end: %d", vc->name, n);
        t_report("eof_past %s %s count=%d", vc->name, t_class_name(rc), n);
        free(data);
        free(got);
        MPI_Type_free(&ft);
    }
    MPI_File_close(&fh);
    MPI_File_delete(path, MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-m"))
            collective = !strcmp(argv[i + 1], "coll");
        else if (!strcmp(argv[i], "-d"))
            snprintf(ds, sizeof ds, "%s", argv[i + 1]);
    }
    char name[64], path[600];
    snprintf(name, sizeof name, "views_%s_%s.dat", collective ? "coll" : "ind", ds);
    t_path(path, sizeof path, name);
    MPI_File fh;
    MPI_Info info = make_info();
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    int64_t base = 0;
    for (int i = 0; i < VT_NCASES; i++)
        run_combo(fh, (combo){i, -1}, &base);
    for (int i = 0; i < VT_NCASES; i++)
        run_combo(fh, (combo){-1, i}, &base);
    for (int i = 0; i < VT_NCASES; i++)
        run_combo(fh, (combo){i, (i + 5) % VT_NCASES}, &base);
    MPI_File_close(&fh);
    if (!collective)
        eof_reads();
    return t_finish("t_views");
}
