/*
 * A program that knows nothing of ferry: `calls` collective writes of one
 * interleaved pattern (each rank `pieces` pieces of `size` bytes per call,
 * round robin between the ranks, like a time step of BT-IO), then the same
 * reads, every byte checked, natively or through ferry. Through ferry, auto
 * learns on the repeats: this program proves every option it tries moves
 * the right bytes, and that no rank waits for a collective the others skip.
 *
 *   t_learn FILE [calls [pieces [size [opens]]]]
 *
 * opens > 1 runs it all again on a new file of the same name, in the same
 * process; with T_LEARN_WATCH=PATH set, rank 0 says between opens whether
 * PATH exists (what a library keeps in a file, and when).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char byte_of(int rank, int call, long i)
{
    return (unsigned char)(rank * 131 + call * 17 + i * 7 + (i >> 9));
}

/* One open: the writes, then the reads, each checked; the calls that went wrong. */
static int one_open(const char *path, MPI_Datatype ft, int rank, int piece, int calls, long per, unsigned char *buf)
{
    MPI_File fh;
    int bad = 0;
    MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "t_learn: rank %d: open failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_view(fh, (MPI_Offset)rank * piece, MPI_BYTE, ft, "native", MPI_INFO_NULL);
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
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: t_learn FILE [calls [pieces [size [opens]]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int calls = argc > 2 ? atoi(argv[2]) : 12;
    int pieces = argc > 3 ? atoi(argv[3]) : 64;
    int piece = argc > 4 ? atoi(argv[4]) : 512;
    int opens = argc > 5 ? atoi(argv[5]) : 1;
    const char *watch = getenv("T_LEARN_WATCH");
    long per = (long)pieces * piece;
    MPI_Datatype vec, ft;
    MPI_Type_vector(pieces, piece, piece * size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)per * size, &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = malloc((size_t)per);
    int bad = 0;
    for (int o = 0; o < opens; o++) {
        if (o && watch && rank == 0)
            printf("t_learn: between opens, %s %s\n", watch, access(watch, F_OK) == 0 ? "exists" : "absent");
        bad += one_open(argv[1], ft, rank, piece, calls, per, buf);
    }
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
