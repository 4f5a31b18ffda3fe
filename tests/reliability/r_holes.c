/*
 * Nothing but the caller's bytes reaches a file. Every rank writes through a
 * file view with holes, from a memory type with gaps whose bytes are a
 * sentinel (or, with R_UNINIT=1 under valgrind, left uninitialised), by every
 * kind of write call, into a fresh file and into a file with old content that
 * ends half way. Afterwards:
 *   - data bytes are the caller's;
 *   - holes read zero in a fresh file and keep the old content in an old one
 *     (zero past the old end);
 *   - the file ends at the last data byte;
 *   - no sentinel byte (memory gap) appears anywhere.
 * The strategy comes from FERRY_HINTS (the runner sets each in turn).
 */
#include "mpi/tutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#define SENT 0xEE
#define MGAP 8   /* memory: MDATA data bytes then MGAP gap bytes */
#define MDATA 24

static int uninit;

static unsigned char data_byte(int call, int rank, long long k)
{
    unsigned char c = t_byte(((long long)rank << 28) + ((long long)call << 24) + k, 11);
    return c == SENT ? 0x11 : c;
}
static unsigned char old_byte(long long off)
{
    unsigned char c = t_byte(off, 21);
    return c == SENT || c == 0 ? 0x22 : c;
}

/* A file pattern: each rank owns `len` bytes at rank*len... of every stripe of
 * `stride` bytes per rank (stride*P per stripe), n stripes. */
typedef struct pat {
    const char *name;
    int n;
    int len, stride; /* len < stride: the rest of each rank's stride is a hole */
} pat;


/* Memory buffer: n data bytes spread over MDATA-of-(MDATA+MGAP) blocks. */
static unsigned char *make_mem(int call, long long n, MPI_Datatype *mt, int *count)
{
    long long blocks = (n + MDATA - 1) / MDATA;
    unsigned char *m = malloc((size_t)(blocks * (MDATA + MGAP)));
    if (!uninit)
        memset(m, SENT, (size_t)(blocks * (MDATA + MGAP)));
    for (long long k = 0; k < n; k++)
        m[(k / MDATA) * (MDATA + MGAP) + k % MDATA] = data_byte(call, t_rank, k);
    /* one element = one memory block, so count must divide into MDATA pieces */
    MPI_Type_vector(1, MDATA, MDATA + MGAP, MPI_BYTE, mt);
    MPI_Datatype r;
    MPI_Type_create_resized(*mt, 0, MDATA + MGAP, &r);
    MPI_Type_free(mt);
    *mt = r;
    MPI_Type_commit(mt);
    *count = (int)(n / MDATA);
    return m;
}

enum { CALL_ALL, CALL_AT, CALL_IALL, CALL_SPLIT, CALL_INDIVIDUAL, NCALLS };
static const char *call_name[NCALLS] = {"write_at_all", "write_at", "iwrite_at_all", "write_all_begin",
                                        "write"};

