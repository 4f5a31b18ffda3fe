/*
 * Atomic mode, overlapping collective writes: every rank writes the same
 * strided region with write_at_all, its own byte value in every block. In
 * atomic mode the file must be as if the writes happened in some serial
 * order: one rank's data in every block of the region, the gaps untouched.
 * Runs natively on MPICH too (its ROMIO leaves the highest rank's data, as
 * ferry does; the gap check is ferry's only: ROMIO writes memory there).
 *
 *   R_STRATEGIES="twophase,local,auto,independent,sieve"  (through MPI_Info)
 *   R_REPS=n  repetitions of each (strategy, cb_buffer_size)
 */
#include "mpi/tutil.h"

#include <fcntl.h>

#define NBLK 64
#define BLK 100
#define STRIDE 256

static void strategy_info(MPI_Info info, const char *s, const char *cb)
{
    MPI_Info_set(info, "cb_buffer_size", cb);
    if (strcmp(s, "independent") == 0 || strcmp(s, "sieve") == 0) {
        MPI_Info_set(info, "romio_cb_write", "disable");
        MPI_Info_set(info, "ferry_write_strategy", "independent");
        MPI_Info_set(info, "ferry_ind_write_strategy", strcmp(s, "sieve") == 0 ? "sieve" : "direct");
        MPI_Info_set(info, "romio_ds_write", strcmp(s, "sieve") == 0 ? "enable" : "disable");
        MPI_Info_set(info, "ind_wr_buffer_size", "4096");
    } else if (strcmp(s, "forward") == 0) {
        MPI_Info_set(info, "romio_cb_write", "disable"); /* forwarding comes from FERRY_HINTS */
    } else {
        MPI_Info_set(info, "romio_cb_write", strcmp(s, "auto") == 0 ? "automatic" : "enable");
        MPI_Info_set(info, "ferry_write_strategy", s);
    }
}

/* 0 if the region holds one rank's data throughout and nothing else changed. */
static int check(const char *path, const char *what)
{
    int fd = open(path, O_RDONLY);
    unsigned char buf[NBLK * STRIDE];
    ssize_t got = fd >= 0 ? pread(fd, buf, sizeof buf, 0) : -1;
    if (fd >= 0)
        close(fd);
    long long want = (long long)(NBLK - 1) * STRIDE + BLK;
    if (got != want) {
        EXPECT(0, "%s: file holds %lld bytes, %lld expected", what, (long long)got, want);
        return 1;
    }
    unsigned char winner = buf[0];
    int torn = 0, bad = 0;
    for (int b = 0; b < NBLK; b++)
        for (int i = 0; i < STRIDE && b * STRIDE + i < want; i++) {
            unsigned char c = buf[b * STRIDE + i];
            if (i < BLK)
                torn += c != winner;
            else
                bad += c != 0;
        }
    EXPECT(winner >= 1 && winner <= t_size && !torn,
           "%s: torn: rank %d's data in block 0, %d bytes of other ranks' data in the region", what, winner - 1,
           torn);
    /* MPICH's ROMIO writes process memory into the gaps */
    EXPECT_STD(!bad, "%s: %d gap bytes written", what, bad);
    return torn != 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *slist = getenv("R_STRATEGIES");
    char strategies[256];
    snprintf(strategies, sizeof strategies, "%s", slist ? slist : "twophase,local,auto,independent,sieve");
    int reps = getenv("R_REPS") ? atoi(getenv("R_REPS")) : 10;
    const char *cbs[] = {"1024", "4096", "65536"};
    char path[512];
    t_path(path, sizeof path, "r_atomic.dat");
    unsigned char *data = malloc((size_t)NBLK * BLK);
    memset(data, t_rank + 1, (size_t)NBLK * BLK);
    MPI_Datatype ft;
    MPI_Type_vector(NBLK, BLK, STRIDE, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    int torn_runs = 0, runs = 0;
    for (char *save = NULL, *s = strtok_r(strategies, ",", &save); s; s = strtok_r(NULL, ",", &save))
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < reps; r++) {
                t_fresh(path);
                MPI_Info info;
                MPI_Info_create(&info);
                strategy_info(info, s, cbs[c]);
                MPI_File fh;
                int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
                MPI_Info_free(&info);
                EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
                if (rc != MPI_SUCCESS)
                    continue;
                EXPECT(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS, "set_atomicity");
                MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
                MPI_Status st;
                rc = MPI_File_write_at_all(fh, 0, data, NBLK * BLK, MPI_BYTE, &st);
                EXPECT(rc == MPI_SUCCESS, "%s cb %s: write_at_all: %s", s, cbs[c], t_class_name(rc));
                EXPECT(MPI_File_close(&fh) == MPI_SUCCESS, "close");
                MPI_Barrier(MPI_COMM_WORLD);
                if (t_rank == 0) {
                    char what[64];
                    snprintf(what, sizeof what, "%s, cb_buffer_size %s, run %d", s, cbs[c], r);
                    torn_runs += check(path, what);
                }
                runs++;
                MPI_Barrier(MPI_COMM_WORLD);
            }
    if (t_rank == 0)
        printf("r_atomic: %d of %d runs torn (%d ranks)\n", torn_runs, runs, t_size);
    MPI_Type_free(&ft);
    free(data);
    return t_finish("r_atomic");
}
