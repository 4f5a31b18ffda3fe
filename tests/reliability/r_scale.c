/*
 * Collective patterns at any rank count (run at 32 ranks): ranks interleaved
 * through a vector view, a view with holes over a fresh file, every other
 * rank with nothing to write, amounts growing with the rank, and the shared
 * pointer in rank order. Sized per rank, so it scales; checked in the
 * program and compared byte for byte with the native MPI-IOs by diffrun.sh.
 */
#include "mpi/tutil.h"

#define BLK 40
#define NBLK 300

static void fill(unsigned char *b, long long n, long long base, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(base + i, salt);
}

static MPI_File open_fresh(const char *name)
{
    char p[600];
    t_path(p, sizeof p, name);
    t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", name);
    return fh;
}

static void interleaved(int hole)
{
    MPI_File fh = open_fresh(hole ? "scale_holes.dat" : "scale_interleaved.dat");
    int len = hole ? BLK / 2 : BLK;
    MPI_Datatype v, ft;
    MPI_Type_vector(NBLK, len, BLK * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)BLK * t_size * NBLK, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    int n = len * NBLK;
    unsigned char *w = malloc((size_t)n), *r = malloc((size_t)n);
    fill(w, n, (long long)t_rank << 20, hole + 1);
    MPI_Status st;
    int c = -1;
    int rc = MPI_File_write_all(fh, w, n, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    EXPECT(rc == MPI_SUCCESS && c == n, "write_all: %s %d", t_class_name(rc), c);
    t_report("%s write %s count=%d", hole ? "holes" : "interleaved", t_class_name(rc), c);
    int nb = (t_rank + 1) % t_size;
    MPI_File_set_view(fh, (MPI_Offset)nb * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    rc = MPI_File_read_all(fh, r, n, MPI_BYTE, &st);
    fill(w, n, (long long)nb << 20, hole + 1);
    MPI_Get_count(&st, MPI_BYTE, &c);
    EXPECT(rc == MPI_SUCCESS && c == n && !memcmp(r, w, (size_t)n), "read_all of the neighbour's share");
    t_report("%s read %s count=%d", hole ? "holes" : "interleaved", t_class_name(rc), c);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);
    free(w);
    free(r);
}

static void uneven(void)
{
    MPI_File fh = open_fresh("scale_uneven.dat");
    long long n = t_rank % 2 ? 0 : 10000;
    long long m = 100 + (long long)t_rank * 3001;
    long long cap = (n > m ? n : m) + 64;
    unsigned char *b = malloc((size_t)cap), *r = malloc((size_t)cap);
    fill(b, n, (long long)t_rank * 10000, 3);
    MPI_Status st;
    int c = -1;
    int rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * 10000, b, (int)n, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    /* at 32 ranks ROMIO reports bytes for the ranks that wrote none: the
     * counts are checked here, and left out of the comparison */
    EXPECT(rc == MPI_SUCCESS, "every other rank writes nothing: %s", t_class_name(rc));
    EXPECT_STD(c == n, "a write of %lld bytes reports %d", n, c);
    t_report("zero ranks %s", t_class_name(rc));
    MPI_Offset at = (MPI_Offset)t_size * 10000;
    for (int q = 0; q < t_rank; q++)
        at += 100 + (long long)q * 3001;
    fill(b, m, at, 4);
    rc = MPI_File_write_at_all(fh, at, b, (int)m, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "uneven write");
    rc = MPI_File_read_at_all(fh, at, r, (int)m + 50, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    EXPECT(rc == MPI_SUCCESS && !memcmp(b, r, (size_t)m), "uneven read back");
    /* at 32 ranks both natives report 50 bytes past the end of the file */
    EXPECT_STD(t_rank != t_size - 1 || c == m, "short count at end of file: %d", c);
    t_report("uneven read %s", t_class_name(rc));
    MPI_File_close(&fh);
    free(b);
    free(r);
}

static void ordered(void)
{
    MPI_File fh = open_fresh("scale_ordered.dat");
    char rec[100];
    int len = 20 + t_rank % 7 * 10;
    memset(rec, 'A' + t_rank % 26, sizeof rec);
    MPI_Status st;
    int rc = MPI_File_write_ordered(fh, rec, len, MPI_CHAR, &st);
    EXPECT(rc == MPI_SUCCESS, "write_ordered");
    /* any order of these gives the same bytes */
    memset(rec, 'S', 10);
    rc = MPI_File_write_shared(fh, rec, 10, MPI_CHAR, &st);
    EXPECT(rc == MPI_SUCCESS, "write_shared");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    long long want = 10ll * t_size;
    for (int q = 0; q < t_size; q++)
        want += 20 + q % 7 * 10;
    EXPECT(pos == want, "shared position %lld, want %lld", (long long)pos, want);
    t_report("ordered pos=%lld", (long long)pos);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    interleaved(0);
    interleaved(1);
    uneven();
    ordered();
    return t_finish("r_scale");
}
