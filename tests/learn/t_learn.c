/*
 * A program that knows nothing of ferry: `calls` collective writes of one
 * interleaved pattern (each rank `pieces` pieces of `size` bytes per call,
 * round robin between the ranks, like a time step of BT-IO), then the same
 * reads, every byte checked, natively or through ferry. Through ferry, auto
 * learns on the repeats: this program proves every option it tries moves
 * the right bytes, and that no rank waits for a collective the others skip.
 *
 *   t_learn FILE [calls [pieces [size]]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char byte_of(int rank, int call, long i)
{
    return (unsigned char)(rank * 131 + call * 17 + i * 7 + (i >> 9));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: t_learn FILE [calls [pieces [size]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int calls = argc > 2 ? atoi(argv[2]) : 12;
    int pieces = argc > 3 ? atoi(argv[3]) : 64;
    int piece = argc > 4 ? atoi(argv[4]) : 512;
    long per = (long)pieces * piece;
    MPI_Datatype vec, ft;
    MPI_Type_vector(pieces, piece, piece * size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)per * size, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "t_learn: rank %d: open failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_view(fh, (MPI_Offset)rank * piece, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    unsigned char *buf = malloc((size_t)per);
    int bad = 0;
    for (int c = 0; c < calls; c++) {
        for (long i = 0; i < per; i++)
            buf[i] = byte_of(rank, c, i);
        MPI_Status st;
        int n = -1;
        rc = MPI_File_write_all(fh, buf, (int)per, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        bad += rc != MPI_SUCCESS || n != per;
    }
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    for (int c = 0; c < calls; c++) {
        memset(buf, 0, (size_t)per);
        MPI_Status st;
        int n = -1;
        rc = MPI_File_read_all(fh, buf, (int)per, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        bad += rc != MPI_SUCCESS || n != per;
        for (long i = 0; i < per; i++)
            if (buf[i] != byte_of(rank, c, i)) {
                if (!bad)
                    fprintf(stderr, "t_learn: rank %d call %d: byte %ld is %d, not %d\n", rank, c, i, buf[i],
                            byte_of(rank, c, i));
                bad++;
                break;
            }
    }
    MPI_File_close(&fh);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "t_learn: FAILED (%d bad calls)\n" : "t_learn: passed (%d calls each way)\n", all ? all : calls);
    free(buf);
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return all ? 1 : 0;
}
