/*
 * A node's file-system client dies under the ranks (tests/cluster/nodefault.sh
 * kills it after the first rounds): every rank writes its part of a round
 * collectively, then independently, then syncs, round after round. The
 * first call that fails must fail on every rank with one error class, and
 * the program must end (close, finalize) in bounded time. It leaves
 * "started" in the directory after the first round, for the script.
 *
 *   t_nodefault [rounds]     (each rank: "t_nodefault: rank R: CALL failed with CLASS in round N")
 */
#include "tutil.h"

#include <fcntl.h>

#define PART (256 * 1024)

static int failed(const char *call, int rc, int round)
{
    if (rc == MPI_SUCCESS)
        return 0;
    printf("t_nodefault: rank %d: %s failed with %s in round %d\n", t_rank, call, t_class_name(rc), round);
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    char path[512], marker[512];
    t_path(path, sizeof path, "nodefault.dat");
    t_path(marker, sizeof marker, "started");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
    char *buf = malloc(PART);
    int cls = MPI_SUCCESS, r = 0;
    for (; r < rounds && rc == MPI_SUCCESS; r++) {
        memset(buf, 'a' + (r + t_rank) % 26, PART);
        MPI_Offset at = ((MPI_Offset)r * t_size * 2 + t_rank) * PART;
        MPI_Status st;
        rc = MPI_File_write_at_all(fh, at, buf, PART, MPI_BYTE, &st);
        if (failed("MPI_File_write_at_all", rc, r))
            break;
        rc = MPI_File_write_at(fh, at + (MPI_Offset)t_size * PART, buf, PART, MPI_BYTE, &st);
        /* an independent write fails where the client died; the sync after
         * it is collective and fails everywhere */
        failed("MPI_File_write_at", rc, r);
        int src = MPI_File_sync(fh);
        if (failed("MPI_File_sync", src, r)) {
            rc = src;
            break;
        }
        if (r == 0 && t_rank == 0) {
            int fd = open(marker, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
        }
    }
    cls = t_class(rc);
    /* the failing collective call gave every rank the same class */
    int v[2] = {cls, -cls}, all[2];
    MPI_Allreduce(v, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(cls != MPI_SUCCESS, "no call failed in %d rounds: the fault did not take", r);
    EXPECT(all[0] == -all[1], "ranks saw different classes");
    int crc = MPI_File_close(&fh);
    printf("t_nodefault: rank %d: close: %s\n", t_rank, t_class_name(crc));
    free(buf);
    return t_finish("t_nodefault");
}
