/*
 * The views real applications set, each checked against what it must put in
 * the file and compared byte for byte with the native MPI-IO:
 *   tile    Tile-IO: 2-D subarray tiles of 8-byte elements, 1 KiB tile rows
 *   bt      BT-IO: 3-D subarray cells of 5 doubles
 *   darray  block and cyclic darray distributions
 *   hacc    HACC-IO particle records (7 floats, int64, uint16) with gaps, in
 *           memory and in the file
 *   ior     IOR's file-view mode: zero-extent resized memory type, seeks in
 *           etype units over a subarray filetype; and its strided mode
 *   hdf5    HDF5: set_view(addr, BYTE, hyperslab type) - transfer - reset to
 *           a byte view, collective and independent, and point selections
 *   pnetcdf PnetCDF: hindexed filetype over record variables, collective on
 *           the world handle and independent on a COMM_SELF handle
 *   t_apps -m ind|coll  (independent or collective transfers where the
 *                        application lets either be used)
 */
#include "mpi/tutil.h"

#include <stddef.h>
#include <stdint.h>

static int collective;

static MPI_File open_file(const char *name, MPI_Comm comm)
{
    char path[600];
    t_path(path, sizeof path, name);
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s: %s", name, t_class_name(rc));
    return fh;
}

static void sync_all(MPI_File fh)
{
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
}

static int xfer(MPI_File fh, int write, MPI_Offset off, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    if (write)
        return collective ? MPI_File_write_at_all(fh, off, buf, n, t, st) : MPI_File_write_at(fh, off, buf, n, t, st);
    return collective ? MPI_File_read_at_all(fh, off, buf, n, t, st) : MPI_File_read_at(fh, off, buf, n, t, st);
}

