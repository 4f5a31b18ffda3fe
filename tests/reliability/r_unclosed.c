/*
 * Files left open at MPI_Finalize: two files written, one
 * collectively through two-phase, neither closed. Under ferry each gets its
 * warning, its statistics and its JSON record at MPI_Finalize (the test
 * greps them), and its bytes are in it afterwards (checked here after
 * MPI_Finalize with plain reads).
 */
#include "mpi/tutil.h"

#include <fcntl.h>

#define B 4096

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[2][512];
    t_path(p[0], sizeof p[0], "unclosed_a.dat");
    t_path(p[1], sizeof p[1], "unclosed_b.dat");
    char buf[B];
    memset(buf, 'a' + t_rank, sizeof buf);
    for (int i = 0; i < 2; i++) {
        t_fresh(p[i]);
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, p[i], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        EXPECT(rc == MPI_SUCCESS, "open %d: %s", i, t_class_name(rc));
        rc = i ? MPI_File_write_at(fh, (MPI_Offset)t_rank * B, buf, B, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_write_at_all(fh, (MPI_Offset)t_rank * B, buf, B, MPI_BYTE, MPI_STATUS_IGNORE);
        EXPECT(rc == MPI_SUCCESS, "write %d: %s", i, t_class_name(rc));
        /* never closed */
    }
    int failures = 0, rank = t_rank;
    MPI_Allreduce(&t_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    for (int i = 0; i < 2; i++) {
        char back[B];
        int fd = open(p[i], O_RDONLY);
        ssize_t got = fd >= 0 ? pread(fd, back, B, (off_t)rank * B) : -1;
        if (fd >= 0)
            close(fd);
        if (got != B || memcmp(back, buf, B)) {
            printf("FAIL r%d: %s: my bytes are not in the file after MPI_Finalize\n", rank, p[i]);
            failures++;
        }
    }
    if (rank == 0)
        printf("r_unclosed: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
