/*
 * Shared file pointers of many files: each open file has a pointer of its
 * own, whether its window is pooled with other files of the same group of
 * ranks, made fresh because the pool is full, or belongs to another group
 * (a split communicator, MPI_COMM_SELF). Repeated opens and closes reuse
 * pool slots, and a reused slot starts from the new file's position.
 */
#include "tutil.h"

#define REC 16
#define MANY 40 /* more files open at once than a pool has slots */

static MPI_File open_fresh(MPI_Comm comm, const char *name, int amode)
{
    char path[512];
    t_path(path, sizeof path, name);
    int r;
    MPI_Comm_rank(comm, &r);
    if (r == 0)
        unlink(path);
    MPI_Barrier(comm);
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(comm, path, amode | MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s: %s", name, t_class_name(rc));
    return fh;
}

static void put_records(MPI_File fh, int n)
{
    char buf[REC];
    MPI_Status st;
    for (int k = 0; k < n; k++) {
        snprintf(buf, sizeof buf, "r%03d k%03d", t_rank, k);
        int rc = MPI_File_write_shared(fh, buf, REC, MPI_CHAR, &st);
        EXPECT(rc == MPI_SUCCESS, "write_shared: %s", t_class_name(rc));
    }
}

static MPI_Offset position(MPI_File fh)
{
    MPI_Offset pos = -1;
    int rc = MPI_File_get_position_shared(fh, &pos);
    EXPECT(rc == MPI_SUCCESS, "get_position_shared: %s", t_class_name(rc));
    return pos;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char name[64];

    /* open and close in a loop: a slot freed by a close starts the next file at 0 */
    int bad = 0;
    for (int i = 0; i < 24; i++) {
        snprintf(name, sizeof name, "pool_cycle_%d.dat", i % 3);
        MPI_File fh = open_fresh(MPI_COMM_WORLD, name, 0);
        if (position(fh) != 0)
            bad++;
        MPI_Barrier(MPI_COMM_WORLD); /* every rank saw 0 before any writes */
        put_records(fh, 1 + i % 2);
        MPI_Barrier(MPI_COMM_WORLD);
        if (position(fh) != (MPI_Offset)t_size * REC * (1 + i % 2))
            bad++;
        MPI_File_close(&fh);
    }
    EXPECT(bad == 0, "%d wrong shared positions over 24 open/close cycles", bad);
    t_report("cycles wrong=%d", bad);

    /* many files at once, beyond a pool's slots: file j gets j+1 records per rank */
    MPI_File fh[MANY];
    for (int j = 0; j < MANY; j++) {
        snprintf(name, sizeof name, "pool_many_%d.dat", j);
        fh[j] = open_fresh(MPI_COMM_WORLD, name, 0);
    }
    for (int k = 0; k < MANY; k++)
        for (int j = k; j < MANY; j++)
            put_records(fh[j], 1);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = 0;
    for (int j = 0; j < MANY; j++)
        if (position(fh[j]) != (MPI_Offset)t_size * REC * (j + 1))
            bad++;
    EXPECT(bad == 0, "%d of %d files open at once with a wrong shared position", bad, MANY);
    t_report("many wrong=%d", bad);
    /* close every other one, open new ones into the freed slots, check again */
    for (int j = 0; j < MANY; j += 2)
        MPI_File_close(&fh[j]);
    for (int j = 0; j < MANY; j += 2) {
        snprintf(name, sizeof name, "pool_many_%d.dat", j);
        fh[j] = open_fresh(MPI_COMM_WORLD, name, 0);
        put_records(fh[j], 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad = 0;
    for (int j = 0; j < MANY; j++)
        if (position(fh[j]) != (MPI_Offset)t_size * REC * (j % 2 ? j + 1 : 2))
            bad++;
    EXPECT(bad == 0, "%d files with a wrong shared position after reopening", bad);
    t_report("reopened wrong=%d", bad);
    for (int j = 0; j < MANY; j++)
        MPI_File_close(&fh[j]);

    /* other groups beside the world's: a duplicate, halves, and self */
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    MPI_File w = open_fresh(MPI_COMM_WORLD, "pool_world.dat", 0);
    MPI_File d = open_fresh(dup, "pool_dup.dat", 0);
    snprintf(name, sizeof name, "pool_half_%d.dat", t_rank % 2);
    MPI_File h = open_fresh(half, name, 0);
    snprintf(name, sizeof name, "pool_self_%d.dat", t_rank);
    MPI_File s = open_fresh(MPI_COMM_SELF, name, 0);
    put_records(w, 1);
    put_records(d, 2);
    put_records(h, 3);
    put_records(s, 4);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(d, 5 * REC, MPI_SEEK_SET);
    MPI_Offset pw = position(w), pd = position(d), ph = position(h), ps = position(s);
    EXPECT(pw == (MPI_Offset)t_size * REC, "world file at %lld", (long long)pw);
    EXPECT(pd == 5 * REC, "duplicate's file at %lld after seek_shared", (long long)pd);
    EXPECT(ph == (MPI_Offset)hsize * 3 * REC, "half's file at %lld", (long long)ph);
    EXPECT(ps == 4 * REC, "self file at %lld", (long long)ps);
    t_report("groups world=%lld dup=%lld half=%lld self=%lld", (long long)pw, (long long)pd, (long long)ph,
             (long long)ps);
    MPI_File_close(&s);
    MPI_File_close(&h);
    MPI_File_close(&d);
    MPI_File_close(&w);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    /* A slot another file moved with seek_shared starts the next file at 0
     * (with MPI_MODE_APPEND, t_manage: at the end). */
    char apath[512];
    t_path(apath, sizeof apath, "pool_seek.dat");
    if (t_rank == 0)
        unlink(apath);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File a;
    int rc = MPI_File_open(MPI_COMM_WORLD, apath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &a);
    EXPECT(rc == MPI_SUCCESS, "open %s: %s", apath, t_class_name(rc));
    MPI_File_seek_shared(a, 7 * REC, MPI_SEEK_SET);
    MPI_Offset pa = position(a);
    MPI_File_close(&a);
    rc = MPI_File_open(MPI_COMM_WORLD, apath, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &a);
    EXPECT(rc == MPI_SUCCESS, "reopen %s: %s", apath, t_class_name(rc));
    MPI_Offset pb = position(a);
    MPI_File_close(&a);
    EXPECT(pa == 7 * REC && pb == 0, "seek_shared to %d: at %lld, reopened at %lld", 7 * REC, (long long)pa,
           (long long)pb);
    t_report("seek then reopen: %lld %lld", (long long)pa, (long long)pb);

    /* A communicator freed while a file opened on it stays open, and many
     * communicators made, used for one file and freed in turn. */
    MPI_Comm tmp;
    MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
    MPI_File t = open_fresh(tmp, "pool_freed_comm.dat", 0);
    MPI_Comm_free(&tmp);
    put_records(t, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pt = position(t);
    rc = MPI_File_close(&t);
    EXPECT(rc == MPI_SUCCESS && pt == (MPI_Offset)t_size * 2 * REC,
           "file on a freed communicator: close %s, position %lld", t_class_name(rc), (long long)pt);
    int failed = 0;
    for (int i = 0; i < 300 && !failed; i++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &c);
        MPI_File x = open_fresh(c, "pool_comm_cycle.dat", 0);
        failed = x == MPI_FILE_NULL || MPI_File_close(&x) != MPI_SUCCESS;
        MPI_Comm_free(&c);
    }
    EXPECT(!failed, "an open or close on a communicator of its own failed");
    t_report("freed communicator position=%lld, 300 communicator cycles %s", (long long)pt,
             failed ? "FAILED" : "ok");
    return t_finish("t_shared_pool");
}