static unsigned long long digest(const void *p, size_t n)
{
    const unsigned char *b = p;
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Whole-file check on rank 0: byte i must be expect(i). */
static void check_file(MPI_File fh, const char *what, int64_t size, unsigned char (*expect)(int64_t))
{
    sync_all(fh);
    if (t_rank == 0) {
        unsigned char *b = malloc((size_t)size);
        MPI_Status st;
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        int rc = MPI_File_read_at(fh, 0, b, (int)size, MPI_BYTE, &st);
        int64_t bad = -1;
        for (int64_t i = 0; i < size && bad < 0; i++)
            if (b[i] != expect(i))
                bad = i;
        EXPECT(rc == MPI_SUCCESS && bad < 0, "%s: file byte %lld is wrong", what, (long long)bad);
        t_report("%s file digest=%llx", what, digest(b, (size_t)size));
        free(b);
    } else {
        /* the same collective calls on every rank */
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    }
}

/* ---- Tile-IO: NX x NY tiles of TX x TY doubles ---------------------------- */
enum { TX = 128, TY = 16 }; /* 1 KiB tile rows */
static int tile_px, tile_py;
static unsigned char tile_expect(int64_t i)
{
    /* element (gy, gx) holds gy * 1e4 + gx, as a double */
    int64_t e = i / 8, gx = e % (tile_px * TX), gy = e / (tile_px * TX);
    double v = (double)(gy * 10000 + gx);
    return ((unsigned char *)&v)[i % 8];
}

static void tile_io(void)
{
    int dims[2] = {0, 0};
    MPI_Dims_create(t_size, 2, dims);
    tile_py = dims[0];
    tile_px = dims[1];
    int ry = t_rank / tile_px, rx = t_rank % tile_px;
    int sizes[2] = {tile_py * TY, tile_px * TX}, sub[2] = {TY, TX}, st[2] = {ry * TY, rx * TX};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    double *tile = malloc(sizeof(double) * TX * TY);
    for (int y = 0; y < TY; y++)
        for (int x = 0; x < TX; x++)
            tile[y * TX + x] = (double)((ry * TY + y) * 10000 + rx * TX + x);
    MPI_File fh = open_file(collective ? "tile_coll.dat" : "tile_ind.dat", MPI_COMM_WORLD);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Status s;
    int rc = collective ? MPI_File_write_all(fh, tile, TX * TY, MPI_DOUBLE, &s)
                        : MPI_File_write(fh, tile, TX * TY, MPI_DOUBLE, &s);
    int n = -1;
    MPI_Get_count(&s, MPI_DOUBLE, &n);
    t_report("tile write %s count=%d", t_class_name(rc), n);
    sync_all(fh);
    /* read the tile back as the transpose neighbour would: through the view */
    double *back = calloc(TX * TY, sizeof(double));
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = collective ? MPI_File_read_all(fh, back, TX * TY, MPI_DOUBLE, &s)
                    : MPI_File_read(fh, back, TX * TY, MPI_DOUBLE, &s);
    EXPECT(rc == MPI_SUCCESS && !memcmp(back, tile, sizeof(double) * TX * TY), "tile read back");
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    t_report("tile read %s pos=%lld", t_class_name(rc), (long long)pos);
    check_file(fh, "tile", (int64_t)sizes[0] * sizes[1] * 8, tile_expect);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(tile);
    free(back);
}

/* ---- BT-IO: a 3-D grid of 5-double cells, one block per rank ---------------- */
enum { BN = 6 }; /* cells per rank per dimension */
static int bt_dims[3];
static unsigned char bt_expect(int64_t i)
{
    int64_t cell = i / 40, comp = (i % 40) / 8;
    double v = (double)(cell * 5 + comp);
    return ((unsigned char *)&v)[i % 8];
}

static void bt_io(void)
{
    bt_dims[0] = bt_dims[1] = bt_dims[2] = 0;
    MPI_Dims_create(t_size, 3, bt_dims);
    int coords[3] = {t_rank / (bt_dims[1] * bt_dims[2]), (t_rank / bt_dims[2]) % bt_dims[1], t_rank % bt_dims[2]};
    MPI_Datatype cell, ft;
    MPI_Type_contiguous(5, MPI_DOUBLE, &cell);
    MPI_Type_commit(&cell);
    int sizes[3], sub[3] = {BN, BN, BN}, st[3];
    for (int d = 0; d < 3; d++) {
        sizes[d] = bt_dims[d] * BN;
        st[d] = coords[d] * BN;
    }
    MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, cell, &ft);
    MPI_Type_commit(&ft);
    /* memory: the block with a ghost layer of 1 on every side, as BT keeps it */
    int gs[3] = {BN + 2, BN + 2, BN + 2}, gsub[3] = {BN, BN, BN}, gst[3] = {1, 1, 1};
    MPI_Datatype mt;
    MPI_Type_create_subarray(3, gs, gsub, gst, MPI_ORDER_C, cell, &mt);
    MPI_Type_commit(&mt);
    int ng = (BN + 2) * (BN + 2) * (BN + 2);
    double *u = malloc(sizeof(double) * 5 * ng);
    for (int i = 0; i < 5 * ng; i++)
        u[i] = -1;
    for (int z = 0; z < BN; z++)
        for (int y = 0; y < BN; y++)
            for (int x = 0; x < BN; x++) {
                int64_t gz = st[0] + z, gy = st[1] + y, gx = st[2] + x;
                int64_t g = (gz * sizes[1] + gy) * sizes[2] + gx;
                int64_t l = ((int64_t)(z + 1) * (BN + 2) + y + 1) * (BN + 2) + x + 1;
                for (int c = 0; c < 5; c++)
                    u[l * 5 + c] = (double)(g * 5 + c);
            }
    MPI_File fh = open_file(collective ? "bt_coll.dat" : "bt_ind.dat", MPI_COMM_WORLD);
    int rc = MPI_File_set_view(fh, 0, cell, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "bt set_view: %s", t_class_name(rc));
    MPI_Status s;
    rc = xfer(fh, 1, 0, u, 1, mt, &s);
    int n = -1;
    MPI_Get_elements(&s, MPI_DOUBLE, &n);
    t_report("bt write %s elements=%d", t_class_name(rc), n);
    sync_all(fh);
    double *v = malloc(sizeof(double) * 5 * ng);
    memcpy(v, u, sizeof(double) * 5 * ng);
    for (int i = 0; i < 5 * ng; i++)
        if (u[i] != -1)
            v[i] = 0;
    rc = xfer(fh, 0, 0, v, 1, mt, &s);
    EXPECT(rc == MPI_SUCCESS && !memcmp(u, v, sizeof(double) * 5 * ng), "bt read back (ghosts untouched)");
    check_file(fh, "bt", (int64_t)sizes[0] * sizes[1] * sizes[2] * 40, bt_expect);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    MPI_Type_free(&cell);
    free(u);
    free(v);
}

