/*
 * Independent I/O as the forward strategy must carry it, in a program that
 * keeps MPI's consistency rules (sync-barrier-sync between one rank's writes
 * and another's reads): write_at in pieces from 1 byte to 64 KiB, a
 * noncontiguous memory type, a strided view through the individual pointer,
 * zero-length calls, reads of other ranks' data, a short read at end of
 * file, get_size, a collective write over a rank's own independent writes,
 * and a file closed without a sync. Knows nothing of ferry.
 */
#include "mpi/tutil.h"

#define R (3 * 65536 + 1000) /* contiguous bytes per rank */
#define BLK 100              /* strided view: block bytes */
#define NB 50                /* strided view: blocks per rank */

static int count_of(MPI_Status *st)
{
    int c = -2;
    MPI_Get_count(st, MPI_BYTE, &c);
    return c;
}

static void fill(unsigned char *b, long long off, long long n, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(off + i, salt);
}

/* Every rank checks the whole file against what all ranks wrote. */
static int check_file(MPI_File fh, long long size, int salt, const char *what)
{
    unsigned char *got = malloc((size_t)size), *exp = malloc((size_t)size);
    MPI_Status st;
    int rc = MPI_File_read_at(fh, 0, got, (int)size, MPI_BYTE, &st);
    fill(exp, 0, size, salt);
    int ok = rc == MPI_SUCCESS && count_of(&st) == size && !memcmp(got, exp, (size_t)size);
    EXPECT(ok, "%s: rc %s count %d", what, t_class_name(rc), count_of(&st));
    t_report("%s rc=%s count=%d same=%d", what, t_class_name(rc), count_of(&st), ok);
    free(got);
    free(exp);
    return ok;
}

static void contiguous_and_strided(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    unsigned char *buf = malloc(2 * R);
    MPI_Status st;
    long long base = (long long)t_rank * R;
    /* pieces of growing size, then the rest */
    static const int sizes[] = {1, 4095, 4096, 65536, 0, 7};
    long long at = base;
    for (int i = 0; i < 6; i++) {
        fill(buf, at, sizes[i], 1);
        rc = MPI_File_write_at(fh, at, buf, sizes[i], MPI_BYTE, &st);
        t_report("write_at %d rc=%s count=%d", i, t_class_name(rc), count_of(&st));
        at += sizes[i];
    }
    /* a noncontiguous memory type: 4 runs of 256 bytes, 512 apart */
    MPI_Datatype mt;
    MPI_Type_vector(4, 256, 512, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    memset(buf, 0xEE, 2048);
    for (int k = 0; k < 4; k++)
        fill(buf + 512 * k, at + 256 * k, 256, 1);
    rc = MPI_File_write_at(fh, at, buf, 1, mt, &st);
    t_report("write_at memtype rc=%s count=%d", t_class_name(rc), count_of(&st));
    MPI_Type_free(&mt);
    at += 1024;
    long long rest = base + R - at;
    fill(buf, at, rest, 1);
    rc = MPI_File_write_at(fh, at, buf, (int)rest, MPI_BYTE, &st);
    t_report("write_at rest rc=%s count=%d", t_class_name(rc), count_of(&st));

    /* strided: block k of rank r at disp + (k * size + r) * BLK */
    long long disp = (long long)t_size * R;
    MPI_Datatype ft, ftr;
    MPI_Type_vector(NB, BLK, BLK * t_size, MPI_BYTE, &ft);
    MPI_Type_create_resized(ft, 0, (MPI_Aint)NB * BLK * t_size, &ftr);
    MPI_Type_commit(&ftr);
    rc = MPI_File_set_view(fh, disp + (long long)t_rank * BLK, MPI_BYTE, ftr, "native", MPI_INFO_NULL);
    for (int k = 0; k < NB; k++)
        fill(buf + k * BLK, disp + ((long long)k * t_size + t_rank) * BLK, BLK, 1);
    rc = MPI_File_write(fh, buf, NB * BLK / 2, MPI_BYTE, &st);
    t_report("write strided rc=%s count=%d", t_class_name(rc), count_of(&st));
    rc = MPI_File_write(fh, buf + NB * BLK / 2, NB * BLK / 2, MPI_BYTE, &st);
    t_report("write strided 2 rc=%s count=%d", t_class_name(rc), count_of(&st));
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    t_report("position %lld", (long long)pos);
    MPI_Type_free(&ft);
    MPI_Type_free(&ftr);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);

    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    long long size = disp + (long long)NB * BLK * t_size;
    MPI_Offset sz = -1;
    rc = MPI_File_get_size(fh, &sz);
    t_report("get_size rc=%s size=%lld", t_class_name(rc), (long long)sz);
    check_file(fh, size, 1, "read_all_ranks");
    /* a neighbour's block through the strided view, and a short read at the end */
    int nb = (t_rank + 1) % t_size;
    rc = MPI_File_read_at(fh, (long long)nb * R + 5000, buf, 70000, MPI_BYTE, &st);
    unsigned char *exp = malloc(70000);
    fill(exp, (long long)nb * R + 5000, 70000, 1);
    EXPECT(rc == MPI_SUCCESS && !memcmp(buf, exp, 70000), "neighbour block");
    t_report("read neighbour rc=%s count=%d", t_class_name(rc), count_of(&st));
    free(exp);
    rc = MPI_File_read_at(fh, size - 10 - t_rank, buf, 100, MPI_BYTE, &st);
    t_report("short read rc=%s count=%d", t_class_name(rc), count_of(&st));
    rc = MPI_File_read_at(fh, size + 10, buf, 100, MPI_BYTE, &st);
    t_report("read past end rc=%s count=%d", t_class_name(rc), count_of(&st));
    rc = MPI_File_close(&fh);
    t_report("close rc=%s", t_class_name(rc));
    free(buf);
}

