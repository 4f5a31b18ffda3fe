/*
 * Collective access patterns that two-phase and local aggregation must get
 * exactly right: ranks interleaved at fine grain through a vector view,
 * views with holes over a fresh file (holes read as zero) and over old
 * content (holes keep it), ranks with nothing to write (open-mpi/ompi#7414
 * hangs there), and uneven amounts per rank.
 *
 * With T_EXPECT_FAIL=<class name> set (fault-injection runs), every rank must
 * see that class from the first collective write instead.
 */
#include "tutil.h"

#define BLK 24 /* bytes per rank per stripe of the interleaved view */
#define NBLK 700

static void fill(unsigned char *b, long long n, long long base, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(base + i, salt);
}

/* Ranks interleave BLK-byte blocks: rank r owns blocks r, r+P, r+2P, ... */
static void interleaved(const char *path, int salt, MPI_Offset disp)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    MPI_Datatype ft;
    MPI_Type_vector(NBLK, BLK, BLK * t_size, MPI_BYTE, &ft);
    MPI_Datatype ftr;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)BLK * t_size * NBLK, &ftr);
    MPI_Type_commit(&ftr);
    rc = MPI_File_set_view(fh, disp + (MPI_Offset)t_rank * BLK, MPI_BYTE, ftr, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view");
    unsigned char *w = malloc(BLK * NBLK), *r = malloc(BLK * NBLK);
    fill(w, BLK * NBLK, (long long)t_rank << 20, salt);
    MPI_Status st;
    const char *want_fail = getenv("T_EXPECT_FAIL");
    rc = MPI_File_write_all(fh, w, BLK * NBLK, MPI_BYTE, &st);
    if (want_fail && *want_fail) {
        t_report("fault write_all %s", t_class_name(rc));
        EXPECT(!strcmp(t_class_name(rc), want_fail), "expected %s on every rank, got %s", want_fail,
               t_class_name(rc));
        MPI_File_close(&fh);
        MPI_Type_free(&ftr);
        MPI_Type_free(&ft);
        free(w);
        free(r);
        return;
    }
    int c = -1;
    MPI_Get_count(&st, MPI_BYTE, &c);
    EXPECT(rc == MPI_SUCCESS && c == BLK * NBLK, "interleaved write_all: %s %d", t_class_name(rc), c);
    t_report("interleaved write rc=%s count=%d", t_class_name(rc), c);
    /* read back a neighbour's share through the neighbour's view, after
     * sync-barrier-sync: what MPI asks for before other ranks' bytes must
     * show where client caches are not coherent (nodes of a cluster) */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int nb = (t_rank + 1) % t_size;
    rc = MPI_File_set_view(fh, disp + (MPI_Offset)nb * BLK, MPI_BYTE, ftr, "native", MPI_INFO_NULL);
    rc = MPI_File_read_all(fh, r, BLK * NBLK, MPI_BYTE, &st);
    fill(w, BLK * NBLK, (long long)nb << 20, salt);
    EXPECT(rc == MPI_SUCCESS && !memcmp(w, r, BLK * NBLK), "interleaved read_all of the neighbour");
    MPI_Get_count(&st, MPI_BYTE, &c);
    t_report("interleaved read rc=%s count=%d", t_class_name(rc), c);
    MPI_File_close(&fh);
    MPI_Type_free(&ftr);
    MPI_Type_free(&ft);
    free(w);
    free(r);
}

/* Every rank writes only the first half of each of its blocks; the file
 * either is fresh (holes must read zero) or has old content (holes keep it). */
static void holes(const char *path, int old_content)
{
    MPI_File fh;
    long long total = (long long)BLK * t_size * NBLK;
    if (old_content) {
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        EXPECT(rc == MPI_SUCCESS, "open");
        long long per = total / t_size;
        unsigned char *o = malloc((size_t)per);
        fill(o, per, (long long)t_rank * per, 99);
        MPI_File_write_at_all(fh, (MPI_Offset)t_rank * per, o, (int)per, MPI_BYTE, MPI_STATUS_IGNORE);
        free(o);
        MPI_File_close(&fh);
    }
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Datatype ft, ftr;
    MPI_Type_vector(NBLK, BLK / 2, BLK * t_size, MPI_BYTE, &ft);
    MPI_Type_create_resized(ft, 0, (MPI_Aint)BLK * t_size * NBLK, &ftr);
    MPI_Type_commit(&ftr);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ftr, "native", MPI_INFO_NULL);
    unsigned char *w = malloc(BLK * NBLK);
    fill(w, BLK / 2 * NBLK, (long long)t_rank << 20, 5);
    rc = MPI_File_write_all(fh, w, BLK / 2 * NBLK, MPI_BYTE, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "write with holes");
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        /* check every byte with plain reads */
        FILE *fp = fopen(path, "rb");
        unsigned char *all = calloc((size_t)total, 1);
        size_t got = fp ? fread(all, 1, (size_t)total, fp) : 0;
        if (fp)
            fclose(fp);
        long long bad = 0;
        for (long long i = 0; i < (long long)got; i++) {
            long long blk = i / BLK, in = i % BLK;
            int owner = (int)(blk % t_size);
            long long k = blk / t_size;
            unsigned char want;
            if (in < BLK / 2)
                want = t_byte(((long long)owner << 20) + k * (BLK / 2) + in, 5);
            else
                want = old_content ? t_byte(i, 99) : 0;
            bad += all[i] != want;
        }
        EXPECT(bad == 0, "%lld wrong bytes (%s file)", bad, old_content ? "old" : "fresh");
        t_report("holes %s size=%lld", old_content ? "old" : "fresh", (long long)got);
        free(all);
    }
    MPI_Type_free(&ftr);
    MPI_Type_free(&ft);
    free(w);
}

