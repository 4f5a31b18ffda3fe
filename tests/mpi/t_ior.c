/*
 * An IOR-like segmented N:1 program that knows nothing of ferry: each rank
 * writes `segments` blocks of `block` bytes into one shared file in
 * transfers of `xfer` bytes (independent or collective), then reads back its
 * neighbour's blocks and verifies every byte.
 *   t_ior -t 65536 -b 1048576 -s 4 [-c] [-f file]
 */
#include "tutil.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    long long xfer = 65536, block = 1 << 20;
    int segments = 2, coll = 0;
    char path[512];
    t_path(path, sizeof path, "ior.dat");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            xfer = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            block = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            segments = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c"))
            coll = 1;
        else if (!strcmp(argv[i], "-f") && i + 1 < argc)
            snprintf(path, sizeof path, "%s", argv[++i]);
    }
    if (block % xfer) {
        if (t_rank == 0)
            fprintf(stderr, "block must be a multiple of the transfer size\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc((size_t)xfer);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", t_class_name(rc));
    for (int s = 0; s < segments; s++)
        for (long long k = 0; k < block; k += xfer) {
            long long off = ((long long)s * t_size + t_rank) * block + k;
            for (long long i = 0; i < xfer; i++)
                buf[i] = t_byte(off + i, 7);
            MPI_Status st;
            rc = coll ? MPI_File_write_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
                      : MPI_File_write_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
            int c = -1;
            MPI_Get_count(&st, MPI_BYTE, &c);
            EXPECT(rc == MPI_SUCCESS && c == xfer, "write at %lld: %s count %d", off, t_class_name(rc), c);
        }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int nb = (t_rank + 1) % t_size;
    long long bad = 0;
    for (int s = 0; s < segments; s++)
        for (long long k = 0; k < block; k += xfer) {
            long long off = ((long long)s * t_size + nb) * block + k;
            MPI_Status st;
            rc = coll ? MPI_File_read_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
                      : MPI_File_read_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
            EXPECT(rc == MPI_SUCCESS, "read at %lld", off);
            for (long long i = 0; i < xfer; i++)
                bad += buf[i] != t_byte(off + i, 7);
        }
    EXPECT(bad == 0, "%lld bytes differ", bad);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    EXPECT(size == (MPI_Offset)segments * t_size * block, "file size %lld", (long long)size);
    t_report("ior size=%lld bad=%lld", (long long)size, bad);
    MPI_File_close(&fh);
    free(buf);
    return t_finish("t_ior");
}
