/*
 * Read-after-write through aggregators, repeated: every rank writes its
 * bytes with a collective call and reads them straight back, collectively
 * and independently (MPI: a process sees its own writes on its file handle,
 * whichever aggregator moved them), then, after sync-barrier-sync, reads its
 * neighbour's bytes independently. Each round extends the file, and the
 * ranks' pieces share file pages with the pieces of ranks on other (virtual)
 * nodes, moved by a different amount per rank on odd rounds and by one
 * common shift on even ones (the repeated-call path). On a file system whose
 * client caches are not coherent between processes (GlusterFS's
 * write-behind) a read by one aggregator of bytes another aggregator wrote
 * came back stale here (docs/filesystems.md).
 *
 *   t_coll_reread [SECONDS]    (default 3; rank 0's clock decides)
 */
#include "tutil.h"

#include <stdlib.h>

enum { L = 3000 };

static void fill(unsigned char *b, long long n, long long base, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(base + i, salt);
}

static long long first_bad(const unsigned char *a, const unsigned char *b, long long n)
{
    for (long long i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return -1;
}

/* where rank r's piece of round k starts */
static long long piece_at(long long base, int r, int k)
{
    if (k % 2)
        return base + (long long)r * 2 * L + (r % 2) * 100;
    return base + (long long)r * 2 * L;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    char p[512];
    t_path(p, sizeof p, "coll_reread.dat");
    t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    unsigned char *b = malloc(L), *r = malloc(L), *nb = malloc(L);
    const long long stride = (long long)t_size * 2 * L + 4096;
    double t0 = MPI_Wtime();
    int k = 0, bad_coll = 0, bad_ind = 0, bad_sync = 0, go = 1;
    while (go && rc == MPI_SUCCESS) {
        long long base = (long long)k * stride, off = piece_at(base, t_rank, k);
        fill(b, L, off, k);
        MPI_Status st;
        rc = MPI_File_write_at_all(fh, off, b, L, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS, "round %d: write_at_all %s", k, t_class_name(rc));
        memset(r, 0xee, L);
        int rr = MPI_File_read_at_all(fh, off, r, L, MPI_BYTE, &st);
        long long at = first_bad(b, r, L);
        if (rr != MPI_SUCCESS || at >= 0) {
            bad_coll++;
            EXPECT(0, "round %d: read_at_all of my own bytes at %lld: %s, first bad byte %lld (0x%02x, want 0x%02x)",
                   k, off, t_class_name(rr), at, at >= 0 ? r[at] : 0, at >= 0 ? b[at] : 0);
        }
        memset(r, 0xee, L);
        rr = MPI_File_read_at(fh, off, r, L, MPI_BYTE, &st);
        at = first_bad(b, r, L);
        if (rr != MPI_SUCCESS || at >= 0) {
            bad_ind++;
            EXPECT(0, "round %d: read_at of my own bytes after the collective write at %lld: %s, first bad byte %lld",
                   k, off, t_class_name(rr), at);
        }
        /* sync-barrier-sync: then another rank's bytes must be visible */
        if (k % 4 == 3) {
            int nr = (t_rank + 1) % t_size;
            long long noff = piece_at(base, nr, k);
            fill(b, L, noff, k);
            MPI_File_sync(fh);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_File_sync(fh);
            memset(nb, 0xee, L);
            rr = MPI_File_read_at(fh, noff, nb, L, MPI_BYTE, &st);
            at = first_bad(b, nb, L);
            if (rr != MPI_SUCCESS || at >= 0) {
                bad_sync++;
                EXPECT(0, "round %d: read_at of rank %d's bytes after sync-barrier-sync: %s, first bad byte %lld", k,
                       nr, t_class_name(rr), at);
            }
        }
        k++;
        go = MPI_Wtime() - t0 < seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    t_report("%d rounds; bad reads: collective %d, independent own %d, after sync %d", k, bad_coll, bad_ind,
             bad_sync);
    MPI_File_close(&fh);
    free(b);
    free(r);
    free(nb);
    return t_finish("t_coll_reread");
}