/* ---- darray: block and cyclic ------------------------------------------- */
enum { DG0 = 13, DG1 = 10 };
static unsigned char darray_expect(int64_t i)
{
    int v = (int)(i / 4) * 3 + 1;
    return ((unsigned char *)&v)[i % 4];
}

static void darray_io(int dist, const char *name)
{
    int g[2] = {DG0, DG1}, d[2] = {dist, dist};
    int a[2] = {dist == MPI_DISTRIBUTE_CYCLIC ? 3 : MPI_DISTRIBUTE_DFLT_DARG,
                dist == MPI_DISTRIBUTE_CYCLIC ? 2 : MPI_DISTRIBUTE_DFLT_DARG};
    int p[2] = {0, 0};
    MPI_Dims_create(t_size, 2, p);
    MPI_Datatype ft;
    MPI_Type_create_darray(t_size, t_rank, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_Count sz = 0;
    MPI_Type_size_x(ft, &sz);
    int n = (int)(sz / 4);
    /* this rank's elements in file order are the global indices its darray picks */
    int *all = malloc(sizeof(int) * DG0 * DG1), *mine = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < DG0 * DG1; i++)
        all[i] = i * 3 + 1;
    int pos = 0;
    MPI_Pack(all, 1, ft, mine, (int)sizeof(int) * (n + 1), &pos, MPI_COMM_SELF);
    char file[64];
    snprintf(file, sizeof file, "darray_%s_%s.dat", name, collective ? "coll" : "ind");
    MPI_File fh = open_file(file, MPI_COMM_WORLD);
    MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_Status s;
    int rc = xfer(fh, 1, 0, mine, n, MPI_INT, &s);
    int c = -1;
    MPI_Get_count(&s, MPI_INT, &c);
    t_report("darray_%s write %s count=%d", name, t_class_name(rc), c);
    check_file(fh, name, (int64_t)DG0 * DG1 * 4, darray_expect);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(all);
    free(mine);
}

/* ---- HACC-IO ------------------------------------------------------------ */
typedef struct particle {
    float x, y, z, vx, vy, vz, phi;
    int64_t pid;
    uint16_t mask;
} particle; /* 7*4 + pad 4 + 8 + 2 + pad 6 = 48 bytes in memory, 38 of data */
enum { NP = 300 };

static MPI_Datatype particle_type(MPI_Aint extent, const MPI_Aint *disp)
{
    int bl[3] = {7, 1, 1};
    MPI_Datatype ts[3] = {MPI_FLOAT, MPI_INT64_T, MPI_UINT16_T}, s, t;
    MPI_Type_create_struct(3, bl, disp, ts, &s);
    MPI_Type_create_resized(s, 0, extent, &t);
    MPI_Type_free(&s);
    MPI_Type_commit(&t);
    return t;
}

static void fill_particles(particle *p, int n)
{
    memset(p, 0xee, sizeof(particle) * (size_t)n); /* padding: must never reach the file */
    for (int i = 0; i < n; i++) {
        float *f = &p[i].x;
        for (int k = 0; k < 7; k++)
            f[k] = (float)(t_rank * 100000 + i * 10 + k);
        p[i].pid = ((int64_t)t_rank << 40) + i;
        p[i].mask = (uint16_t)(i * 7 + t_rank);
    }
}

