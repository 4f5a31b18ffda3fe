/*
 * A fault the network and the file system ride out (tests/cluster/fault.sh
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
 *
 * T_EXPECT=errors is for a fault the file system does not ride out (a
 * brick killed, a link away past the clients' timeout): calls may fail, but
 * a collective call fails on every rank with one class, and nothing the
 * program was told is written is missing. A part counts as told written
 * when its write succeeded and so did the first sync after it, on every
 * rank. The file is closed, opened again (for up to 60 s, while a server
 * comes back) and those parts are read back; a
 * round that met a failure waits half a second, as a program that retries
 * would, and the last line says how many rounds kept their parts and
 * whether syncs succeeded again after the first failure.
 */
#include "tutil.h"

#include <fcntl.h>
#include <unistd.h>

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

static int disagreed;

/* A collective call's outcome, agreed: nonzero when it failed on any rank.
 * Ranks that got different classes are counted, from rank 0's view. */
static int any_failed(const char *call, int round, int rc)
{
    int c = t_class(rc), lo = 0, hi = 0;
    MPI_Allreduce(&c, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&c, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) {
        disagreed++;
        if (t_rank == 0)
            printf("t_ridethrough: round %d: %s: the ranks' classes differ (%s and %s)\n", round, call,
                   t_class_name(lo), t_class_name(hi));
    }
    return hi != MPI_SUCCESS;
}

struct first {
    const char *call;
    int rc, round;
    double at;
};

static void note_failure(struct first *f, const char *call, int rc, int round, double at)
{
    if (rc == MPI_SUCCESS || f->call)
        return;
    *f = (struct first){call, rc, round, at};
}

/* Every rank reads its neighbour's parts (another node's client wrote
 * them) that `want` marks; the count of those wrong or short. */
