/*
 * Faults under decoupled I/O (run by ferry-run; FERRY_FAULT names the world
 * rank that does the system calls: the data process, or a compute rank with
 * -dp 0). Decoupled writes return at once, so a write fault surfaces at sync.
 *
 *   r_dc_faults write|read
 *   R_EXPECT=retry          EINTR, short transfers: every call succeeds
 *   R_EXPECT=MPI_ERR_IO...  write: the sync after the faulted write fails with
 *                           that class on every compute rank; read: the
 *                           faulted read fails with it on the rank whose
 *                           request met the fault. The repeat succeeds.
 * Whatever happens: the file holds exactly the data, sums read back are
 * right, and sync and close succeed after the fault.
 */
#include "dtest.h"

#include <fcntl.h>
#include <unistd.h>

#define N 20000    /* int32 elements per compute rank */
#define CHUNK 2500 /* per call: several system calls on the data process */

static int32_t elem(int rank, int64_t k) { return d_i32((int64_t)rank * N + k); }

static int same_everywhere(MPI_Comm comm, int cls)
{
    int mn = cls, mx = cls;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, comm);
    return mn == mx;
}

static int write_all_chunks(ferry_dfile d, const int32_t *w)
{
    int rc = ferry_decouple_seek(d, (MPI_Offset)d_rank * N * 4, MPI_SEEK_SET);
    for (int k = 0; k < N && rc == MPI_SUCCESS; k += CHUNK)
        rc = ferry_decouple_write(d, w + k, CHUNK, MPI_INT32_T, FERRY_OP_NULL, MPI_STATUS_IGNORE);
    return rc;
}

static void write_phase(MPI_Comm comm, const char *path, const char *expect)
{
    int want_fail = strcmp(expect, "retry") != 0;
    int32_t *w = malloc(N * sizeof *w);
    for (int k = 0; k < N; k++)
        w[k] = elem(d_rank, k);
    ferry_dfile d;
    int rc = ferry_decouple_open(comm, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &d);
    CHECK(rc == MPI_SUCCESS, "open: %s", d_class_name(rc));
    rc = write_all_chunks(d, w);
    CHECK(rc == MPI_SUCCESS, "writes are handed over at once: %s", d_class_name(rc));
    rc = ferry_decouple_sync(d);
    int cls = d_class(rc);
    CHECK(same_everywhere(comm, cls), "sync: compute ranks see different classes (%s here)", d_class_name(rc));
    if (want_fail)
        CHECK(!strcmp(d_class_name(rc), expect), "sync after the faulted write: %s, want %s", d_class_name(rc), expect);
    else
        CHECK(rc == MPI_SUCCESS, "sync: %s, want every call to succeed", d_class_name(rc));
    if (rc != MPI_SUCCESS) { /* the repeat */
        rc = write_all_chunks(d, w);
        CHECK(rc == MPI_SUCCESS, "repeated writes: %s", d_class_name(rc));
        rc = ferry_decouple_sync(d);
        CHECK(rc == MPI_SUCCESS, "sync after the repeat: %s", d_class_name(rc));
    }
    rc = ferry_decouple_close(&d);
    CHECK(rc == MPI_SUCCESS, "close: %s", d_class_name(rc));
    MPI_Barrier(comm);
    if (d_rank == 0) { /* the bytes, behind ferry's back */
        int fd = open(path, O_RDONLY);
        int64_t total = (int64_t)N * d_size, bad = 0;
        int32_t *all = calloc((size_t)total, sizeof *all);
        ssize_t got = fd >= 0 ? pread(fd, all, (size_t)total * 4, 0) : -1;
        off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
        for (int64_t i = 0; i < total; i++)
            bad += all[i] != elem((int)(i / N), i % N);
        CHECK(got == total * 4 && end == total * 4 && bad == 0, "file: %zd bytes read, size %lld, %lld wrong elements",
              got, (long long)end, (long long)bad);
        if (fd >= 0)
            close(fd);
        free(all);
    }
    free(w);
}

static void read_phase(MPI_Comm comm, const char *path, const char *expect)
{
    int want_fail = strcmp(expect, "retry") != 0;
    if (d_rank == 0) { /* the file, written behind ferry's back */
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        for (int r = 0; r < d_size; r++)
            for (int64_t k = 0; k < N; k++) {
                int32_t v = elem(r, k);
                CHECK(fd >= 0 && write(fd, &v, 4) == 4, "old content");
            }
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(comm);
    ferry_dfile d;
    int rc = ferry_decouple_open(comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &d);
    CHECK(rc == MPI_SUCCESS, "open: %s", d_class_name(rc));
    int failed = 0;
    for (int k = 0; k < N; k += CHUNK) {
        int64_t want = 0, sum = 0;
        for (int j = k; j < k + CHUNK; j++)
            want += elem(d_rank, j);
        for (int attempt = 0; attempt < 2; attempt++) {
            ferry_decouple_seek(d, ((MPI_Offset)d_rank * N + k) * 4, MPI_SEEK_SET);
            rc = ferry_decouple_read(d, &sum, CHUNK, MPI_INT32_T, FERRY_OP_SUM, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                break;
            failed++;
            CHECK(want_fail && !strcmp(d_class_name(rc), expect), "read at %d: %s, want %s", k, d_class_name(rc),
                  want_fail ? expect : "MPI_SUCCESS");
            CHECK(attempt == 0, "the repeat of a failed read fails too: %s", d_class_name(rc));
        }
        CHECK(rc != MPI_SUCCESS || sum == want, "sum of elements %d..%d: %lld, want %lld", k, k + CHUNK - 1,
              (long long)sum, (long long)want);
    }
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, comm);
    CHECK(!want_fail || any == 1, "expected exactly one failed read on all ranks, saw %d", any);
    rc = ferry_decouple_close(&d);
    CHECK(rc == MPI_SUCCESS, "close: %s", d_class_name(rc));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (ferry_decouple_init() != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (ferry_is_data_process()) {
        MPI_Finalize();
        return 0;
    }
    MPI_Comm comm = ferry_comm_local();
    MPI_Comm_rank(comm, &d_rank);
    MPI_Comm_size(comm, &d_size);
    const char *mode = argc > 1 ? argv[1] : "write";
    const char *expect = getenv("R_EXPECT") ? getenv("R_EXPECT") : "retry";
    char path[512];
    d_path(path, sizeof path, "r_dc_faults.dat");
    if (d_rank == 0)
        unlink(path);
    MPI_Barrier(comm);
    if (!strcmp(mode, "read"))
        read_phase(comm, path, expect);
    else
        write_phase(comm, path, expect);
    int fails = 0;
    MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
    if (d_rank == 0)
        printf("r_dc_faults %s %s: %s\n", mode, expect, fails ? "FAILED" : "passed");
    fflush(stdout);
    MPI_Finalize();
    return fails != 0;
}