/* Only even ranks have data; then uneven sizes. */
static void uneven(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    long long n = t_rank % 2 ? 0 : 100000;
    long long m = 1000 + (long long)t_rank * 70001;
    /* sized by the rank: past 4 ranks m outgrows a fixed buffer */
    unsigned char *b = malloc((size_t)(m > n ? m : n)), *r = malloc((size_t)m + 50);
    fill(b, n, (long long)t_rank * 100000, 3);
    MPI_Status st;
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * 100000, b, (int)n, MPI_BYTE, &st);
    int c = -1;
    MPI_Get_count(&st, MPI_BYTE, &c);
    EXPECT(rc == MPI_SUCCESS && c == n, "half the ranks write nothing");
    t_report("zero ranks rc=%s count=%d", t_class_name(rc), c);
    MPI_Offset at = (MPI_Offset)t_size * 100000;
    for (int r = 0; r < t_rank; r++)
        at += 1000 + (long long)r * 70001;
    fill(b, m, at, 4);
    rc = MPI_File_write_at_all(fh, at, b, (int)m, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "uneven write");
    rc = MPI_File_read_at_all(fh, at, r, (int)m + 50, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    int last = t_rank == t_size - 1;
    EXPECT(rc == MPI_SUCCESS && !memcmp(b, r, (size_t)m), "uneven read back");
    EXPECT(!last || c == m, "short count at end of file: %d", c);
    t_report("uneven read rc=%s count=%d", t_class_name(rc), c);
    MPI_File_close(&fh);
    free(b);
    free(r);
}

/* Calls that repeat the last one moved (every rank by the same amount),
 * then one where the ranks move by different amounts, then one where the
 * runs change: engines that reuse the last call's agreement must notice. */
static void shifted_calls(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    enum { L = 3000, NCALL = 6 };
    unsigned char *b = malloc(2 * L), *r = malloc(2 * L);
    /* call k: rank r writes len at base_k + r * L (len = L, or 2 L for the last) */
    const long long P = t_size;
    long long base[NCALL] = {0, 5 * P * L, 9 * P * L, 9 * P * L + 7 * P * L, 30 * P * L, 31 * P * L};
    for (int k = 0; k < NCALL; k++) {
        long long off = base[k] + (long long)t_rank * L;
        if (k == 3) /* moves by a different amount on every rank */
            off = base[k] + (long long)t_rank * L * 2 + (t_rank % 2) * 100;
        int len = k == NCALL - 1 ? 2 * L : L;
        if (k == NCALL - 1)
            off = base[k] + (long long)t_rank * 2 * L;
        fill(b, len, off, 30 + k);
        MPI_Status st;
        rc = MPI_File_write_at_all(fh, off, b, len, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS, "shifted write %d", k);
        rc = MPI_File_read_at_all(fh, off, r, len, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS && !memcmp(b, r, (size_t)len), "shifted read back %d", k);
    }
    t_report("shifted calls done");
    MPI_File_close(&fh);
    free(b);
    free(r);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "coll_interleaved.dat");
    t_fresh(p);
    interleaved(p, 1, 0);
    if (getenv("T_EXPECT_FAIL") && *getenv("T_EXPECT_FAIL"))
        return t_finish("t_coll");
    t_path(p, sizeof p, "coll_interleaved_disp.dat");
    t_fresh(p);
    interleaved(p, 2, 1000);
    t_path(p, sizeof p, "coll_holes_fresh.dat");
    t_fresh(p);
    holes(p, 0);
    t_path(p, sizeof p, "coll_holes_old.dat");
    t_fresh(p);
    holes(p, 1);
    t_path(p, sizeof p, "coll_uneven.dat");
    t_fresh(p);
    uneven(p);
    t_path(p, sizeof p, "coll_shifted.dat");
    t_fresh(p);
    shifted_calls(p);
    return t_finish("t_coll");
}