static int read_back(MPI_File fh, int rounds, const unsigned char *want_parts, char *buf, char *want)
{
    int nb = (t_rank + 1) % t_size, wrong = 0;
    for (int r = 0; r < rounds; r++)
        for (int which = 0; which < 2; which++) {
            if (!(want_parts[r] & (1 << which)))
                continue;
            fill(want, r, nb, which);
            MPI_Status st;
            int got = 0;
            int rc = MPI_File_read_at(fh, part_at(r, nb, which), buf, PART, MPI_BYTE, &st);
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
    return wrong;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    double limit = argc > 1 ? atof(argv[1]) : 20.0;
    int reopen = argc > 2 ? atoi(argv[2]) : 0;
    const char *expect = getenv("T_EXPECT");
    int errors_ok = expect && strcmp(expect, "errors") == 0;
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
    /* per round, the parts this rank was told are written (bit 0 the
     * collective one, bit 1 the independent one) */
    int cap = 1024;
    unsigned char *told = calloc(cap, 1);
    struct first first = {0};
    int failures = 0, rounds = 0, go = 1, unsynced = 0, synced_after = 0;
    double t0 = MPI_Wtime(), slowest = 0;
    while (go) {
        double r0 = MPI_Wtime();
        int failed_here = 0;
        if (rounds == cap) {
            told = realloc(told, 2 * cap);
            memset(told + cap, 0, cap);
            cap *= 2;
        }
        for (int which = 0; which < 2; which++) {
            const char *call = which == 0 ? "MPI_File_write_at_all" : "MPI_File_write_at";
            fill(buf, rounds, t_rank, which);
            MPI_Offset at = part_at(rounds, t_rank, which);
            rc = which == 0 ? MPI_File_write_at_all(fh, at, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE)
                            : MPI_File_write_at(fh, at, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE);
            if (which == 0)
                any_failed(call, rounds, rc);
            EXPECT(errors_ok || rc == MPI_SUCCESS, "round %d: %s failed with %s", rounds, call, t_class_name(rc));
            note_failure(&first, call, rc, rounds, MPI_Wtime() - t0);
            failures += rc != MPI_SUCCESS;
            failed_here |= rc != MPI_SUCCESS;
            told[rounds] |= (rc == MPI_SUCCESS) << which;
        }
        if (rounds % SYNC_EVERY == SYNC_EVERY - 1) {
            rc = MPI_File_sync(fh);
            EXPECT(errors_ok || rc == MPI_SUCCESS, "round %d: MPI_File_sync failed with %s", rounds,
                   t_class_name(rc));
            note_failure(&first, "MPI_File_sync", rc, rounds, MPI_Wtime() - t0);
            failures += rc != MPI_SUCCESS;
            failed_here |= rc != MPI_SUCCESS;
            /* a failed sync leaves the parts since the last one untold */
            if (any_failed("MPI_File_sync", rounds, rc))
                memset(told + unsynced, 0, rounds + 1 - unsynced);
            else if (first.call)
                synced_after++;
            unsynced = rounds + 1;
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
        if (failed_here)
            usleep(500 * 1000);
        double took = MPI_Wtime() - r0;
        slowest = took > slowest ? took : slowest;
        /* rank 0's clock decides, so every rank runs the same rounds */
        go = MPI_Wtime() - t0 < limit;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 2; i++) {
        rc = MPI_File_sync(fh);
        note_failure(&first, "MPI_File_sync", rc, rounds, MPI_Wtime() - t0);
        failures += rc != MPI_SUCCESS;
        if (any_failed("MPI_File_sync", rounds, rc))
            memset(told + unsynced, 0, rounds - unsynced);
        unsynced = rounds;
        if (i == 0)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    /* which of the neighbour's parts it was told are written */
    unsigned char *nb_told = calloc(rounds ? rounds : 1, 1);
    MPI_Sendrecv(told, rounds, MPI_BYTE, (t_rank + t_size - 1) % t_size, 0, nb_told, rounds, MPI_BYTE,
                 (t_rank + 1) % t_size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (errors_ok) {
        /* afterwards, through a handle of its own: every part told written */
        rc = MPI_File_close(&fh);
        note_failure(&first, "MPI_File_close", rc, rounds, MPI_Wtime() - t0);
        failures += rc != MPI_SUCCESS;
        any_failed("MPI_File_close", rounds, rc);
        /* as a program that checks its checkpoint waits for a server that
         * is coming back: up to 60 s */
        for (int tries = 1;; tries++) { /* open agrees, so every rank tries alike */
            rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
            if (rc == MPI_SUCCESS || tries == 60)
                break;
            sleep(1);
        }
        EXPECT(rc == MPI_SUCCESS, "open afterwards: %s", t_class_name(rc));
        int lost = rc == MPI_SUCCESS ? read_back(fh, rounds, nb_told, buf, want) : -1, kept = 0;
        for (int r = 0; r < rounds; r++)
            kept += __builtin_popcount(nb_told[r]);
        EXPECT(lost == 0, "%d of the %d parts told written read back wrong or short", lost, kept);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        if (first.call)
            printf("t_ridethrough: rank %d: first failure: %s with %s in round %d at %.1f s\n", t_rank, first.call,
                   t_class_name(first.rc), first.round, first.at);
        int all_kept = 0, all_failures = 0, after = 0;
        MPI_Reduce(&kept, &all_kept, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&synced_after, &after, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
        EXPECT(disagreed == 0, "%d collective calls whose classes differ across ranks", disagreed);
        if (t_rank == 0)
            printf("t_ridethrough: %d rounds in %.1f s; %d of %d parts told written; %d calls "
                   "failed; %d syncs succeeded after the first failure\n",
                   rounds, MPI_Wtime() - t0, all_kept, 2 * rounds * t_size, all_failures, after);
        if (t_rank == 0 && !getenv("T_KEEP"))
            unlink(path);
        free(nb_told);
        free(told);
        free(buf);
        free(want);
        return t_finish("t_ridethrough");
    }
    int wrong = read_back(fh, rounds, nb_told, buf, want);
    EXPECT(wrong == 0, "%d of %d parts read back wrong or short", wrong, 2 * rounds);
    EXPECT(failures == 0, "%d calls failed", failures);
    EXPECT(disagreed == 0, "%d collective calls whose classes differ across ranks", disagreed);
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
        int nb = (t_rank + 1) % t_size;
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
    free(nb_told);
    free(told);
    free(buf);
    free(want);
    return t_finish("t_ridethrough");
}
