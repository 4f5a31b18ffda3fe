/*
 * MPI_Register_datarep: a representation that stores every int as 8
 * big-endian bytes. Its conversion functions run on write and read, its
 * extent function sizes the view (etype, byte offsets, get_type_extent);
 * also through a vector memory type, with MPI_Register_datarep_c on MPI-4,
 * and with MPI_CONVERSION_FN_NULL (the file holds the native bytes). Names
 * already taken fail with MPI_ERR_DUP_DATAREP, unknown ones with
 * MPI_ERR_UNSUPPORTED_DATAREP.
 *
 * No native MPI-IO here implements MPI_Register_datarep (MPICH 4.0 and both
 * of Open MPI 4.1's refuse it), so only the unknown-name case is compared;
 * the rest runs under ferry alone, checks the file bytes itself and removes
 * its files.
 */
#include "mpi/tutil.h"

#include <stdint.h>

enum { N = 16 };
static int calls_write, calls_read;

static int be64_extent(MPI_Datatype t, MPI_Aint *ext, void *state)
{
    (void)state;
    MPI_Count n = 0;
    MPI_Type_size_x(t, &n);
    *ext = t == MPI_INT ? 8 : (MPI_Aint)n;
    return MPI_SUCCESS;
}

/* The ints of `count` items of t starting `position` items into userbuf. */
static int64_t ints_of(MPI_Datatype t, int64_t count, MPI_Offset position, void *userbuf, int **out)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    int size;
    MPI_Pack_size((int)count, t, MPI_COMM_SELF, &size);
    *out = malloc((size_t)size + 4);
    int pos = 0;
    MPI_Pack((char *)userbuf + position * ext, (int)count, t, *out, size, &pos, MPI_COMM_SELF);
    return pos / 4;
}

static int be64_write(void *userbuf, MPI_Datatype t, int64_t count, void *filebuf, MPI_Offset position)
{
    int *v;
    int64_t n = ints_of(t, count, position, userbuf, &v);
    unsigned char *f = filebuf;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = v[i];
        for (int b = 0; b < 8; b++)
            f[8 * i + b] = (unsigned char)((uint64_t)x >> (56 - 8 * b));
    }
    free(v);
    calls_write++;
    return MPI_SUCCESS;
}

static int be64_read(void *userbuf, MPI_Datatype t, int64_t count, void *filebuf, MPI_Offset position)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    int size;
    MPI_Pack_size((int)count, t, MPI_COMM_SELF, &size);
    int *v = malloc((size_t)size + 4);
    const unsigned char *f = filebuf;
    for (int64_t i = 0; i < size / 4; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x = x << 8 | f[8 * i + b];
        v[i] = (int)(int64_t)x;
    }
    int pos = 0;
    MPI_Unpack(v, size, &pos, (char *)userbuf + position * ext, (int)count, t, MPI_COMM_SELF);
    free(v);
    calls_read++;
    return MPI_SUCCESS;
}

static int w_int(void *u, MPI_Datatype t, int c, void *f, MPI_Offset p, void *s)
{
    (void)s;
    return be64_write(u, t, c, f, p);
}
static int r_int(void *u, MPI_Datatype t, int c, void *f, MPI_Offset p, void *s)
{
    (void)s;
    return be64_read(u, t, c, f, p);
}
#if MPI_VERSION >= 4
static int w_cnt(void *u, MPI_Datatype t, MPI_Count c, void *f, MPI_Offset p, void *s)
{
    (void)s;
    return be64_write(u, t, c, f, p);
}
static int r_cnt(void *u, MPI_Datatype t, MPI_Count c, void *f, MPI_Offset p, void *s)
{
    (void)s;
    return be64_read(u, t, c, f, p);
}
#endif

static void sync_all(MPI_File fh)
{
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
}

static void use_rep(const char *rep, const char *file)
{
    char path[600];
    t_path(path, sizeof path, file);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view %s: %s", rep, t_class_name(rc));
    int v[N], w[2 * N];
    for (int i = 0; i < N; i++)
        v[i] = (i - 5) * 1000003 + t_rank;
    MPI_Status st;
    rc = MPI_File_write_at(fh, (MPI_Offset)t_rank * N, v, N, MPI_INT, &st);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    EXPECT(rc == MPI_SUCCESS && n == N, "%s write: %s count %d", rep, t_class_name(rc), n);
    MPI_Offset byte = -1;
    MPI_File_get_byte_offset(fh, 3, &byte);
    MPI_Aint ext = -1;
    MPI_File_get_type_extent(fh, MPI_INT, &ext);
    EXPECT(byte == 24 && ext == 8, "%s: the extent function sizes the view (%lld, %ld)", rep, (long long)byte,
           (long)ext);
    sync_all(fh);
    unsigned char raw[8 * N];
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, (MPI_Offset)t_rank * N * 8, raw, 8 * N, MPI_BYTE, MPI_STATUS_IGNORE);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x = x << 8 | raw[8 * i + b];
        if ((int64_t)x != v[i])
            bad = i;
    }
    EXPECT(bad < 0, "%s: int %d is not 8 big-endian bytes in the file", rep, bad);
    /* read back through a vector memory type: every other int */
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL);
    MPI_Datatype every2;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < 2 * N; i++)
        w[i] = -7;
    rc = MPI_File_read_at(fh, (MPI_Offset)t_rank * N, w, 1, every2, &st);
    int ok = rc == MPI_SUCCESS;
    for (int i = 0; i < N; i++)
        ok &= w[2 * i] == v[i] && w[2 * i + 1] == -7;
    EXPECT(ok, "%s: read back through a vector", rep);
    MPI_Type_free(&every2);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_under_ferry()) {
        int rc = MPI_Register_datarep("ferry-test-be64", r_int, w_int, be64_extent, NULL);
        EXPECT(rc == MPI_SUCCESS, "register: %s", t_class_name(rc));
        use_rep("ferry-test-be64", "datarep_be64.dat");
        EXPECT(calls_write > 0 && calls_read > 0, "conversion functions called (%d, %d)", calls_write, calls_read);
        rc = MPI_Register_datarep("ferry-test-be64", r_int, w_int, be64_extent, NULL);
        EXPECT(t_class(rc) == MPI_ERR_DUP_DATAREP, "a name registered twice: %s", t_class_name(rc));
        rc = MPI_Register_datarep("external32", r_int, w_int, be64_extent, NULL);
        EXPECT(t_class(rc) == MPI_ERR_DUP_DATAREP, "external32 is taken: %s", t_class_name(rc));
#if MPI_VERSION >= 4
        rc = MPI_Register_datarep_c("ferry-test-be64c", r_cnt, w_cnt, be64_extent, NULL);
        EXPECT(rc == MPI_SUCCESS, "register_c: %s", t_class_name(rc));
        use_rep("ferry-test-be64c", "datarep_be64c.dat");
#endif
    }
    char path[600];
    t_path(path, sizeof path, "datarep_unknown.dat");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "ferry-test-never-registered", MPI_INFO_NULL);
    t_report("unknown %s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: %s", t_class_name(rc));
    MPI_File_close(&fh);
    if (t_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return t_finish("t_datarep");
}
