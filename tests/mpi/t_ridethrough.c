/*
 * A fault the network and the file system ride out (tests/cluster/linkfault.sh
 * takes a link away for a few seconds once the ranks are under way): every
 * rank writes its part of a round collectively and then independently,
 * round after round for the given time, with a sync every few rounds; then
 * every rank reads back a neighbour's parts after sync-barrier-sync. A short
 * outage must cost time only: no call fails, every byte is in the file. It
 * leaves "started" in the directory after the first round, for the script,
 * and prints how long the slowest round took (where the outage fell). Last,
 * a cut to a multiple of 4 MiB must keep every byte below it.
 *
 *   t_ridethrough [seconds [reopen]]   (default 20 s; reopen: close and open
 *                                       the file again every that many rounds)
 * T_KEEP=1 keeps the file; T_DEBUG=1 prints the first wrong parts.
 */
#include "tutil.h"

#include <fcntl.h>

#define PART (64 * 1024)
#define SYNC_EVERY 4
#define CUT ((MPI_Offset)4 << 20)

static void fill(char *b, int round, int rank, int which)
{
    for (int i = 0; i < PART; i++)
        b[i] = (char)('a' + (round * 7 + rank * 3 + which + i / 4096) % 26);
}

static MPI_Offset part_at(int round, int rank, int which)
{
    return (((MPI_Offset)round * 2 + which) * t_size + rank) * PART;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    double limit = argc > 1 ? atof(argv[1]) : 20.0;
    int reopen = argc > 2 ? atoi(argv[2]) : 0;
    char path[512], marker[512];
    t_path(path, sizeof path, "ridethrough.dat");
    t_path(marker, sizeof marker, "started");
    if (t_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
    if (rc != MPI_SUCCESS)
        return t_finish("t_ridethrough");
    char *buf = malloc(PART), *want = malloc(PART);
    int failures = 0, rounds = 0, go = 1;
    double t0 = MPI_Wtime(), slowest = 0;
    while (go) {
        double r0 = MPI_Wtime();
        for (int which = 0; which < 2; which++) {
            fill(buf, rounds, t_rank, which);
            MPI_Offset at = part_at(rounds, t_rank, which);
            rc = which == 0 ? MPI_File_write_at_all(fh, at, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE)
                            : MPI_File_write_at(fh, at, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE);
            EXPECT(rc == MPI_SUCCESS, "round %d: %s failed with %s", rounds,
                   which == 0 ? "MPI_File_write_at_all" : "MPI_File_write_at", t_class_name(rc));
            failures += rc != MPI_SUCCESS;
        }
        if (rounds % SYNC_EVERY == SYNC_EVERY - 1) {
            rc = MPI_File_sync(fh);
            EXPECT(rc == MPI_SUCCESS, "round %d: MPI_File_sync failed with %s", rounds, t_class_name(rc));
            failures += rc != MPI_SUCCESS;
        }
        if (rounds == 0 && t_rank == 0) {
            int fd = open(marker, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
        }
        rounds++;
        /* a checkpoint's pattern: close, then open again and go on */
        if (reopen > 0 && rounds % reopen == 0) {
            rc = MPI_File_close(&fh);
            failures += rc != MPI_SUCCESS;
            rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
            EXPECT(rc == MPI_SUCCESS, "round %d: open again: %s", rounds, t_class_name(rc));
            if (rc != MPI_SUCCESS)
                return t_finish("t_ridethrough");
        }
        double took = MPI_Wtime() - r0;
        slowest = took > slowest ? took : slowest;
        /* rank 0's clock decides, so every rank runs the same rounds */
        go = MPI_Wtime() - t0 < limit;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    rc = MPI_File_sync(fh);
    failures += rc != MPI_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_File_sync(fh);
    failures += rc != MPI_SUCCESS;
    /* a neighbour's parts, which another node's client wrote */
    int nb = (t_rank + 1) % t_size, wrong = 0;
    for (int r = 0; r < rounds; r++)
        for (int which = 0; which < 2; which++) {
            fill(want, r, nb, which);
            MPI_Status st;
            int got = 0;
            rc = MPI_File_read_at(fh, part_at(r, nb, which), buf, PART, MPI_BYTE, &st);
            if (rc == MPI_SUCCESS)
                MPI_Get_count(&st, MPI_BYTE, &got);
            int bad = rc != MPI_SUCCESS || got != PART || memcmp(buf, want, PART) != 0;
            if (bad && getenv("T_DEBUG") && wrong < 3) {
                int k = 0;
                while (k < got && buf[k] == want[k])
                    k++;
                printf("r%d: round %d part %d of rank %d: %s, %d bytes, first wrong at %d (%d, %d wanted)\n", t_rank,
                       r, which, nb, t_class_name(rc), got, k, k < got ? buf[k] : -1, k < PART ? want[k] : -1);
            }
            wrong += bad;
        }
    EXPECT(wrong == 0, "%d of %d parts read back wrong or short", wrong, 2 * rounds);
    EXPECT(failures == 0, "%d calls failed", failures);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    EXPECT(size == part_at(rounds, 0, 0), "size %lld, %lld written", (long long)size,
           (long long)part_at(rounds, 0, 0));
    /* a cut to a multiple of 4 MiB, the shard size's least: what is below
     * it stays (GlusterFS shard empties the block before such a cut) */
    MPI_Offset keep = size / CUT * CUT;
    if (keep > 0) {
        rc = MPI_File_set_size(fh, keep);
        EXPECT(rc == MPI_SUCCESS, "set_size(%lld): %s", (long long)keep, t_class_name(rc));
        wrong = 0;
        for (int r = 0; rc == MPI_SUCCESS && r < rounds; r++)
            for (int which = 0; which < 2; which++) {
                if (part_at(r, nb, which) + PART > keep)
                    continue;
                fill(want, r, nb, which);
                rc = MPI_File_read_at(fh, part_at(r, nb, which), buf, PART, MPI_BYTE, MPI_STATUS_IGNORE);
                wrong += rc != MPI_SUCCESS || memcmp(buf, want, PART) != 0;
            }
        EXPECT(wrong == 0, "after set_size(%lld): %d parts below it read back wrong", (long long)keep, wrong);
        MPI_File_get_size(fh, &size);
        EXPECT(size == keep, "size %lld after set_size(%lld)", (long long)size, (long long)keep);
    }
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close: %s", t_class_name(rc));
    double worst = 0;
    MPI_Reduce(&slowest, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (t_rank == 0) {
        printf("t_ridethrough: %d rounds in %.1f s, %lld bytes, slowest round %.1f s\n", rounds, MPI_Wtime() - t0,
               (long long)part_at(rounds, 0, 0), worst);
        if (!getenv("T_KEEP"))
            unlink(path);
        unlink(marker);
    }
    free(buf);
    free(want);
    return t_finish("t_ridethrough");
}
