/*
 * Faults under a strategy (chosen by the runner through FERRY_HINTS, injected
 * by FERRY_FAULT). The program knows nothing of ferry: it checks what the MPI
 * standard and ferry's promise say a program sees.
 *
 *   R_MODE=coll  collective write_all then read_all through a view with holes
 *   R_MODE=ind   the same with independent write_at/read_at on every rank
 *   R_EXPECT=retry          every call succeeds (EINTR, short transfers)
 *   R_EXPECT=MPI_ERR_IO...  one of the calls fails with that class (on every
 *                           rank for a collective); a repeat of it succeeds
 *
 * Whatever happens: a failed independent write reports (status count) only
 * bytes that are in the file; holes keep the old content; the file syncs and
 * closes cleanly; at the end every byte of the file is what it must be.
 */
#include "mpi/tutil.h"

#include <fcntl.h>

#define BLK 64   /* bytes per rank per block: first half data, second half hole */
#define HALF 32
#define NBLK 1000

static unsigned char old_byte(long long off) { return t_byte(off, 77); }
static unsigned char new_byte(int rank, long long k) { return t_byte(((long long)rank << 24) + k, 3); }

/* File offset of data byte k of `rank`'s stream. */
static long long off_of(int rank, long long k)
{
    return (k / HALF) * (long long)BLK * t_size + (long long)rank * BLK + k % HALF;
}

static int same_everywhere(int cls)
{
    int mn = cls, mx = cls;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

static int any(int v)
{
    int r = 0;
    MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return r;
}

/* The first `count` data bytes of this rank's stream are in the file. */
static int reported_in_file(const char *path, long long count)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    int ok = 1;
    for (long long k = 0; k < count && ok; k++) {
        unsigned char c;
        ok = pread(fd, &c, 1, off_of(t_rank, k)) == 1 && c == new_byte(t_rank, k);
    }
    close(fd);
    return ok;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *mode = getenv("R_MODE") ? getenv("R_MODE") : "coll";
    const char *expect = getenv("R_EXPECT") ? getenv("R_EXPECT") : "retry";
    int coll = strcmp(mode, "ind") != 0;
    int want_fail = strcmp(expect, "retry") != 0;
    char path[512];
    t_path(path, sizeof path, "r_faults.dat");
    t_fresh(path);
    long long total = (long long)BLK * t_size * NBLK;

    /* old content, written behind MPI's back */
    if (t_rank == 0) {
        unsigned char *o = malloc((size_t)total);
        for (long long i = 0; i < total; i++)
            o[i] = old_byte(i);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        EXPECT(fd >= 0 && write(fd, o, (size_t)total) == total, "old content");
        close(fd);
        free(o);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
    MPI_Datatype vec, ft;
    MPI_Type_vector(NBLK, HALF, BLK * t_size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)total, &ft);
    MPI_Type_commit(&ft);
    rc = MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view");

    const int n = HALF * NBLK;
    unsigned char *w = malloc(n), *r = malloc(n);
    for (long long k = 0; k < n; k++)
        w[k] = new_byte(t_rank, k);

    int failures_seen = 0; /* calls that failed (on any rank) */
    for (int phase = 0; phase < 2; phase++) {
        int is_write = phase == 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            MPI_Status st;
            memset(r, 0, n);
            if (is_write)
                rc = coll ? MPI_File_write_at_all(fh, 0, w, n, MPI_BYTE, &st)
                          : MPI_File_write_at(fh, 0, w, n, MPI_BYTE, &st);
            else
                rc = coll ? MPI_File_read_at_all(fh, 0, r, n, MPI_BYTE, &st)
                          : MPI_File_read_at(fh, 0, r, n, MPI_BYTE, &st);
            int cls = t_class(rc), c = -1;
            MPI_Get_count(&st, MPI_BYTE, &c);
            const char *what = is_write ? "write" : "read";
            t_report("%s attempt %d: %s count=%d", what, attempt, t_class_name(rc), c);
            if (coll)
                EXPECT(same_everywhere(cls), "collective %s: ranks see different classes", what);
            if (rc != MPI_SUCCESS) {
                EXPECT(want_fail, "%s failed with %s, expected every call to succeed", what, t_class_name(rc));
                EXPECT(!want_fail || !strcmp(t_class_name(rc), expect), "%s failed with %s, expected %s", what,
                       t_class_name(rc), expect);
                EXPECT(attempt == 0, "the repeat of a failed %s fails too", what);
            } else {
                EXPECT(c == n, "%s count %d, want %d", what, c, n);
                if (!is_write)
                    EXPECT(!memcmp(r, w, n), "read back differs");
            }
            MPI_Barrier(MPI_COMM_WORLD);
            /* what a failed write reports as written is in the file */
            if (rc != MPI_SUCCESS && is_write && c > 0)
                EXPECT(reported_in_file(path, c), "a failed write reports %d bytes not in the file", c);
            int failed = any(rc != MPI_SUCCESS);
            failures_seen += failed;
            if (!failed)
                break;
        }
    }
    EXPECT(!want_fail || failures_seen == 1, "expected exactly one failed call, saw %d", failures_seen);

    /* the file stays usable: a read of everything through a plain view */
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync after the fault: %s", t_class_name(rc));
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close after the fault: %s", t_class_name(rc));
    if (t_rank == 0) {
        unsigned char *all = calloc((size_t)total, 1);
        int fd = open(path, O_RDONLY);
        long long got = fd >= 0 ? (long long)read(fd, all, (size_t)total) : -1;
        if (fd >= 0)
            close(fd);
        long long bad = 0, first = -1;
        for (long long i = 0; i < total; i++) {
            long long blk = i / BLK, in = i % BLK;
            int owner = (int)(blk % t_size);
            unsigned char want = in < HALF ? new_byte(owner, (blk / t_size) * HALF + in) : old_byte(i);
            if (all[i] != want && bad++ == 0)
                first = i;
        }
        EXPECT(got == total && bad == 0, "file: size %lld of %lld, %lld wrong bytes (first at %lld)", got, total,
               bad, first);
        free(all);
    }
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
    free(w);
    free(r);
    return t_finish("r_faults");
}
