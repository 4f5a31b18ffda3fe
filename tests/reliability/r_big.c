/*
 * Scale and size.
 *   r_big sparse  sparse files far over 4 GiB: every access path (explicit
 *                 offsets, collective and independent, individual and shared
 *                 pointers, a view displaced past 2^40) at offsets just below
 *                 and past 2^32 and past 2^40; bytes checked with plain pread,
 *                 sizes with get_size.
 *   r_big huge    one transfer over 2 GiB by rank 0 (the others take part
 *                 with nothing): through the _c calls where mpi.h has them
 *                 (MPI-4), and through a derived type of 2049 MiB with the
 *                 classic calls everywhere; written collectively, read back
 *                 independently or collectively, checked in memory and with
 *                 plain reads of the file.
 * The strategy comes from FERRY_HINTS.
 */
#include "mpi/tutil.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#define K 4096

static int check_bytes(const char *path, long long off, const unsigned char *want, long long n)
{
    int fd = open(path, O_RDONLY);
    unsigned char *got = malloc((size_t)n);
    long long r = fd >= 0 ? (long long)pread(fd, got, (size_t)n, (off_t)off) : -1;
    int ok = r == n && !memcmp(got, want, (size_t)n);
    free(got);
    if (fd >= 0)
        close(fd);
    return ok;
}

static void fill(unsigned char *b, long long n, long long off)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(off + i, 13);
}