static void one(const pat *p, int call, int old, const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/holes_%s_%s_%s.dat", dir, p->name, call_name[call], old ? "old" : "fresh");
    t_fresh(path);
    long long stripe = (long long)p->stride * t_size;
    long long end = (long long)(p->n - 1) * stripe + (long long)(t_size - 1) * p->stride + p->len;
    long long oldlen = old ? end / 2 + 7 : 0;
    if (old && t_rank == 0) {
        unsigned char *o = malloc((size_t)oldlen);
        for (long long i = 0; i < oldlen; i++)
            o[i] = old_byte(i);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        EXPECT(fd >= 0 && write(fd, o, (size_t)oldlen) == oldlen, "old content");
        close(fd);
        free(o);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", path);
    MPI_Datatype v, ft;
    MPI_Type_vector(p->n, p->len, (int)stripe, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(stripe * p->n), &ft);
    MPI_Type_commit(&ft);
    rc = MPI_File_set_view(fh, (MPI_Offset)t_rank * p->stride, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view");
    long long n = (long long)p->n * p->len;
    MPI_Datatype mt;
    int count;
    unsigned char *m = make_mem(call, n, &mt, &count);
    MPI_Status st;
    MPI_Request rq;
    switch (call) {
    case CALL_ALL: rc = MPI_File_write_at_all(fh, 0, m, count, mt, &st); break;
    case CALL_AT: rc = MPI_File_write_at(fh, 0, m, count, mt, &st); break;
    case CALL_IALL:
        rc = MPI_File_iwrite_at_all(fh, 0, m, count, mt, &rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, &st);
        break;
    case CALL_SPLIT:
        rc = MPI_File_write_all_begin(fh, m, count, mt);
        if (rc == MPI_SUCCESS)
            rc = MPI_File_write_all_end(fh, m, &st);
        break;
    default: rc = MPI_File_write(fh, m, count, mt, &st); break;
    }
    int c = -1;
    MPI_Get_count(&st, mt, &c);
    EXPECT(rc == MPI_SUCCESS && c == count, "%s %s: %s count %d of %d", p->name, call_name[call],
           t_class_name(rc), c, count);
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS, "close");
    MPI_Barrier(MPI_COMM_WORLD);

    if (t_rank == 0) {
        struct stat sb;
        long long size = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
        long long want_size = end > oldlen ? end : oldlen;
        EXPECT(size == want_size, "%s %s %s: file size %lld, want %lld", p->name, call_name[call],
               old ? "old" : "fresh", size, want_size);
        unsigned char *all = calloc((size_t)want_size + 1, 1);
        int fd = open(path, O_RDONLY);
        long long got = fd >= 0 ? (long long)pread(fd, all, (size_t)want_size, 0) : -1;
        if (fd >= 0)
            close(fd);
        long long bad_data = 0, bad_hole = 0, sentinel = 0, first = -1;
        for (long long i = 0; i < got; i++) {
            long long s = i / stripe, in = i % stripe;
            int owner = (int)(in / p->stride);
            long long w = in % p->stride;
            unsigned char want;
            int is_data = w < p->len;
            if (is_data)
                want = data_byte(call, owner, s * p->len + w);
            else
                want = i < oldlen ? old_byte(i) : 0;
            if (all[i] == SENT)
                sentinel++;
            if (all[i] != want) {
                if (first < 0)
                    first = i;
                if (is_data)
                    bad_data++;
                else
                    bad_hole++;
            }
        }
        EXPECT(bad_data == 0 && bad_hole == 0 && sentinel == 0,
               "%s %s %s: %lld wrong data bytes, %lld wrong hole bytes, %lld memory-gap bytes (first wrong at %lld)",
               p->name, call_name[call], old ? "old" : "fresh", bad_data, bad_hole, sentinel, first);
        t_report("%s %s %s size=%lld bad=%lld", p->name, call_name[call], old ? "old" : "fresh", size,
                 bad_data + bad_hole);
        free(all);
    }
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);
    free(m);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    uninit = getenv("R_UNINIT") && atoi(getenv("R_UNINIT"));
    char dir[512];
    t_path(dir, sizeof dir, ".");
    dir[strlen(dir) - 2] = 0;
    /* fine holes (sieving and read-modify-write territory), and pieces far apart */
    /* R_FINE_STRIPES: fewer fine stripes where every write is a network round trip (tests/pfs) */
    int fine = getenv("R_FINE_STRIPES") ? atoi(getenv("R_FINE_STRIPES")) : 2000;
    const pat pats[] = {{"fine", fine > 0 ? fine : 2000, 48, 64}, {"sparse", 40, 24, 40000}};
    for (unsigned i = 0; i < sizeof pats / sizeof *pats; i++)
        for (int call = 0; call < NCALLS; call++)
            for (int old = 0; old < 2; old++)
                one(&pats[i], call, old, dir);
    return t_finish("r_holes");
}
