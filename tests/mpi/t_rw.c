/*
 * Reads and writes through every positioning and synchronization form, on a
 * byte view and on a view with a displacement and an int etype: explicit
 * offsets, the individual pointer (seek, get_position, get_byte_offset),
 * collectives with zero-length ranks, nonblocking calls completed with
 * MPI_Waitall mixed with point-to-point requests, split collectives, short
 * reads at end of file, and the counts MPI_Get_count/MPI_Get_elements give.
 */
#include "tutil.h"

#define N 1000 /* ints per rank */

static void fill(int *buf, int n, int rank, int salt)
{
    for (int i = 0; i < n; i++)
        buf[i] = rank * 1000003 + i * 7 + salt;
}

static int count_of(MPI_Status *st, MPI_Datatype t)
{
    int c = -2;
    MPI_Get_count(st, t, &c);
    return c;
}

static void test_explicit(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    int wbuf[N], rbuf[N];
    fill(wbuf, N, t_rank, 1);
    MPI_Status st;
    MPI_Offset off = (MPI_Offset)t_rank * N * sizeof(int);
    rc = MPI_File_write_at(fh, off, wbuf, N, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == N, "write_at");
    t_report("write_at rc=%s count=%d", t_class_name(rc), count_of(&st, MPI_INT));
    /* sync-barrier-sync: other ranks' bytes (and the size they make) are
     * visible then on any file system, caches coherent across nodes or not */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    /* read the neighbour's block */
    int nb = (t_rank + 1) % t_size;
    rc = MPI_File_read_at(fh, (MPI_Offset)nb * N * sizeof(int), rbuf, N, MPI_INT, &st);
    int exp[N];
    fill(exp, N, nb, 1);
    EXPECT(rc == MPI_SUCCESS && !memcmp(rbuf, exp, sizeof exp), "read_at neighbour data");
    t_report("read_at rc=%s count=%d elements=%d", t_class_name(rc), count_of(&st, MPI_INT), count_of(&st, MPI_BYTE));
    /* short read at end of file: last rank asks for 2N ints starting at its block */
    if (t_rank == t_size - 1) {
        int big[2 * N];
        rc = MPI_File_read_at(fh, off, big, 2 * N, MPI_INT, &st);
        EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == N, "short read count %d", count_of(&st, MPI_INT));
        t_report("short_read rc=%s count=%d", t_class_name(rc), count_of(&st, MPI_INT));
        /* a read that ends mid-element: MPI_Get_count is MPI_UNDEFINED, elements counts bytes */
        rc = MPI_File_read_at(fh, off + N * sizeof(int) - 6, big, 4, MPI_INT, &st);
        int elems = -2;
        MPI_Get_elements(&st, MPI_BYTE, &elems);
        EXPECT(elems == 6 && count_of(&st, MPI_INT) == MPI_UNDEFINED, "partial element read: %d bytes", elems);
        t_report("partial_read rc=%s count_undefined=%d bytes=%d", t_class_name(rc),
                 count_of(&st, MPI_INT) == MPI_UNDEFINED, elems);
        rc = MPI_File_read_at(fh, off + 10 * N * sizeof(int), big, 4, MPI_INT, &st);
        t_report("read_past_eof rc=%s count=%d", t_class_name(rc), count_of(&st, MPI_INT));
        EXPECT(count_of(&st, MPI_INT) == 0, "read past eof count");
    }
    /* MPI_STATUS_IGNORE is honoured */
    rc = MPI_File_read_at(fh, off, rbuf, N, MPI_INT, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS && !memcmp(rbuf, wbuf, sizeof wbuf), "status ignore");
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    t_report("size %lld", (long long)size);
    EXPECT(size == (MPI_Offset)t_size * N * (MPI_Offset)sizeof(int), "size");
    MPI_File_close(&fh);
}

static void test_pointer_view(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    /* a view of ints starting after a 100-byte header, each rank its own block via seek */
    rc = MPI_File_set_view(fh, 100, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view %s", t_class_name(rc));
    MPI_Offset pos = -1, byte = -1;
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == 0, "position after set_view");
    rc = MPI_File_seek(fh, (MPI_Offset)t_rank * N, MPI_SEEK_SET);
    MPI_File_get_position(fh, &pos);
    MPI_File_get_byte_offset(fh, pos, &byte);
    t_report("seek rc=%s pos=%lld byte=%lld", t_class_name(rc), (long long)pos, (long long)byte);
    EXPECT(byte == 100 + (MPI_Offset)t_rank * N * 4, "byte offset");
    int wbuf[N], rbuf[N];
    fill(wbuf, N, t_rank, 2);
    MPI_Status st;
    /* half with write, half with write_all */
    rc = MPI_File_write(fh, wbuf, N / 2, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == N / 2, "write");
    rc = MPI_File_write_all(fh, wbuf + N / 2, N / 2, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == N / 2, "write_all");
    MPI_File_get_position(fh, &pos);
    t_report("pos_after_writes %lld", (long long)pos);
    EXPECT(pos == (MPI_Offset)(t_rank + 1) * N, "pointer advanced");
    rc = MPI_File_seek(fh, -N, MPI_SEEK_CUR);
    EXPECT(rc == MPI_SUCCESS, "seek cur");
    rc = MPI_File_read_all(fh, rbuf, N, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(rbuf, wbuf, sizeof wbuf), "read_all back");
    /* the end is where every rank's writes put it: sync-barrier-sync */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    rc = MPI_File_seek(fh, 0, MPI_SEEK_END);
    MPI_File_get_position(fh, &pos);
    t_report("seek_end rc=%s pos=%lld", t_class_name(rc), (long long)pos);
    EXPECT(pos == (MPI_Offset)t_size * N, "seek end");
    rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    t_report("seek_negative rc=%s", t_class_name(rc));
    EXPECT(rc != MPI_SUCCESS, "negative seek fails");
    MPI_Aint ext = 0;
    MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext);
    EXPECT(ext == sizeof(double), "type extent");
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has seen the end before it moves */
    /* collective with zero-length ranks: odd ranks write nothing */
    int cnt = t_rank % 2 ? 0 : 10;
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_size * N + t_rank * 10, wbuf, cnt, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == cnt, "zero-length collective");
    t_report("zero_len_coll rc=%s count=%d", t_class_name(rc), count_of(&st, MPI_INT));
    rc = MPI_File_read_at_all(fh, 0, rbuf, 0, MPI_INT, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == 0, "all-zero collective");
    MPI_File_close(&fh);
}

