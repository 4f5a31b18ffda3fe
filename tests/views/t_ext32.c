/*
 * external32: every rank writes its values through an external32 view and
 * the file must hold them big-endian with the standard's sizes (checked
 * byte by byte here, and against the native MPI-IO by the runner); reading
 * back through the view restores them. Covers integers of every size and
 * signedness, float, double, MPI_LONG (4 bytes in external32), a struct
 * with gaps in memory (HACC's particle), a vector filetype, the file pointer
 * in file-side etypes, a short read at end of file, get_type_extent, and
 * long double (an IEEE quad in the file).
 */
#include "mpi/tutil.h"

#include <stddef.h>
#include <stdint.h>

enum { N = 64 };

static MPI_File open_ext(const char *name, MPI_Comm comm)
{
    char path[600];
    t_path(path, sizeof path, name);
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s", name);
    return fh;
}

static void sync_all(MPI_File fh)
{
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
}

/* Reads raw file bytes through a native byte view. */
static void raw(MPI_File fh, MPI_Offset off, void *buf, int n)
{
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int64_t be(const unsigned char *p, int n, int is_signed)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    if (is_signed && n < 8 && (p[0] & 0x80))
        v |= ~0ull << (8 * n);
    return (int64_t)v;
}

/* One predefined type: write N values on a byte view at this rank's slot,
 * check the raw bytes, read them back. */
