/*
 * A forwarder whose writes fail (FERRY_FAULT on its rank), run under ferry
 * with forwarded reads and writes only; nothing may hang.
 *
 * ferry_forward_errors=deferred (T_DEFERRED=1): the owners of the data learn
 * it as MPI_ERR_IO, once, at their next forwarded call, at sync, or at close
 * when they never sync (sync and close then fail on every rank). Which call
 * reports it depends on when the error arrives.
 *
 * The default (ferry_forward_errors=call): each write whose bytes did not
 * reach the file fails itself with MPI_ERR_IO, and nothing is left to report
 * later: sync and close succeed; a write that succeeded is in the file.
 */
#include "mpi/tutil.h"

#include <fcntl.h>

/* The default: every failure at its own call. */
static void call_mode(MPI_File fh, const char *p)
{
    enum { N = 4, B = 8192 };
    unsigned char buf[B], back[B];
    int ok[N];
    int failed = 0;
    memset(buf, 3, sizeof buf);
    for (int i = 0; i < N; i++) {
        MPI_Status st;
        long long off = ((long long)i * t_size + t_rank) * B;
        int rc = MPI_File_write_at(fh, off, buf, B, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_IO, "write %d: %s", i, t_class_name(rc));
        ok[i] = rc == MPI_SUCCESS;
        failed += !ok[i];
    }
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(any > 0, "no write failed: the fault never fired");
    int rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync after failures reported at their calls: %s", t_class_name(rc));
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close after failures reported at their calls: %s", t_class_name(rc));
    /* what a successful call reported is in the file */
    int fd = open(p, O_RDONLY);
    for (int i = 0; i < N && fd >= 0; i++) {
        long long off = ((long long)i * t_size + t_rank) * B;
        ssize_t got = pread(fd, back, B, (off_t)off);
        if (ok[i])
            EXPECT(got == B && memcmp(back, buf, B) == 0, "write %d succeeded, its bytes are not in the file", i);
    }
    if (fd >= 0)
        close(fd);
}

/* Returns 1 when one of the writes already reported the failure. */
static int write_blocks(MPI_File fh, int salt)
{
    int reported = 0;
    unsigned char buf[8192];
    memset(buf, salt, sizeof buf);
    for (int i = 0; i < 4; i++) {
        MPI_Status st;
        long long off = ((long long)i * t_size + t_rank) * (long long)sizeof buf;
        int rc = MPI_File_write_at(fh, off, buf, sizeof buf, MPI_BYTE, &st);
        /* the data is handed over; its failure may already be known */
        EXPECT(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_IO, "write %d: %s", i, t_class_name(rc));
        reported |= rc != MPI_SUCCESS;
    }
    return reported;
}

/* 1 when some rank has a failure its writes did not report: the next sync
 * or close (which agree over the ranks) must then fail */
static int any_unreported(int reported)
{
    int un = !reported, any = 0;
    MPI_Allreduce(&un, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
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
    if (!getenv("T_DEFERRED")) {
        call_mode(fh, p);
        return t_finish("t_forward_fault");
    }
    int expect_err = any_unreported(write_blocks(fh, 1));
    rc = MPI_File_sync(fh);
    EXPECT(t_class(rc) == (expect_err ? MPI_ERR_IO : MPI_SUCCESS), "sync after failed forwarded writes: %s",
           t_class_name(rc));
    /* reported once: a sync with nothing new succeeds */
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "second sync: %s", t_class_name(rc));
    /* next call: the write's error reaches the rank at its next forwarded
     * call. The read is that call when the error arrived before it started;
     * otherwise the read's reply comes after the error (one path, in order),
     * so the call after the read reports it. Exactly one of the two does. */
    unsigned char one[64] = {0};
    MPI_Status st;
    rc = MPI_File_write_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write after sync: %s", t_class_name(rc));
    int rrc = MPI_File_read_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    EXPECT(rrc == MPI_SUCCESS || t_class(rrc) == MPI_ERR_IO, "read: %s", t_class_name(rrc));
    rc = MPI_File_write_at(fh, 0, one, sizeof one, MPI_BYTE, &st);
    if (rrc == MPI_SUCCESS)
        EXPECT(t_class(rc) == MPI_ERR_IO, "next call after a failed forwarded write: %s", t_class_name(rc));
    else
        EXPECT(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_IO, "write after the read reported the error: %s",
               t_class_name(rc));
    /* a write that went out after the read reported the error fails at the
     * forwarder too: then the sync (which agrees) reports that one */
    int pending = rrc != MPI_SUCCESS && rc == MPI_SUCCESS, any = 0;
    MPI_Allreduce(&pending, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rc = MPI_File_sync(fh);
    if (any)
        EXPECT(t_class(rc) == MPI_ERR_IO, "sync after a write that failed at the forwarder: %s", t_class_name(rc));
    else
        EXPECT(rc == MPI_SUCCESS, "sync after the reported error: %s", t_class_name(rc));
    expect_err = any_unreported(write_blocks(fh, 2));
    rc = MPI_File_close(&fh);
    EXPECT(t_class(rc) == (expect_err ? MPI_ERR_IO : MPI_SUCCESS), "close after failed forwarded writes: %s",
           t_class_name(rc));
    return t_finish("t_forward_fault");
}
