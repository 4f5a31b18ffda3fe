/*
 * A forwarder whose writes fail (FERRY_FAULT on its rank): the owners of the
 * data learn it as MPI_ERR_IO at their next forwarded call, at sync, or at
 * close when they never sync, on every rank, and nothing hangs. Run under
 * ferry with forwarded reads and writes only.
 */
#include "mpi/tutil.h"

static void write_blocks(MPI_File fh, int salt)
{
    unsigned char buf[8192];
    memset(buf, salt, sizeof buf);
    for (int i = 0; i < 4; i++) {
        MPI_Status st;
        long long off = ((long long)i * t_size + t_rank) * (long long)sizeof buf;
        int rc = MPI_File_write_at(fh, off, buf, sizeof buf, MPI_BYTE, &st);
        /* the data is handed over; its failure may already be known */
        EXPECT(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_IO, "write %d: %s", i, t_class_name(rc));
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "forward_fault");
    t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    write_blocks(fh, 1);
    rc = MPI_File_sync(fh);
    EXPECT(t_class(rc) == MPI_ERR_IO, "sync after failed forwarded writes: %s", t_class_name(rc));
    /* reported once: a sync with nothing new succeeds */
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "second sync: %s", t_class_name(rc));
    /* next call: a forwarded read's reply comes after the error of the write
     * before it, so the call after the read must report that error */
    unsigned char one[64] = {0};
    MPI_Status st;
    rc = MPI_File_write_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write after sync: %s", t_class_name(rc));
    rc = MPI_File_read_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "read: %s", t_class_name(rc));
    rc = MPI_File_write_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    EXPECT(t_class(rc) == MPI_ERR_IO, "next call after a failed forwarded write: %s", t_class_name(rc));
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync after the reported error: %s", t_class_name(rc));
    write_blocks(fh, 2);
    rc = MPI_File_close(&fh);
    EXPECT(t_class(rc) == MPI_ERR_IO, "close after failed forwarded writes: %s", t_class_name(rc));
    return t_finish("t_forward_fault");
}