static void hacc_io(void)
{
    MPI_Aint mdisp[3] = {offsetof(particle, x), offsetof(particle, pid), offsetof(particle, mask)};
    MPI_Datatype mt = particle_type(sizeof(particle), mdisp);
    particle *p = malloc(sizeof(particle) * NP), *q = malloc(sizeof(particle) * NP);
    fill_particles(p, NP);
    /* (a) records packed in the file, 38 bytes each, rank after rank */
    MPI_File fh = open_file(collective ? "hacc_packed_coll.dat" : "hacc_packed_ind.dat", MPI_COMM_WORLD);
    MPI_Status s;
    int rc = xfer(fh, 1, (MPI_Offset)t_rank * NP * 38, p, NP, mt, &s);
    int n = -1;
    MPI_Get_count(&s, mt, &n);
    t_report("hacc packed write %s count=%d", t_class_name(rc), n);
    sync_all(fh);
    memcpy(q, p, sizeof(particle) * NP);
    for (int i = 0; i < NP; i++) {
        q[i].pid = 0;
        q[i].x = 0;
    }
    rc = xfer(fh, 0, (MPI_Offset)t_rank * NP * 38, q, NP, mt, &s);
    EXPECT(rc == MPI_SUCCESS && !memcmp(p, q, sizeof(particle) * NP), "hacc packed read back");
    MPI_File_close(&fh);
    /* (b) records with gaps in the file too: a 64-byte file record, fields spread */
    MPI_Aint fdisp[3] = {4, 40, 56};
    MPI_Datatype ft = particle_type(64, fdisp);
    fh = open_file(collective ? "hacc_gaps_coll.dat" : "hacc_gaps_ind.dat", MPI_COMM_WORLD);
    if (t_rank == 0) {
        char *pre = malloc(64 * NP);
        memset(pre, 0x5a, 64 * NP);
        for (int r = 0; r < t_size; r++)
            MPI_File_write_at(fh, (MPI_Offset)r * NP * 64, pre, 64 * NP, MPI_BYTE, MPI_STATUS_IGNORE);
        free(pre);
    }
    sync_all(fh);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * NP * 64, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    rc = xfer(fh, 1, 0, p, NP, mt, &s);
    MPI_Get_count(&s, mt, &n);
    t_report("hacc gaps write %s count=%d", t_class_name(rc), n);
    sync_all(fh);
    memset(q, 0, sizeof(particle) * NP);
    rc = xfer(fh, 0, 0, q, NP, mt, &s);
    int ok = rc == MPI_SUCCESS;
    for (int i = 0; i < NP && ok; i++)
        ok = !memcmp(&p[i].x, &q[i].x, 28) && p[i].pid == q[i].pid && p[i].mask == q[i].mask;
    EXPECT(ok, "hacc gaps read back");
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    free(p);
    free(q);
}

/* ---- IOR ------------------------------------------------------------------ */
enum { IOR_T = 4096, IOR_NT = 4, IOR_SEG = 2 }; /* transfer, transfers per block, segments */

static void ior_io(void)
{
    MPI_Datatype et, mt, ft;
    MPI_Type_contiguous(IOR_T / 8, MPI_LONG_LONG_INT, &et);
    MPI_Type_commit(&et);
    MPI_Type_create_resized(et, 0, 0, &mt); /* zero extent: every instance at the buffer */
    MPI_Type_commit(&mt);
    int sizes[2] = {IOR_SEG, t_size * IOR_NT}, sub[2] = {1, IOR_NT}, st[2] = {0, t_rank * IOR_NT};
    long long *buf = malloc(IOR_T);
    MPI_File fh = open_file(collective ? "ior_view_coll.dat" : "ior_view_ind.dat", MPI_COMM_WORLD);
    int rc = MPI_SUCCESS;
    for (int seg = 0; seg < IOR_SEG; seg++) {
        st[0] = seg;
        MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, et, &ft);
        MPI_Type_commit(&ft);
        MPI_File_set_view(fh, 0, et, ft, "native", MPI_INFO_NULL);
        for (int k = 0; k < IOR_NT; k++) {
            for (int i = 0; i < IOR_T / 8; i++)
                buf[i] = ((long long)t_rank << 32) + seg * 1000 + k * 100 + i;
            MPI_File_seek(fh, k, MPI_SEEK_SET);
            int r = collective ? MPI_File_write_all(fh, buf, 1, mt, MPI_STATUS_IGNORE)
                               : MPI_File_write(fh, buf, 1, mt, MPI_STATUS_IGNORE);
            if (r != MPI_SUCCESS)
                rc = r;
        }
        MPI_Type_free(&ft);
    }
    t_report("ior view writes %s", t_class_name(rc));
    sync_all(fh);
    /* read back one transfer; count 3 of the zero-extent type reads three
     * transfers into the same buffer: the last one stays */
    st[0] = 1;
    MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, et, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 0, et, ft, "native", MPI_INFO_NULL);
    MPI_Status s;
    rc = collective ? MPI_File_read_at_all(fh, 0, buf, 3, mt, &s) : MPI_File_read_at(fh, 0, buf, 3, mt, &s);
    int n = -1;
    MPI_Get_count(&s, mt, &n);
    EXPECT(rc == MPI_SUCCESS && n == 3 && buf[0] == ((long long)t_rank << 32) + 1000 + 200 &&
               buf[IOR_T / 8 - 1] == ((long long)t_rank << 32) + 1000 + 200 + IOR_T / 8 - 1,
           "ior read of the zero-extent type: count %d first %lld", n, buf[0]);
    t_report("ior view read %s count=%d first=%lld", t_class_name(rc), n, buf[0]);
    MPI_Type_free(&ft);
    MPI_File_close(&fh);

    /* strided mode: a block-sized contiguous type resized to the task stride,
     * the view set per access at the access's offset, segmentCount instances */
    MPI_Datatype blk, sft;
    MPI_Type_contiguous(IOR_T, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)t_size * IOR_T, &sft);
    MPI_Type_commit(&sft);
    fh = open_file("ior_strided.dat", MPI_COMM_WORLD);
    for (int i = 0; i < IOR_T / 8; i++)
        buf[i] = ((long long)t_rank << 32) + i;
    MPI_File_set_view(fh, (MPI_Offset)t_rank * IOR_T, et, sft, "native", MPI_INFO_NULL);
    rc = MPI_File_write_all(fh, buf, IOR_SEG, mt, &s);
    MPI_Get_count(&s, mt, &n);
    t_report("ior strided write %s count=%d", t_class_name(rc), n);
    MPI_Offset size = 0;
    sync_all(fh);
    MPI_File_get_size(fh, &size);
    t_report("ior strided size %lld", (long long)size);
    MPI_File_close(&fh);
    MPI_Type_free(&blk);
    MPI_Type_free(&sft);
    MPI_Type_free(&mt);
    MPI_Type_free(&et);
    free(buf);
}

