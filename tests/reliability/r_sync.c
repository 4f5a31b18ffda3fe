/*
 * MPI_File_sync makes written data durable. With the spy (rspy.c) preloaded
 * after the MPI-IO library, the program sees every fsync that reaches libc:
 *   - creating a file fsyncs its directory (the new name survives a crash),
 *     and MPI_MODE_CREATE on a file that exists does not;
 *   - MPI_File_sync fsyncs the file on every rank that wrote to it;
 *   - an fsync that fails (EIO) fails MPI_File_sync on every rank with
 *     MPI_ERR_IO, and a later sync succeeds;
 *   - sync on a read-only file succeeds.
 * Without the spy the program says so and checks only the return codes.
 */
#include "mpi/tutil.h"

#include <errno.h>
#include <limits.h>

static int same_everywhere(int cls)
{
    int mn = cls, mx = cls;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int (*fsyncs)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "rspy_fsyncs");
    void (*fail)(int, int) = (void (*)(int, int))dlsym(RTLD_DEFAULT, "rspy_fail_fsyncs");
    if (!fsyncs && t_rank == 0)
        printf("r_sync: no fsync spy preloaded: only return codes are checked\n");
    char path[512], dir[PATH_MAX], file[PATH_MAX];
    t_path(path, sizeof path, "r_sync.dat");
    t_fresh(path);
    t_path(dir, sizeof dir, ".");
    dir[strlen(dir) - 2] = 0;
    char tmp[PATH_MAX];
    if (realpath(dir, tmp))
        strcpy(dir, tmp);

    int dir_before = fsyncs ? fsyncs(dir) : 0;
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    if (!realpath(path, file))
        strcpy(file, path);
    if (fsyncs) {
        int mine = fsyncs(dir) - dir_before, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t_report("create: directory fsyncs %s", all > 0 ? "yes" : "no");
        EXPECT(all > 0, "creating %s did not fsync its directory %s", path, dir);
    }

    char buf[4096];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (char)t_byte((long long)t_rank * 4096 + i, 9);
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "write");
    int before = fsyncs ? fsyncs(file) : 0;
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync: %s", t_class_name(rc));
    if (fsyncs) {
        int mine = fsyncs(file) - before;
        t_report("sync: file fsynced %s", mine > 0 ? "yes" : "no");
        EXPECT(mine > 0, "MPI_File_sync did not fsync %s on this rank", file);
    }

    /* a disk that cannot flush: one rank's fsync fails */
    if (fail) {
        if (t_rank == t_size - 1)
            fail(EIO, 1);
        rc = MPI_File_sync(fh);
        t_report("failing fsync: %s", t_class_name(rc));
        EXPECT(same_everywhere(t_class(rc)), "a failed fsync: classes differ between ranks");
        EXPECT(t_class(rc) == MPI_ERR_IO, "a failed fsync: %s", t_class_name(rc));
        if (t_rank == t_size - 1)
            fail(0, 0);
        rc = MPI_File_sync(fh);
        EXPECT(rc == MPI_SUCCESS, "sync after a failed one: %s", t_class_name(rc));
    }
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close");

    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync of a read-only file: %s", t_class_name(rc));
    MPI_File_close(&fh);

    /* MPI_MODE_CREATE on a file that exists creates nothing: no directory
     * fsync (one per open made create-heavy opens 12x ROMIO's) */
    dir_before = fsyncs ? fsyncs(dir) : 0;
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open of an existing file with MPI_MODE_CREATE: %s", t_class_name(rc));
    if (fsyncs) {
        int mine = fsyncs(dir) - dir_before, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t_report("create of an existing file: directory fsyncs %d", all);
        EXPECT(all == 0, "opening the existing %s with MPI_MODE_CREATE fsynced its directory %d times", path, all);
    }
    MPI_File_close(&fh);
    return t_finish("r_sync");
}