static void test_nonblocking(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    int a[N], b[N], c[N], d[N];
    fill(a, N, t_rank, 3);
    fill(b, N, t_rank, 4);
    int token = t_rank, got = -1;
    MPI_Request req[6];
    MPI_Offset base = (MPI_Offset)t_rank * 4 * N * sizeof(int);
    rc = MPI_File_iwrite_at(fh, base, a, N, MPI_INT, &req[0]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_at");
    MPI_Irecv(&got, 1, MPI_INT, (t_rank + t_size - 1) % t_size, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&token, 1, MPI_INT, (t_rank + 1) % t_size, 7, MPI_COMM_WORLD, &req[2]);
    rc = MPI_File_iwrite_at_all(fh, base + N * sizeof(int), b, N, MPI_INT, &req[3]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_at_all");
    MPI_File_seek(fh, base + 2 * N * (MPI_Offset)sizeof(int), MPI_SEEK_SET);
    rc = MPI_File_iwrite(fh, a, N, MPI_INT, &req[4]);
    EXPECT(rc == MPI_SUCCESS, "iwrite");
    rc = MPI_File_iwrite_all(fh, b, N, MPI_INT, &req[5]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_all");
    MPI_Status sts[6];
    rc = MPI_Waitall(6, req, sts);
    EXPECT(rc == MPI_SUCCESS, "waitall");
    EXPECT(got == (t_rank + t_size - 1) % t_size, "p2p in the same waitall");
    EXPECT(count_of(&sts[0], MPI_INT) == N && count_of(&sts[3], MPI_INT) == N, "nonblocking counts");
    t_report("iwrite counts %d %d %d %d", count_of(&sts[0], MPI_INT), count_of(&sts[3], MPI_INT),
             count_of(&sts[4], MPI_INT), count_of(&sts[5], MPI_INT));
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Request r2[4];
    rc = MPI_File_iread_at(fh, base, c, N, MPI_INT, &r2[0]);
    rc |= MPI_File_iread_at_all(fh, base + N * sizeof(int), d, N, MPI_INT, &r2[1]);
    int e[N], g[N];
    MPI_File_seek(fh, base + 2 * N * (MPI_Offset)sizeof(int), MPI_SEEK_SET);
    rc |= MPI_File_iread(fh, e, N, MPI_INT, &r2[2]);
    rc |= MPI_File_iread_all(fh, g, N, MPI_INT, &r2[3]);
    EXPECT(rc == MPI_SUCCESS, "iread posts");
    int done = 0;
    MPI_Status st2[4];
    while (!done)
        MPI_Testall(4, r2, &done, st2);
    EXPECT(!memcmp(c, a, sizeof a) && !memcmp(d, b, sizeof b), "iread data");
    EXPECT(!memcmp(e, a, sizeof a) && !memcmp(g, b, sizeof b), "iread pointer data");
    MPI_File_close(&fh);
}

static void test_split(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    int a[N], b[N];
    fill(a, N, t_rank, 5);
    MPI_Status st;
    MPI_Offset off = (MPI_Offset)t_rank * N * sizeof(int);
    rc = MPI_File_write_at_all_begin(fh, off, a, N, MPI_INT);
    EXPECT(rc == MPI_SUCCESS, "write_at_all_begin");
    rc = MPI_File_write_at_all_end(fh, a, &st);
    EXPECT(rc == MPI_SUCCESS && count_of(&st, MPI_INT) == N, "write_at_all_end");
    rc = MPI_File_read_at_all_begin(fh, off, b, N, MPI_INT);
    rc |= MPI_File_read_at_all_end(fh, b, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(a, b, sizeof a), "split read");
    MPI_File_seek(fh, off + (MPI_Offset)t_size * N * sizeof(int), MPI_SEEK_SET);
    rc = MPI_File_write_all_begin(fh, a, N, MPI_INT);
    rc |= MPI_File_write_all_end(fh, a, &st);
    EXPECT(rc == MPI_SUCCESS, "write_all split");
    MPI_File_seek(fh, off + (MPI_Offset)t_size * N * sizeof(int), MPI_SEEK_SET);
    rc = MPI_File_read_all_begin(fh, b, N, MPI_INT);
    rc |= MPI_File_read_all_end(fh, b, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(a, b, sizeof a), "read_all split");
    t_report("split count=%d", count_of(&st, MPI_INT));
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "rw_explicit.dat");
    t_fresh(p);
    test_explicit(p);
    t_path(p, sizeof p, "rw_pointer.dat");
    t_fresh(p);
    test_pointer_view(p);
    t_path(p, sizeof p, "rw_split.dat");
    t_fresh(p);
    test_split(p);
    /* last: MPICH 4.0.2's ROMIO asserts in MPI_Testall on file requests */
    t_path(p, sizeof p, "rw_nonblocking.dat");
    t_fresh(p);
    test_nonblocking(p);
    return t_finish("t_rw");
}