static void sparse(void)
{
    char path[512];
    t_path(path, sizeof path, "r_big_sparse.dat");
    t_fresh(path);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    const long long G4 = 1ll << 32, T1 = 1ll << 40;
    unsigned char w[K], r[K];
    MPI_Status st;
    long long maxend = 0;
    /* collective at explicit offsets: across 2^32, past 2^32, past 2^40 */
    long long offs[3] = {G4 - K / 2 + (long long)t_rank * 3 * K, G4 + 12345 + ((long long)t_rank << 33),
                         T1 + 777 + ((long long)t_rank << 30)};
    for (int i = 0; i < 3; i++) {
        fill(w, K, offs[i]);
        rc = MPI_File_write_at_all(fh, offs[i], w, K, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS, "write_at_all at %lld: %s", offs[i], t_class_name(rc));
        memset(r, 0, K);
        rc = MPI_File_read_at_all(fh, offs[i], r, K, MPI_BYTE, &st);
        int c = -1;
        MPI_Get_count(&st, MPI_BYTE, &c);
        EXPECT(rc == MPI_SUCCESS && c == K && !memcmp(r, w, K), "read_at_all at %lld", offs[i]);
        if (offs[i] + K > maxend)
            maxend = offs[i] + K;
    }
    /* independent at explicit offsets */
    long long ioff = T1 + (1ll << 35) + (long long)t_rank * 100003;
    fill(w, K, ioff);
    rc = MPI_File_write_at(fh, ioff, w, K, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write_at past 2^40");
    if (ioff + K > maxend)
        maxend = ioff + K;
    /* individual pointer: seek past 2^40, write, position */
    long long poff = T1 + (1ll << 36) + (long long)t_rank * K;
    rc = MPI_File_seek(fh, poff, MPI_SEEK_SET);
    fill(w, K, poff);
    rc = MPI_File_write(fh, w, K, MPI_BYTE, &st);
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    EXPECT(rc == MPI_SUCCESS && pos == poff + K, "individual pointer past 2^40: %s pos %lld", t_class_name(rc),
           (long long)pos);
    if (poff + K > maxend)
        maxend = poff + K;
    /* shared pointer past 2^40 */
    long long soff = T1 + (1ll << 37);
    rc = MPI_File_seek_shared(fh, soff, MPI_SEEK_SET);
    EXPECT(rc == MPI_SUCCESS, "seek_shared past 2^40");
    fill(w, K, (long long)t_rank << 20);
    rc = MPI_File_write_ordered(fh, w, K, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write_ordered past 2^40");
    MPI_File_get_position_shared(fh, &pos);
    EXPECT(pos == soff + (long long)t_size * K, "shared position %lld, want %lld", (long long)pos,
           soff + (long long)t_size * K);
    if (soff + (long long)t_size * K > maxend)
        maxend = soff + (long long)t_size * K;
    /* a view displaced past 2^40, ranks interleaved in 512-byte blocks */
    long long vdisp = T1 + (1ll << 38) + 5;
    MPI_Datatype v, ft;
    MPI_Type_vector(K / 512, 512, 512 * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)K * t_size, &ft);
    MPI_Type_commit(&ft);
    rc = MPI_File_set_view(fh, vdisp + (long long)t_rank * 512, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "view past 2^40");
    fill(w, K, ((long long)t_rank << 24) + 99);
    rc = MPI_File_write_at_all(fh, 0, w, K, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS, "write_at_all through a view past 2^40: %s", t_class_name(rc));
    MPI_Offset boff = -1;
    MPI_File_get_byte_offset(fh, 700, &boff);
    EXPECT(boff == vdisp + (long long)t_rank * 512 + 512ll * t_size + 188, "byte offset past 2^40: %lld",
           (long long)boff);
    memset(r, 0, K);
    rc = MPI_File_read_at_all(fh, 0, r, K, MPI_BYTE, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(r, w, K), "read through a view past 2^40");
    if (vdisp + (long long)K * t_size > maxend)
        maxend = vdisp + (long long)K * t_size;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);

    long long all = 0;
    MPI_Allreduce(&maxend, &all, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Offset size = -1;
    rc = MPI_File_get_size(fh, &size);
    EXPECT(rc == MPI_SUCCESS && size == all, "get_size %lld, want %lld", (long long)size, all);
    t_report("sparse size %lld", (long long)size);
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close");
    /* plain reads agree */
    for (int i = 0; i < 3; i++) {
        fill(w, K, offs[i]);
        EXPECT(check_bytes(path, offs[i], w, K), "bytes at %lld", offs[i]);
    }
    fill(w, K, ioff);
    EXPECT(check_bytes(path, ioff, w, K), "bytes at %lld", ioff);
    fill(w, K, poff);
    EXPECT(check_bytes(path, poff, w, K), "bytes at %lld", poff);
    fill(w, K, (long long)t_rank << 20);
    EXPECT(check_bytes(path, soff + (long long)t_rank * K, w, K), "ordered bytes past 2^40");
    struct stat sb;
    if (t_rank == 0 && stat(path, &sb) == 0)
        t_report("allocated %lld KiB of %lld GiB", (long long)sb.st_blocks / 2, (long long)(all >> 30));
    MPI_Barrier(MPI_COMM_WORLD);
    /* set_size far out, then back */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    rc = MPI_File_set_size(fh, 5ll << 30);
    MPI_File_get_size(fh, &size);
    EXPECT(rc == MPI_SUCCESS && size == 5ll << 30, "set_size 5 GiB: %lld", (long long)size);
    MPI_File_close(&fh);
    if (t_rank == 0)
        unlink(path);
}

/* >2 GiB in one call by rank 0. One buffer (first touch of 2 GiB is slow on
 * small machines): the pattern is recomputed to check what comes back. */
static uint64_t pat_at(long long i) { return (uint64_t)i * 0x9E3779B97F4A7C15ull; }
static void pat_fill(unsigned char *b, long long n)
{
    for (long long i = 0; i < n; i += 8) {
        uint64_t x = pat_at(i);
        memcpy(b + i, &x, 8);
    }
}
static long long pat_bad(const unsigned char *b, long long n, long long base)
{
    long long bad = 0;
    for (long long i = 0; i < n; i += 8) {
        uint64_t x;
        memcpy(&x, b + i, 8);
        bad += x != pat_at(base + i);
    }
    return bad;
}

static void huge(void)
{
    const long long N = (1ll << 31) + (1ll << 20); /* 2049 MiB, a multiple of 8 */
    /* R_BIGDIR (a tmpfs) when it has room: the disk of a small machine
     * writes 2 GiB in half a minute */
    char path[512];
    const char *bd = getenv("R_BIGDIR");
    struct statvfs vfs;
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bd && statvfs(bd, &vfs) == 0 && (long long)vfs.f_bavail * (long long)vfs.f_frsize > 3 * N)
        snprintf(path, sizeof path, "%s/ferry_r_big_%d.dat", bd, pid);
    else
        t_path(path, sizeof path, "r_big_huge.dat");
    t_fresh(path);
    unsigned char *w = NULL;
    if (t_rank == 0) {
        w = malloc((size_t)N);
        EXPECT(w != NULL, "2049 MiB of memory");
        if (!w)
            MPI_Abort(MPI_COMM_WORLD, 2);
        pat_fill(w, N);
    }
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    MPI_Status st;
    MPI_Count got = 0;
    const long long at = 12345; /* unaligned on purpose */
    /* a derived type of 2049 MiB, count 1: works with the classic calls */
    MPI_Datatype mib, big;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_contiguous(2049, mib, &big);
    MPI_Type_commit(&big);
    int n = t_rank == 0 ? 1 : 0;
    rc = MPI_File_write_at_all(fh, at, w, n, big, &st);
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    EXPECT(rc == MPI_SUCCESS && got == (t_rank == 0 ? N : 0), "write_at_all of a 2049 MiB type: %s, %lld bytes",
           t_class_name(rc), (long long)got);
    if (t_rank == 0) {
        memset(w, 0, (size_t)N);
        rc = MPI_File_read_at(fh, at, w, 1, big, &st);
        MPI_Get_elements_x(&st, MPI_BYTE, &got);
        EXPECT(rc == MPI_SUCCESS && got == N && pat_bad(w, N, 0) == 0, "read_at of a 2049 MiB type: %s %lld",
               t_class_name(rc), (long long)got);
    }
    t_report("type 2049MiB done");
#if MPI_VERSION >= 4
    /* the large-count calls: count > INT_MAX of MPI_BYTE */
    MPI_Count cn = t_rank == 0 ? N : 0, cc = -1;
    if (t_rank == 0)
        pat_fill(w, N);
    rc = MPI_File_write_at_all_c(fh, N + at, w, cn, MPI_BYTE, &st);
    MPI_Get_count_c(&st, MPI_BYTE, &cc);
    EXPECT(rc == MPI_SUCCESS && cc == cn, "write_at_all_c of %lld bytes: %s count %lld", (long long)cn,
           t_class_name(rc), (long long)cc);
    if (t_rank == 0)
        memset(w, 0, (size_t)N);
    rc = MPI_File_read_at_all_c(fh, N + at, w, cn, MPI_BYTE, &st);
    MPI_Get_count_c(&st, MPI_BYTE, &cc);
    EXPECT(rc == MPI_SUCCESS && cc == cn && (t_rank || pat_bad(w, N, 0) == 0), "read_at_all_c: %s %lld",
           t_class_name(rc), (long long)cc);
    t_report("large-count calls done");
    const long long last = N + at;
#else
    if (t_rank == 0)
        printf("r_big: mpi.h is MPI-%d: no _c calls, the derived type covers > 2 GiB\n", MPI_VERSION);
    const long long last = at;
#endif
    MPI_Offset size = -1;
    MPI_File_get_size(fh, &size);
    MPI_File_close(&fh);
    if (t_rank == 0) {
        /* the last copy, read with plain reads in 64 MiB pieces */
        EXPECT(size == last + N, "file size %lld, want %lld", (long long)size, last + N);
        int fd = open(path, O_RDONLY);
        long long bad = 0;
        for (long long o = 0; o < N && fd >= 0;) {
            long long want = N - o < (64ll << 20) ? N - o : (64ll << 20);
            ssize_t g = pread(fd, w, (size_t)want, (off_t)(last + o));
            if (g <= 0 || g % 8) {
                bad++;
                break;
            }
            bad += pat_bad(w, g, o);
            o += g;
        }
        if (fd >= 0)
            close(fd);
        EXPECT(bad == 0, "the last >2 GiB copy differs on disk");
        unlink(path);
    }
    MPI_Type_free(&big);
    MPI_Type_free(&mib);
    free(w);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "sparse";
    if (!strcmp(mode, "huge"))
        huge();
    else
        sparse();
    return t_finish("r_big");
}
