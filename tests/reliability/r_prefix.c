/*
 * File-system prefixes on file names, as ROMIO's fstype_prefix checks them:
 * a prefix ROMIO does not know ("nosuch_fstype:") is part of
 * the name; a known one ferry has a driver for ("ufs:") selects it and is
 * stripped; one it has no driver for ("pvfs2:") fails the open with
 * MPI_ERR_IO on every rank; ROMIO_FSTYPE_FORCE gives its prefix to names
 * without one. Run in the test's directory (relative names, as ROMIO's
 * runtests gives them). Checked under ferry; natively printed only (MPICH
 * 4.0's ROMIO refuses unknown prefixes, OMPIO ignores them).
 */
#include "mpi/tutil.h"

#include <sys/stat.h>

static int try_open(const char *name)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    t_report("%s %s", name, t_class_name(rc));
    return t_class(rc);
}

static int exists(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *dir = getenv("FERRY_TEST_OUT");
    if (dir && chdir(dir) != 0)
        EXPECT(0, "chdir %s", dir);
    if (t_rank == 0) {
        unlink("nosuch_fstype:prefix.out");
        unlink("prefix.out");
        unlink("forced.out");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    int c = try_open("nosuch_fstype:prefix.out");
    EXPECT_STD(c == MPI_SUCCESS && exists("nosuch_fstype:prefix.out"), "unknown prefix: %s, file %s",
               t_class_name(c), exists("nosuch_fstype:prefix.out") ? "made" : "missing");
    c = try_open("ufs:prefix.out");
    EXPECT_STD(c == MPI_SUCCESS && exists("prefix.out"), "ufs: %s, stripped file %s", t_class_name(c),
               exists("prefix.out") ? "made" : "missing");
    c = try_open("pvfs2:prefix2.out");
    EXPECT_STD(c == MPI_ERR_IO && !exists("prefix2.out"), "pvfs2: (no driver): %s", t_class_name(c));

    setenv("ROMIO_FSTYPE_FORCE", "ufs:", 1);
    c = try_open("forced.out");
    EXPECT_STD(c == MPI_SUCCESS && exists("forced.out"), "ROMIO_FSTYPE_FORCE=ufs: %s", t_class_name(c));
    setenv("ROMIO_FSTYPE_FORCE", "pvfs2:", 1);
    c = try_open("forced2.out");
    EXPECT_STD(c == MPI_ERR_IO && !exists("forced2.out"), "ROMIO_FSTYPE_FORCE=pvfs2: %s", t_class_name(c));
    unsetenv("ROMIO_FSTYPE_FORCE");
    return t_finish("r_prefix");
}
