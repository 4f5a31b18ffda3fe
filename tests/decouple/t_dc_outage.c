/*
 * A data process killed from outside the job (tests/cluster/fault.sh
 * dp:NODE kills the one on an I/O node of the cluster): every compute rank
 * asks its data process for the sum of its part of a file, round after
 * round for the given time, and checks it. A rank whose data process died
 * must get MPI_ERR_OTHER within FERRY_DECOUPLE_TIMEOUT and every call
 * after it at once; a rank served by another keeps getting right sums; no
 * sum is wrong; the job ends (ferry-run --survive keeps the launcher from
 * ending it when the data process dies). It leaves "started" in
 * FERRY_TEST_TMP after the first round, for the script.
 *
 *   t_dc_outage [seconds]     (each rank that lost its data process:
 *                              "t_dc_outage: rank R: CLASS after T s")
 */
#include "dtest.h"

#include <fcntl.h>
#include <unistd.h>

#define PER_RANK (256 * 1024) /* int32 a rank: 1 MiB */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    if (!d_start(&comm))
        return 0;
    double limit = argc > 1 ? atof(argv[1]) : 20;
    const char *tenv = getenv("FERRY_DECOUPLE_TIMEOUT");
    double timeout = tenv ? atof(tenv) : 60;
    char path[512], marker[512];
    d_path(path, sizeof path, "outage.dat");
    d_path(marker, sizeof marker, "started");
    if (d_rank == 0) {
        FILE *f = fopen(path, "wb");
        for (int64_t k = 0; f && k < (int64_t)PER_RANK * d_size; k++) {
            int32_t v = d_i32(k);
            fwrite(&v, 4, 1, f);
        }
        if (f)
            fclose(f);
    }
    MPI_Barrier(comm);
    int64_t want = 0;
    for (int64_t k = (int64_t)d_rank * PER_RANK; k < (int64_t)(d_rank + 1) * PER_RANK; k++)
        want += d_i32(k);
    ferry_dfile d;
    int rc = ferry_decouple_open(comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &d);
    CHECK(rc == MPI_SUCCESS, "open: %s", d_class_name(rc));
    double t0 = MPI_Wtime(), failed_at = -1, waited = 0;
    int rounds = 0, wrong = 0, failed = MPI_SUCCESS;
    /* each rank on its own clock: its reads are independent of the others' */
    while (rc == MPI_SUCCESS && MPI_Wtime() - t0 < limit) {
        int64_t sum = 0;
        double r0 = MPI_Wtime();
        ferry_decouple_seek(d, (MPI_Offset)d_rank * PER_RANK * 4, MPI_SEEK_SET);
        rc = ferry_decouple_read(d, &sum, PER_RANK, MPI_INT32_T, FERRY_OP_SUM, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            failed = d_class(rc);
            failed_at = MPI_Wtime() - t0;
            waited = MPI_Wtime() - r0;
            break;
        }
        wrong += sum != want;
        if (++rounds == 1 && d_rank == 0)
            close(open(marker, O_CREAT | O_WRONLY, 0644));
    }
    CHECK(wrong == 0, "%d of %d sums wrong", wrong, rounds);
    if (failed != MPI_SUCCESS) {
        printf("t_dc_outage: rank %d: %s after %.1f s (the call waited %.1f s), %d rounds before\n", d_rank,
               d_class_name(failed), failed_at, waited, rounds);
        CHECK(failed == MPI_ERR_OTHER, "a dead data process: %s", d_class_name(failed));
        CHECK(waited < timeout + 10, "the failed call waited %.1f s, past the %.0f s timeout", waited, timeout);
        int64_t sum;
        double a0 = MPI_Wtime();
        rc = ferry_decouple_read(d, &sum, 10, MPI_INT32_T, FERRY_OP_SUM, MPI_STATUS_IGNORE);
        double again = MPI_Wtime() - a0;
        CHECK(d_class(rc) == MPI_ERR_OTHER && again < timeout / 2, "the next call: %s after %.1f s",
              d_class_name(rc), again);
    }
    ferry_decouple_close(&d);
    int lost = failed != MPI_SUCCESS, all_lost = 0, fails = 0;
    MPI_Allreduce(&lost, &all_lost, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
    if (d_rank == 0)
        printf("t_dc_outage: %d of %d compute ranks lost their data process; %s\n", all_lost, d_size,
               fails ? "FAILED" : "passed");
    fflush(stdout);
    MPI_Finalize();
    return fails != 0;
}
