/*
 * A write handed to a data process is never lost, even when the program
 * ends without closing or syncing the file.
 *   t_dc_unclosed write FILE   compute processes hand over many small
 *                              writes (a backlog on the data side), then
 *                              finalize at once, file still open
 *   t_dc_unclosed check FILE   after that job has ended: every element is
 *                              in the file (plain stdio, no MPI)
 */
#include "dtest.h"

#define PER 1024     /* elements per write */
#define CALLS 256    /* writes per compute process */
#define RANKS_MAX 64

static int32_t value(int rank, int64_t k) { return rank * 10000000 + (int32_t)k; }

static int write_job(int argc, char **argv, const char *path)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    if (!d_start(&comm))
        return 0;
    if (d_rank == 0)
        remove(path);
    MPI_Barrier(comm);
    ferry_dfile d;
    int rc = ferry_decouple_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &d);
    CHECK(rc == MPI_SUCCESS, "open: %s", d_class_name(rc));
    /* each rank owns a contiguous region of the file */
    ferry_decouple_seek(d, (MPI_Offset)d_rank * CALLS * PER * 4, MPI_SEEK_SET);
    int32_t buf[PER];
    for (int c = 0; c < CALLS && rc == MPI_SUCCESS; c++) {
        for (int i = 0; i < PER; i++)
            buf[i] = value(d_rank, (int64_t)c * PER + i);
        rc = ferry_decouple_write(d, buf, PER, MPI_INT32_T, FERRY_OP_NULL, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "write %d: %s", c, d_class_name(rc));
    }
    int fails = 0;
    MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
    if (d_rank == 0)
        printf("t_dc_unclosed write: %s (%d compute processes, file left open)\n", fails ? "FAILED" : "handed over",
               d_size);
    fflush(stdout);
    MPI_Finalize(); /* no close, no sync: finalize must wait for the data side */
    return fails != 0;
}

static int check(const char *path, int ranks)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("t_dc_unclosed check: FAILED: %s is missing\n", path);
        return 1;
    }
    int64_t bad = 0, n = (int64_t)ranks * CALLS * PER, got = 0;
    int32_t x;
    for (int64_t g = 0; g < n && fread(&x, 4, 1, f) == 1; g++, got++)
        if (x != value((int)(g / ((int64_t)CALLS * PER)), g % ((int64_t)CALLS * PER)) && bad++ < 5)
            fprintf(stderr, "element %lld: %d\n", (long long)g, x);
    int extra = fread(&x, 1, 1, f) == 1;
    fclose(f);
    int ok = got == n && bad == 0 && !extra;
    printf("t_dc_unclosed check: %s (%lld of %lld elements read, %lld differ%s)\n", ok ? "passed" : "FAILED",
           (long long)got, (long long)n, (long long)bad, extra ? ", file too long" : "");
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "check"))) {
        fprintf(stderr, "usage: t_dc_unclosed write|check FILE [compute ranks]\n");
        return 2;
    }
    char path[512];
    d_path(path, sizeof path, argv[2]);
    if (!strcmp(argv[1], "check")) {
        int ranks = argc > 3 ? atoi(argv[3]) : 0;
        return check(path, ranks > 0 && ranks <= RANKS_MAX ? ranks : 1);
    }
    return write_job(argc, argv, path);
}
