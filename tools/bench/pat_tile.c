/*
 * tile: MPI-Tile-IO. A 2-D array of tiles (nr-tiles-x by nr-tiles-y, one
 * tile per rank), each sz-tile-x by sz-tile-y elements of sz-element bytes,
 * stored row-major. Every rank writes and then reads its tile collectively
 * through a subarray view, so each of its rows is a separate piece of the file.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tile_opts {
    int tiles_x, tiles_y, sz_x, sz_y;
    int64_t elem;
};
static const struct tile_opts defaults = {.sz_x = 512, .sz_y = 512, .elem = 8};
static struct tile_opts o;

static const fb_opt opts[] = {
    {"--nr-tiles-x", "nr_tiles_x", FB_INT, &o.tiles_x, "tiles across (default: the squarest split of the ranks)", NULL},
    {"--nr-tiles-y", "nr_tiles_y", FB_INT, &o.tiles_y, "tiles down", NULL},
    {"--sz-tile-x", "sz_tile_x", FB_INT, &o.sz_x, "elements per tile row (default 512)", NULL},
    {"--sz-tile-y", "sz_tile_y", FB_INT, &o.sz_y, "rows per tile (default 512)", NULL},
    {"--sz-element", "sz_element", FB_SIZE, &o.elem, "bytes per element (default 8)", NULL},
    {0},
};

/* back to the defaults before each --then segment */
static void reset(void)
{
    o = defaults;
}

static int check(fb_ctx *c)
{
    if (!o.tiles_x && !o.tiles_y) { /* the squarest grid: tiles_y the largest divisor <= sqrt(P) */
        for (o.tiles_y = (int)sqrt((double)c->size); c->size % o.tiles_y; o.tiles_y--)
            ;
        o.tiles_x = c->size / o.tiles_y;
    } else if (!o.tiles_x && c->size % o.tiles_y == 0)
        o.tiles_x = c->size / o.tiles_y;
    else if (!o.tiles_y && c->size % o.tiles_x == 0)
        o.tiles_y = c->size / o.tiles_x;
    const char *err = NULL;
    if ((int64_t)o.tiles_x * o.tiles_y != c->size)
        err = "the tile grid must have one tile per rank (nr-tiles-x * nr-tiles-y = ranks)";
    else if (o.sz_x < 1 || o.sz_y < 1 || o.elem < 1 || o.elem > 1 << 20)
        err = "tile sizes must be positive and elements at most 1 MiB";
    else if ((int64_t)o.sz_x * o.sz_y > 0x7fffffff || (int64_t)o.sz_x * o.tiles_x > 0x7fffffff ||
             (int64_t)o.sz_y * o.tiles_y > 0x7fffffff)
        err = "the array is too large for int counts";
    if (err && c->rank == 0)
        fprintf(stderr, "ferry-bench tile: %s\n", err);
    return err ? -1 : 0;
}

/* Each tile row is one contiguous run of the file. */
static int64_t row_offset(fb_ctx *c, int row)
{
    int tx = c->rank % o.tiles_x, ty = c->rank / o.tiles_x;
    int64_t cols = (int64_t)o.tiles_x * o.sz_x;
    return (((int64_t)ty * o.sz_y + row) * cols + (int64_t)tx * o.sz_x) * o.elem;
}

static void set_view(fb_ctx *c, MPI_File fh, MPI_Datatype *elem, MPI_Datatype *file)
{
    int sizes[2] = {o.tiles_y * o.sz_y, o.tiles_x * o.sz_x}, sub[2] = {o.sz_y, o.sz_x};
    int starts[2] = {(c->rank / o.tiles_x) * o.sz_y, (c->rank % o.tiles_x) * o.sz_x};
    MPI_Type_contiguous((int)o.elem, MPI_BYTE, elem);
    MPI_Type_commit(elem);
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, *elem, file);
    MPI_Type_commit(file);
    fb_mpi_check(c, MPI_File_set_view(fh, 0, *elem, *file, "native", MPI_INFO_NULL), "MPI_File_set_view", c->path);
}

static void tile_io(fb_ctx *c, int write, void *buf)
{
    MPI_File fh;
    MPI_Datatype elem, file;
    MPI_Status st;
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;
    fb_phase_begin(c, write ? FB_OPEN_W : FB_OPEN_R);
    fb_mpi_check(c, MPI_File_open(MPI_COMM_WORLD, c->path, amode, MPI_INFO_NULL, &fh), "MPI_File_open", c->path);
    set_view(c, fh, &elem, &file); /* part of opening, as in MPI-Tile-IO */
    fb_phase_end(c, write ? FB_OPEN_W : FB_OPEN_R);
    fb_phase_begin(c, write ? FB_WRITE : FB_READ);
    int n = o.sz_x * o.sz_y;
    int rc = write ? MPI_File_write_all(fh, buf, n, elem, &st) : MPI_File_read_all(fh, buf, n, elem, &st);
    fb_mpi_check(c, rc, write ? "MPI_File_write_all" : "MPI_File_read_all", c->path);
    fb_check_count(c, &st, elem, n, write ? "the tile write" : "the tile read");
    fb_phase_end(c, write ? FB_WRITE : FB_READ);
    fb_close_timed(c, &fh, write ? FB_CLOSE_W : FB_CLOSE_R);
    MPI_Type_free(&file);
    MPI_Type_free(&elem);
    fb_ferry_capture(c, c->path, write);
}

static void run(fb_ctx *c, int rep)
{
    size_t row = (size_t)o.sz_x * (size_t)o.elem;
    unsigned char *buf = fb_alloc(c, row * (size_t)o.sz_y);
    uint64_t seed = fb_seed("tile", rep, 0);
    for (int r = 0; r < o.sz_y; r++)
        fb_fill(buf + r * row, row_offset(c, r), row, seed);
    c->bytes_w = c->bytes_r = (int64_t)row * o.sz_y * c->size;

    fb_remove(c, c->path);
    tile_io(c, 1, buf);
    c->did_write = 1;
    snprintf(c->corrupt_path, sizeof c->corrupt_path, "%s", c->path);
    c->corrupt_off = (int64_t)row / 2; /* rank 0's tile starts the file */
    fb_corrupt(c);

    memset(buf, 0xa5, row * (size_t)o.sz_y);
    tile_io(c, 0, buf);
    c->did_read = 1;
    for (int r = 0; r < o.sz_y; r++)
        fb_check(&c->v, buf + r * row, row_offset(c, r), row, seed, c->path);
    fb_check_file(c, c->path, c->bytes_w, seed, 1);
    if (!c->keep)
        fb_remove(c, c->path);
    free(buf);
}

const fb_pattern fb_pat_tile = {
    .name = "tile",
    .summary = "MPI-Tile-IO: one 2-D tile per rank through a subarray view, collective",
    .opts = opts,
    .reset = reset,
    .check = check,
    .run = run,
};