#define SCALAR(NAME, CT, MT, EXT, SIGNED)                                                             \
    static void NAME(MPI_File fh, MPI_Offset base)                                                   \
    {                                                                                                \
        CT v[N], w[N];                                                                               \
        for (int i = 0; i < N; i++)                                                                  \
            v[i] = (CT)((i - N / 2) * 977 * (t_rank + 1) + i);                                       \
        MPI_Offset at = base + (MPI_Offset)t_rank * N * EXT;                                         \
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);                   \
        MPI_Status st;                                                                               \
        int rc = MPI_File_write_at(fh, at, v, N, MT, &st), n = -1;                                   \
        MPI_Get_count(&st, MT, &n);                                                                  \
        t_report(#NAME " write %s count=%d", t_class_name(rc), n);                                   \
        sync_all(fh);                                                                                \
        unsigned char b[N * EXT];                                                                    \
        raw(fh, at, b, N * EXT);                                                                     \
        int bad = -1;                                                                                \
        for (int i = 0; i < N && bad < 0; i++)                                                       \
            if (be(b + i * EXT, EXT, SIGNED) != (int64_t)v[i])                                       \
                bad = i;                                                                             \
        EXPECT(bad < 0, #NAME ": element %d is not big-endian %d bytes in the file", bad, EXT);     \
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);                   \
        memset(w, 0, sizeof w);                                                                      \
        rc = MPI_File_read_at(fh, at, w, N, MT, &st);                                                \
        MPI_Get_count(&st, MT, &n);                                                                  \
        EXPECT(rc == MPI_SUCCESS && n == N && !memcmp(v, w, sizeof v), #NAME " round trip");         \
        t_report(#NAME " read %s count=%d", t_class_name(rc), n);                                    \
    }

SCALAR(int8, int8_t, MPI_INT8_T, 1, 1)
SCALAR(uint8, uint8_t, MPI_UINT8_T, 1, 0)
SCALAR(short_, short, MPI_SHORT, 2, 1)
SCALAR(ushort_, unsigned short, MPI_UNSIGNED_SHORT, 2, 0)
SCALAR(int_, int, MPI_INT, 4, 1)
SCALAR(uint_, unsigned, MPI_UNSIGNED, 4, 0)
SCALAR(long_, long, MPI_LONG, 4, 1)
SCALAR(int64, int64_t, MPI_INT64_T, 8, 1)
SCALAR(llong, long long, MPI_LONG_LONG, 8, 1)
SCALAR(uint64, uint64_t, MPI_UINT64_T, 8, 0)

static void floats(MPI_File fh, MPI_Offset base)
{
    float f[N];
    double d[N];
    for (int i = 0; i < N; i++) {
        f[i] = (float)(i * 1.25 - 7.5 + t_rank);
        d[i] = i * -3.0625 + 1e10 * t_rank;
    }
    MPI_Offset at = base + (MPI_Offset)t_rank * N * 12;
    MPI_File_set_view(fh, at, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    int rc = MPI_File_write(fh, f, N, MPI_FLOAT, MPI_STATUS_IGNORE);
    int rc2 = MPI_File_write(fh, d, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    t_report("floats write %s %s pos=%lld", t_class_name(rc), t_class_name(rc2), (long long)pos);
    sync_all(fh);
    unsigned char b[N * 12];
    raw(fh, at, b, N * 12);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++) {
        uint32_t u;
        uint64_t v;
        memcpy(&u, &f[i], 4);
        memcpy(&v, &d[i], 8);
        if ((uint64_t)be(b + 4 * i, 4, 0) != u || (uint64_t)be(b + 4 * N + 8 * i, 8, 0) != v)
            bad = i;
    }
    EXPECT(bad < 0, "floats: element %d is not big-endian IEEE in the file", bad);
    float f2[N];
    double d2[N];
    MPI_File_set_view(fh, at, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    MPI_File_read(fh, f2, N, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_File_read(fh, d2, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    EXPECT(!memcmp(f, f2, sizeof f) && !memcmp(d, d2, sizeof d), "floats round trip");
}

/* HACC-IO records with their C padding in memory: 38 bytes each in the file. */
typedef struct particle {
    float x[7];
    int64_t pid;
    uint16_t mask;
} particle;

static void particles(MPI_File fh, MPI_Offset base)
{
    int bl[3] = {7, 1, 1};
    MPI_Aint d[3] = {offsetof(particle, x), offsetof(particle, pid), offsetof(particle, mask)};
    MPI_Datatype ts[3] = {MPI_FLOAT, MPI_INT64_T, MPI_UINT16_T}, s, t;
    MPI_Type_create_struct(3, bl, d, ts, &s);
    MPI_Type_create_resized(s, 0, sizeof(particle), &t);
    MPI_Type_commit(&t);
    particle p[N], q[N];
    memset(p, 0xcc, sizeof p);
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 7; k++)
            p[i].x[k] = (float)(i * 7 + k + 1000 * t_rank);
        p[i].pid = ((int64_t)t_rank << 33) - i;
        p[i].mask = (uint16_t)(0xa000 + i);
    }
    MPI_Offset at = base + (MPI_Offset)t_rank * N * 38;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    MPI_Status st;
    int rc = MPI_File_write_at(fh, at, p, N, t, &st), n = -1;
    MPI_Get_count(&st, t, &n);
    t_report("particles write %s count=%d", t_class_name(rc), n);
    sync_all(fh);
    unsigned char b[N * 38];
    raw(fh, at, b, N * 38);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++) {
        const unsigned char *r = b + 38 * i;
        uint32_t u;
        memcpy(&u, &p[i].x[3], 4);
        if ((uint64_t)be(r + 12, 4, 0) != u || be(r + 28, 8, 1) != p[i].pid || be(r + 36, 2, 0) != p[i].mask)
            bad = i;
    }
    EXPECT(bad < 0, "particles: record %d is not packed big-endian", bad);
    memset(q, 0xcc, sizeof q);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    rc = MPI_File_read_at(fh, at, q, N, t, &st);
    EXPECT(rc == MPI_SUCCESS && !memcmp(p, q, sizeof p), "particles round trip (padding untouched)");
    MPI_Type_free(&s);
    MPI_Type_free(&t);
}

/* A vector filetype of ints, etype int: ranks interleave element by element. */
static void vector_view(MPI_File fh, MPI_Offset base)
{
    MPI_Datatype v, ft;
    MPI_Type_vector(N, 1, t_size, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)N * t_size * 4, &ft);
    MPI_Type_commit(&ft);
    int a[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = t_rank * 100000 + i * 3 - 50;
    int rc = MPI_File_set_view(fh, base + 4 * t_rank, MPI_INT, ft, "external32", MPI_INFO_NULL);
    rc = MPI_File_write(fh, a, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset pos = -1, byte = -1;
    MPI_File_get_position(fh, &pos);
    MPI_File_get_byte_offset(fh, pos, &byte);
    t_report("vector write %s pos=%lld byte=%lld", t_class_name(rc), (long long)pos, (long long)byte);
    sync_all(fh);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read(fh, c, N, MPI_INT, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS && !memcmp(a, c, sizeof a), "vector view round trip");
    /* a short read at end of file counts native bytes of whole elements */
    MPI_File_set_view(fh, base, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    if (t_rank == t_size - 1) {
        MPI_Offset size;
        MPI_File_get_size(fh, &size);
        MPI_Status st;
        short s[16];
        rc = MPI_File_read_at(fh, size - base - 6, s, 16, MPI_SHORT, &st);
        int n = -1;
        MPI_Get_count(&st, MPI_SHORT, &n);
        EXPECT(rc == MPI_SUCCESS && n == 3, "short read of shorts at end of file: %d", n);
        t_report("eof_read %s count=%d", t_class_name(rc), n);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&ft);
}

/* A portable filetype scales with external32 sizes (MPI-3.1 §13.5.1): a
 * vector of MPI_LONG strides 8 file bytes, not 16. */
static void scaled(MPI_File fh, MPI_Offset base)
{
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 2, MPI_LONG, &v);
    MPI_Type_commit(&v);
    long a[4] = {1, -2, 3, -4};
    MPI_File_set_view(fh, base, MPI_LONG, v, "external32", MPI_INFO_NULL);
    int rc = MPI_File_write_at(fh, 0, a, 4, MPI_LONG, MPI_STATUS_IGNORE);
    MPI_Offset byte = -1;
    MPI_File_get_byte_offset(fh, 2, &byte);
    MPI_Aint ext = -1;
    MPI_File_get_type_extent(fh, v, &ext);
    EXPECT(rc == MPI_SUCCESS && byte == base + 16 && ext == 28, "scaled vector: byte %lld extent %ld",
           (long long)byte, (long)ext);
    unsigned char b[28];
    raw(fh, base, b, 28);
    EXPECT(be(b, 4, 1) == 1 && be(b + 8, 4, 1) == -2 && be(b + 24, 4, 1) == -4, "scaled vector bytes");
    MPI_Type_free(&v);
}

static void extents(MPI_File fh)
{
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    struct {
        MPI_Datatype t;
        const char *n;
    } ts[] = {{MPI_INT, "int"}, {MPI_DOUBLE, "double"}, {MPI_SHORT, "short"}, {MPI_INT64_T, "int64"},
              {MPI_LONG, "long"}, {MPI_WCHAR, "wchar"}};
    for (unsigned i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        MPI_Aint e = -1;
        int rc = MPI_File_get_type_extent(fh, ts[i].t, &e);
        t_report("type_extent_%s %s %ld", ts[i].n, t_class_name(rc), (long)e);
    }
    /* MPI-3.1 Table 13.2: 4 and 2 bytes, whatever the native sizes */
    MPI_Aint e = -1;
    MPI_File_get_type_extent(fh, MPI_LONG, &e);
    EXPECT_STD(e == 4, "external32 extent of MPI_LONG: %ld", (long)e);
}

/* long double: a binary128 in the file (1.5 -> 3fff 8000 0...). */
static void long_double(void)
{
    MPI_File fh = open_ext("ext32_ldouble.dat", MPI_COMM_WORLD);
    long double v[4] = {1.5L, -2.0L, 0.0L, 1e300L * t_rank}, w[4];
    MPI_Offset at = (MPI_Offset)t_rank * 64;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    int rc = MPI_File_write_at(fh, at, v, 4, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE);
    t_report("ldouble write %s", t_class_name(rc));
    sync_all(fh);
    unsigned char b[64];
    raw(fh, at, b, 64);
    static const unsigned char q15[4] = {0x3f, 0xff, 0x80, 0x00}, m2[4] = {0xc0, 0x00, 0x00, 0x00};
    /* Open MPI 4.1 writes the native x87 bytes */
    EXPECT_STD(!memcmp(b, q15, 4) && !memcmp(b + 16, m2, 4), "long double is not an IEEE quad in the file");
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    memset(w, 0, sizeof w);
    rc = MPI_File_read_at(fh, at, w, 4, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE);
    int ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= v[i] == w[i];
    EXPECT_STD(rc == MPI_SUCCESS && ok, "long double round trip");
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_File fh = open_ext("ext32.dat", MPI_COMM_WORLD);
    MPI_Offset base = 0, slot = (MPI_Offset)t_size * N * 8;
    int8(fh, base), base += slot;
    uint8(fh, base), base += slot;
    short_(fh, base), base += slot;
    ushort_(fh, base), base += slot;
    int_(fh, base), base += slot;
    uint_(fh, base), base += slot;
    int64(fh, base), base += slot;
    llong(fh, base), base += slot;
    uint64(fh, base), base += slot;
    floats(fh, base), base += slot * 2;
    vector_view(fh, base);
    extents(fh);
    MPI_File_close(&fh);
    /* The natives get these wrong: MPI_LONG (Open MPI moves half the count,
     * MPICH's ROMIO misplaces it) and structs (both ROMIOs crash packing
     * one), so only ferry runs them, checking the bytes itself. */
    if (t_under_ferry()) {
        fh = open_ext("ext32_long.dat", MPI_COMM_SELF);
        long_(fh, 0);
        particles(fh, (MPI_Offset)t_size * N * 8);
        scaled(fh, (MPI_Offset)t_size * N * 48 + t_rank * 64);
        MPI_File_close(&fh);
    }
    long_double();
    return t_finish("t_ext32");
}
