/*
 * Every error class this machine can produce: missing file and directory,
 * permission denied, EXCL on an existing file, writes to read-only opens and
 * read-only files, a real ENOSPC on a small tmpfs (FERRY_TEST_SMALLFS), and
 * bad arguments. A failed collective fails on every rank with one class.
 */
#include "tutil.h"

#include <errno.h>
#include <sys/stat.h>

static int open_class(const char *path, int amode)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    return t_class(rc);
}

static void open_errors(const char *dir)
{
    char p[600];
    snprintf(p, sizeof p, "%s/errors-missing.dat", dir);
    int c = open_class(p, MPI_MODE_RDONLY);
    t_report("missing_file %s", t_class_name(c));
    EXPECT(c == MPI_ERR_NO_SUCH_FILE, "missing file: %s", t_class_name(c));
    snprintf(p, sizeof p, "%s/no-such-dir/x.dat", dir);
    c = open_class(p, MPI_MODE_CREATE | MPI_MODE_WRONLY);
    t_report("missing_dir %s", t_class_name(c));
    EXPECT(c == MPI_ERR_NO_SUCH_FILE, "missing directory: %s", t_class_name(c));
    c = open_class("", MPI_MODE_RDONLY);
    t_report("empty_name %s", t_class_name(c));
    EXPECT(c != MPI_SUCCESS, "empty file name");

    /* permission denied: a root test drops its effective uid around the open */
    snprintf(p, sizeof p, "%s/errors-private.dat", dir);
    if (t_rank == 0) {
        FILE *f = fopen(p, "w");
        if (f)
            fclose(f);
        chmod(p, 0600);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int was_root = geteuid() == 0;
    if (was_root && seteuid(65534) != 0)
        was_root = -1;
    if (was_root >= 0) {
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        if (was_root)
            seteuid(0);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        t_report("permission %s", t_class_name(rc));
        EXPECT(t_class(rc) == MPI_ERR_ACCESS, "permission denied: %s", t_class_name(rc));
    }

    /* read-only file on disk opened for writing */
    snprintf(p, sizeof p, "%s/errors-readonly.dat", dir);
    if (t_rank == 0) {
        FILE *f = fopen(p, "w");
        if (f)
            fclose(f);
        chmod(p, 0444);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (was_root >= 0) {
        if (was_root)
            seteuid(65534);
        c = open_class(p, MPI_MODE_WRONLY);
        if (was_root)
            seteuid(0);
        t_report("readonly_file %s", t_class_name(c));
        EXPECT(c == MPI_ERR_ACCESS, "write open of read-only file: %s", t_class_name(c));
    }
}

static void call_errors(const char *dir)
{
    char p[600];
    snprintf(p, sizeof p, "%s/errors-calls.dat", dir);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    char buf[64] = {0};
    rc = MPI_File_write_at(fh, 0, buf, -1, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("negative_count %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_COUNT || t_class(rc) == MPI_ERR_ARG, "negative count: %s", t_class_name(rc));
    rc = MPI_File_write_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
    t_report("null_type %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_TYPE, "null datatype: %s", t_class_name(rc));
    rc = MPI_File_read_at(fh, -1, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("negative_offset %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_ARG, "negative offset: %s", t_class_name(rc));
    rc = MPI_File_set_view(fh, -2, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    t_report("negative_disp %s", t_class_name(rc));
    /* OMPIO accepts a negative displacement; the standard forbids it */
    EXPECT_STD(t_class(rc) == MPI_ERR_ARG, "negative view displacement: %s", t_class_name(rc));
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL);
    t_report("bad_datarep %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: %s", t_class_name(rc));
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    /* collective error on one rank only: every rank must fail. ROMIO hangs
     * here (rank 0 leaves, the rest wait for it), so only ferry runs it. */
    if (t_under_ferry()) {
        rc = MPI_File_write_at_all(fh, t_rank == 0 ? -1 : 0, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
        EXPECT(rc != MPI_SUCCESS, "collective with a bad offset on rank 0 fails everywhere");
    }
    MPI_File_close(&fh);
    MPI_File closed = fh;
    rc = MPI_File_write(closed, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("null_handle %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_FILE, "MPI_FILE_NULL handle: %s", t_class_name(rc));

    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    rc = MPI_File_write_at(fh, 0, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("write_rdonly %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_READ_ONLY || t_class(rc) == MPI_ERR_ACCESS, "write on RDONLY: %s", t_class_name(rc));
    MPI_File_close(&fh);
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    rc = MPI_File_read_at(fh, 0, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("read_wronly %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_ACCESS, "read on WRONLY: %s", t_class_name(rc));
    MPI_File_close(&fh);
}

/* ENOSPC: FERRY_TEST_SMALLFS is a 1 MiB tmpfs the runner mounted. */
static void no_space(void)
{
    const char *dir = getenv("FERRY_TEST_SMALLFS");
    if (!dir || !*dir)
        return;
    char p[600];
    snprintf(p, sizeof p, "%s/enospc.dat", dir);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open on small fs");
    size_t n = (4u << 20) / (size_t)t_size;
    char *big = calloc(n, 1);
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * (MPI_Offset)n, big, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    int cls = t_class(rc), mn = 0, mx = 0;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    t_report("enospc_collective %s", t_class_name(rc));
    EXPECT_STD(mn == mx && cls == MPI_ERR_NO_SPACE, "collective ENOSPC on every rank: %s", t_class_name(rc));
    /* after freeing the space, a smaller write succeeds on the same handle */
    rc = MPI_File_set_size(fh, 0);
    EXPECT(rc == MPI_SUCCESS, "truncate on small fs");
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * 1024, big, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
    t_report("after_enospc %s", t_class_name(rc));
    EXPECT(rc == MPI_SUCCESS, "write after freeing space: %s", t_class_name(rc));
    free(big);
    MPI_File_close(&fh);
    if (t_rank == 0)
        unlink(p);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char dir[512];
    t_path(dir, sizeof dir, ".");
    dir[strlen(dir) - 2] = 0;
    open_errors(dir);
    call_errors(dir);
    no_space();
    return t_finish("t_errors");
}
