/*
 * Forwarding asked for through MPI_Info only, in a program initialised with
 * MPI_Init: ferry cannot raise the thread level any more, so the file must
 * take the independent path (and say why in its statistics) and still write
 * the right bytes.
 */
#include "mpi/tutil.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "forward_info");
    t_fresh(p);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ferry_ind_write_strategy", "forward");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    MPI_Info_free(&info);
    unsigned char buf[4096], got[4096];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = t_byte((long long)t_rank * sizeof buf + i, 4);
    MPI_Status st;
    rc = MPI_File_write_at(fh, (long long)t_rank * sizeof buf, buf, sizeof buf, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write %s", t_class_name(rc));
    MPI_File_sync(fh);
    rc = MPI_File_read_at(fh, (long long)t_rank * sizeof buf, got, sizeof got, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(buf, got, sizeof got), "read back %s", t_class_name(rc));
    MPI_File_close(&fh);
    return t_finish("t_forward_info");
}