/* ---- HDF5 --------------------------------------------------------------- */
enum { H_ROWS = 40, H_COLS = 64 }; /* a 2-D dataset of ints, row blocks per rank */

static void hdf5_io(void)
{
    MPI_File fh = open_file(collective ? "hdf5_coll.dat" : "hdf5_ind.dat", MPI_COMM_WORLD);
    MPI_Offset addr = 2048; /* dataset address after "metadata" */
    if (t_rank == 0) {
        char meta[2048];
        for (int i = 0; i < 2048; i++)
            meta[i] = (char)(i * 7);
        MPI_File_write_at(fh, 0, meta, 2048, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    /* hyperslab: columns [8, 40) of rows rank, rank+P, ...: contiguous bytes -> hvector -> hindexed(1) -> resized */
    int rows = (H_ROWS - t_rank + t_size - 1) / t_size;
    MPI_Datatype row, vec, hidx, ft;
    MPI_Type_contiguous(32 * 4, MPI_BYTE, &row);
    MPI_Type_create_hvector(rows, 1, (MPI_Aint)t_size * H_COLS * 4, row, &vec);
    int one = 1;
    MPI_Aint start = ((MPI_Aint)t_rank * H_COLS + 8) * 4;
    MPI_Type_create_hindexed(1, &one, &start, vec, &hidx);
    MPI_Type_create_resized(hidx, 0, (MPI_Aint)H_ROWS * H_COLS * 4, &ft);
    MPI_Type_commit(&ft);
    int *mem = malloc(sizeof(int) * rows * 32);
    for (int i = 0; i < rows * 32; i++)
        mem[i] = t_rank * 1000000 + i;
    /* set view - transfer - reset, twice (H5FD_mpio does it per raw transfer) */
    int rc = MPI_File_set_view(fh, addr, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Status s;
    rc = xfer(fh, 1, 0, mem, rows * 32 * 4, MPI_BYTE, &s);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    int n = -1;
    MPI_Get_elements(&s, MPI_BYTE, &n);
    t_report("hdf5 hyperslab write %s bytes=%d", t_class_name(rc), n);
    /* point selection: sorted element displacements in column 2 */
    int np = rows;
    MPI_Aint *pd = malloc(sizeof(MPI_Aint) * np);
    int *bl = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++) {
        pd[i] = ((MPI_Aint)(t_rank + i * t_size) * H_COLS + 2) * 4;
        bl[i] = 4;
    }
    MPI_Datatype pts;
    MPI_Type_create_hindexed(np, bl, pd, MPI_BYTE, &pts);
    MPI_Type_commit(&pts);
    int *pv = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++)
        pv[i] = -(t_rank * 1000 + i);
    rc = MPI_File_set_view(fh, addr, MPI_BYTE, pts, "native", MPI_INFO_NULL);
    rc = xfer(fh, 1, 0, pv, np * 4, MPI_BYTE, &s);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    t_report("hdf5 points write %s", t_class_name(rc));
    sync_all(fh);
    /* read the hyperslab back the same way */
    int *back = calloc((size_t)rows * 32, sizeof(int));
    MPI_File_set_view(fh, addr, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    rc = xfer(fh, 0, 0, back, rows * 32 * 4, MPI_BYTE, &s);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS && !memcmp(back, mem, sizeof(int) * rows * 32), "hdf5 hyperslab read back");
    MPI_Offset size;
    MPI_File_get_size(fh, &size);
    t_report("hdf5 size %lld", (long long)size);
    MPI_File_close(&fh);
    MPI_Type_free(&row);
    MPI_Type_free(&vec);
    MPI_Type_free(&hidx);
    MPI_Type_free(&ft);
    MPI_Type_free(&pts);
    free(mem);
    free(pd);
    free(bl);
    free(pv);
    free(back);
}

/* ---- PnetCDF -------------------------------------------------------------- */
enum { NVARS = 3, NREC = 4, RECLEN = 24 }; /* ints per rank per record per variable */

static void pnetcdf_io(void)
{
    /* record variables interleaved per record: record r of variable v at
     * header + (r * NVARS + v) * P * RECLEN * 4, this rank's part after it */
    MPI_Offset header = 1024;
    int n = NVARS * NREC;
    int *bl = malloc(sizeof(int) * n);
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * n);
    for (int r = 0; r < NREC; r++)
        for (int v = 0; v < NVARS; v++) {
            int k = r * NVARS + v;
            bl[k] = RECLEN * 4;
            d[k] = ((MPI_Aint)k * t_size + t_rank) * RECLEN * 4;
        }
    MPI_Datatype ft;
    MPI_Type_create_hindexed(n, bl, d, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    int *data = malloc(sizeof(int) * n * RECLEN);
    for (int i = 0; i < n * RECLEN; i++)
        data[i] = t_rank * 100000 + i;
    MPI_File fh = open_file("pnetcdf.dat", MPI_COMM_WORLD);
    MPI_File_set_view(fh, header, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Status s;
    int rc = MPI_File_write_at_all(fh, 0, data, n * RECLEN, MPI_INT, &s);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    int c = -1;
    MPI_Get_count(&s, MPI_INT, &c);
    t_report("pnetcdf collective write %s count=%d", t_class_name(rc), c);
    MPI_File_close(&fh);

    /* independent mode: PnetCDF's second handle on COMM_SELF, own region */
    char name[64];
    snprintf(name, sizeof name, "pnetcdf_self_r%d.dat", t_rank);
    MPI_File self = open_file(name, MPI_COMM_SELF);
    MPI_File_set_view(self, header, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    rc = MPI_File_write_at(self, 0, data, n * RECLEN, MPI_INT, &s);
    int *back = calloc((size_t)n * RECLEN, sizeof(int));
    int rc2 = MPI_File_read_at(self, 0, back, n * RECLEN, MPI_INT, &s);
    MPI_File_set_view(self, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && !memcmp(back, data, sizeof(int) * n * RECLEN),
           "pnetcdf independent read back");
    t_report("pnetcdf independent %s %s", t_class_name(rc), t_class_name(rc2));
    MPI_File_close(&self);
    MPI_Type_free(&ft);
    free(bl);
    free(d);
    free(data);
    free(back);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "-m"))
            collective = !strcmp(argv[i + 1], "coll");
    tile_io();
    bt_io();
    darray_io(MPI_DISTRIBUTE_BLOCK, "block");
    darray_io(MPI_DISTRIBUTE_CYCLIC, "cyclic");
    hacc_io();
    ior_io();
    hdf5_io();
    if (collective)
        pnetcdf_io();
    return t_finish("t_apps");
}
