/*
 * tile: MPI-Tile-IO. A 2-D array of tiles (nr-tiles-x by nr-tiles-y, one
 * tile per rank), each sz-tile-x by sz-tile-y elements of sz-element bytes,
 * stored row-major. Every rank writes and then reads its tile collectively
 * through a subarray view, so each of its rows is a separate piece of the file.
 */
#include "bench.h"

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

static const char *check(fb_ctx *c)
{
    if (!o.tiles_x && !o.tiles_y) { /* the squarest grid */
        o.tiles_y = fb_squarest(c->size);
        o.tiles_x = c->size / o.tiles_y;
    } else if (!o.tiles_x && c->size % o.tiles_y == 0)
        o.tiles_x = c->size / o.tiles_y;
    else if (!o.tiles_y && c->size % o.tiles_x == 0)
        o.tiles_y = c->size / o.tiles_x;
    if ((int64_t)o.tiles_x * o.tiles_y != c->size)
        return "the tile grid must have one tile per rank (nr-tiles-x * nr-tiles-y = ranks)";
    if (o.sz_x < 1 || o.sz_y < 1 || o.elem < 1 || o.elem > 1 << 20)
        return "tile sizes must be positive and elements at most 1 MiB";
    if ((int64_t)o.sz_x * o.sz_y > 0x7fffffff || (int64_t)o.sz_x * o.tiles_x > 0x7fffffff ||
        (int64_t)o.sz_y * o.tiles_y > 0x7fffffff)
        return "the array is too large for int counts";
    return NULL;
}

/* Each tile row is one contiguous run of the file. */
static int64_t row_offset(fb_ctx *c, int row)
{
    int tx = c->rank % o.tiles_x, ty = c->rank / o.tiles_x;
    int64_t cols = (int64_t)o.tiles_x * o.sz_x;
    return (((int64_t)ty * o.sz_y + row) * cols + (int64_t)tx * o.sz_x) * o.elem;
}

typedef struct {
    void *buf;
    MPI_Datatype elem, file; /* made by set_view; freed after the pass */
} tile_pass;

/* Part of opening, as in MPI-Tile-IO. */
static void set_view(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    (void)write;
    tile_pass *p = arg;
    MPI_Datatype *elem = &p->elem, *file = &p->file;
    int sizes[2] = {o.tiles_y * o.sz_y, o.tiles_x * o.sz_x}, sub[2] = {o.sz_y, o.sz_x};
    int starts[2] = {(c->rank / o.tiles_x) * o.sz_y, (c->rank % o.tiles_x) * o.sz_x};
    MPI_Type_contiguous((int)o.elem, MPI_BYTE, elem);
    MPI_Type_commit(elem);
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, *elem, file);
    MPI_Type_commit(file);
    fb_mpi_check(c, MPI_File_set_view(fh, 0, *elem, *file, "native", MPI_INFO_NULL), "MPI_File_set_view", c->path);
}

static void move(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    tile_pass *p = arg;
    MPI_Status st;
    int n = o.sz_x * o.sz_y;
    int rc = write ? MPI_File_write_all(fh, p->buf, n, p->elem, &st) : MPI_File_read_all(fh, p->buf, n, p->elem, &st);
    fb_mpi_check(c, rc, write ? "MPI_File_write_all" : "MPI_File_read_all", c->path);
    fb_check_count(c, &st, p->elem, n, write ? "the tile write" : "the tile read");
}

static void tile_io(fb_ctx *c, int write, void *buf)
{
    tile_pass p = {.buf = buf};
    fb_pass(c, write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY, write, set_view, move, &p);
    MPI_Type_free(&p.file);
    MPI_Type_free(&p.elem);
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
    fb_corrupt(c, c->path, (int64_t)row / 2); /* rank 0's tile starts the file */

    memset(buf, 0xa5, row * (size_t)o.sz_y);
    tile_io(c, 0, buf);
    for (int r = 0; r < o.sz_y; r++)
        fb_check(&c->v, buf + r * row, row_offset(c, r), row, seed, c->path);
    fb_check_file(c, c->path, c->bytes_w, seed, 1);
    fb_discard(c, c->path);
    free(buf);
}

const fb_pattern fb_pat_tile = {
    .name = "tile",
    .summary = "MPI-Tile-IO: one 2-D tile per rank through a subarray view, collective",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
