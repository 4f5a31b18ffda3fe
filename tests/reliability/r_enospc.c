/*
 * A real ENOSPC: R_SMALLFS is a 1 MiB tmpfs the runner mounted.
 *   1. a collective write of 4 MiB (ranks interleaved) fails on every rank
 *      with MPI_ERR_NO_SPACE, reporting nothing written;
 *   2. independent writes of 1 MiB per rank: those that fail say
 *      MPI_ERR_NO_SPACE, and what each reports as written is in the file;
 *   3. preallocate past the space fails with MPI_ERR_NO_SPACE;
 *   4. after set_size(0) frees the space, a smaller collective write through
 *      the same handle succeeds and reads back; sync and close succeed.
 * The strategy comes from FERRY_HINTS.
 */
#include "mpi/tutil.h"

#include <fcntl.h>

#define BLK 4096

static int same_everywhere(int cls)
{
    int mn = cls, mx = cls;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

static void fill(unsigned char *b, long long n, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(((long long)t_rank << 26) + i, salt);
}

/* Interleaved view: rank r owns BLK-byte blocks r, r+P, ... */
static void interleave(MPI_File fh)
{
    MPI_Datatype v, ft;
    MPI_Type_vector(1, BLK, BLK * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)BLK * t_size, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *dir = getenv("R_SMALLFS");
    if (!dir || !*dir) {
        if (t_rank == 0)
            printf("r_enospc: skipped (no small file system: needs root to mount a tmpfs)\n");
        MPI_Finalize();
        return 0;
    }
    char p[600];
    snprintf(p, sizeof p, "%s/enospc.dat", dir);
    t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open on the small file system: %s", t_class_name(rc));

    /* 1: collective, larger than the file system */
    long long n = (4ll << 20) / t_size;
    unsigned char *big = malloc((size_t)n), *back = malloc((size_t)n);
    fill(big, n, 1);
    interleave(fh);
    MPI_Status st;
    rc = MPI_File_write_at_all(fh, 0, big, (int)n, MPI_BYTE, &st);
    int c = -1;
    MPI_Get_count(&st, MPI_BYTE, &c);
    t_report("collective %s", t_class_name(rc));
    EXPECT(same_everywhere(t_class(rc)), "collective ENOSPC: classes differ between ranks");
    EXPECT(t_class(rc) == MPI_ERR_NO_SPACE, "collective ENOSPC: %s", t_class_name(rc));
    EXPECT(rc == MPI_SUCCESS || c <= 0, "a failed collective write reports %d bytes", c);

    /* 2: independent, 1 MiB per rank, contiguous per rank */
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    rc = MPI_File_set_size(fh, 0);
    EXPECT(rc == MPI_SUCCESS, "set_size(0): %s", t_class_name(rc));
    long long m = 1ll << 20;
    unsigned char *ind = malloc((size_t)m);
    fill(ind, m, 2);
    rc = MPI_File_write_at(fh, (MPI_Offset)t_rank * m, ind, (int)m, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    t_report("independent %s", rc == MPI_SUCCESS ? "ok" : t_class_name(rc));
    EXPECT(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_NO_SPACE, "independent ENOSPC: %s", t_class_name(rc));
    int failed = rc != MPI_SUCCESS, nfailed = 0;
    MPI_Allreduce(&failed, &nfailed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(t_size < 2 || nfailed > 0, "%d MiB fit into a 1 MiB file system", t_size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (c > 0) { /* what the call reports as written is in the file */
        int fd = open(p, O_RDONLY);
        unsigned char *chk = malloc((size_t)c);
        long long got = fd >= 0 ? (long long)pread(fd, chk, (size_t)c, (off_t)t_rank * m) : -1;
        EXPECT(got == c && !memcmp(chk, ind, (size_t)c), "%d bytes reported written, %lld in the file%s", c,
               got, got == c ? " but different" : "");
        free(chk);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3: preallocate beyond the space */
    rc = MPI_File_set_size(fh, 0);
    EXPECT(rc == MPI_SUCCESS, "set_size(0): %s", t_class_name(rc));
    rc = MPI_File_preallocate(fh, 8ll << 20);
    t_report("preallocate %s", t_class_name(rc));
    EXPECT(same_everywhere(t_class(rc)), "preallocate: classes differ between ranks");
    EXPECT(t_class(rc) == MPI_ERR_NO_SPACE, "preallocate 8 MiB on 1 MiB: %s", t_class_name(rc));

    /* 4: freed space, smaller collective write through the same handle */
    rc = MPI_File_set_size(fh, 0);
    EXPECT(rc == MPI_SUCCESS, "set_size(0): %s", t_class_name(rc));
    long long s = (256ll << 10) / t_size / BLK * BLK;
    interleave(fh);
    fill(big, s, 3);
    rc = MPI_File_write_at_all(fh, 0, big, (int)s, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c);
    t_report("after %s", t_class_name(rc));
    EXPECT(rc == MPI_SUCCESS && c == s, "write into freed space: %s, count %d of %lld", t_class_name(rc), c, s);
    rc = MPI_File_read_at_all(fh, 0, back, (int)s, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(back, big, (size_t)s), "read back after ENOSPC: %s", t_class_name(rc));
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync: %s", t_class_name(rc));
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close: %s", t_class_name(rc));
    if (t_rank == 0)
        unlink(p);
    free(big);
    free(back);
    free(ind);
    return t_finish("r_enospc");
}