/* Written independently, then partly overwritten by a collective call of the
 * same ranks; closed without a sync; read back after reopening. */
static void collective_over_independent(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    const int n = 40000;
    unsigned char *buf = malloc(n);
    long long base = (long long)t_rank * n;
    memset(buf, 0x5A, n);
    MPI_Status st;
    rc = MPI_File_write_at(fh, base, buf, n, MPI_BYTE, &st);
    t_report("independent rc=%s count=%d", t_class_name(rc), count_of(&st));
    fill(buf, base, n, 2);
    rc = MPI_File_write_at_all(fh, base, buf, n, MPI_BYTE, &st);
    t_report("collective rc=%s count=%d", t_class_name(rc), count_of(&st));
    rc = MPI_File_close(&fh);
    t_report("close rc=%s", t_class_name(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    check_file(fh, (long long)n * t_size, 2, "reopened");
    MPI_File_close(&fh);
    free(buf);
}

/* Close alone must flush: no sync before it. */
static void close_flushes(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    const int n = 300000;
    unsigned char *buf = malloc(n);
    MPI_Status st;
    for (int i = 0; i < 3; i++) {
        long long off = ((long long)i * t_size + t_rank) * n;
        fill(buf, off, n, 3);
        rc = MPI_File_write_at(fh, off, buf, n, MPI_BYTE, &st);
        t_report("write %d rc=%s count=%d", i, t_class_name(rc), count_of(&st));
    }
    rc = MPI_File_close(&fh);
    t_report("close rc=%s", t_class_name(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    check_file(fh, 3LL * n * t_size, 3, "after_close");
    MPI_File_close(&fh);
    free(buf);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "forward_a");
    t_fresh(p);
    contiguous_and_strided(p);
    t_path(p, sizeof p, "forward_b");
    t_fresh(p);
    collective_over_independent(p);
    t_path(p, sizeof p, "forward_c");
    t_fresh(p);
    close_flushes(p);
    return t_finish("t_forward");
}
