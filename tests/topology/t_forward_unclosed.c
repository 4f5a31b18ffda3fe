/*
 * A file left open at MPI_Finalize (erroneous, but programs do it): with
 * forwarding, its handed-over writes must still reach the file and no
 * serving thread may outlive MPI. `write` leaves the file open; `check`
 * reads it back in a second job.
 */
#include "mpi/tutil.h"

#define N 100000

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int check = argc > 1 && !strcmp(argv[1], "check");
    char p[512];
    t_path(p, sizeof p, "forward_unclosed");
    if (!check)
        t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, check ? MPI_MODE_RDONLY : MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    static unsigned char buf[N], got[N];
    for (int i = 0; i < N; i++)
        buf[i] = t_byte((long long)t_rank * N + i, 5);
    MPI_Status st;
    if (!check) {
        rc = MPI_File_write_at(fh, (long long)t_rank * N, buf, N, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS, "write %s", t_class_name(rc));
        return t_finish("t_forward_unclosed write"); /* no close */
    }
    rc = MPI_File_read_at(fh, (long long)t_rank * N, got, N, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(buf, got, N), "read back %s", t_class_name(rc));
    MPI_File_close(&fh);
    return t_finish("t_forward_unclosed check");
}
