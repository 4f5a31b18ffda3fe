/*
 * btio: NPB BT-IO, full mode. The solution is an N^3 grid of 5 doubles
 * (40 bytes) per point, stored x fastest. BT splits the grid into nc^3 cells
 * with the diagonal multipartition: on a square number of ranks P = nc^2,
 * rank (row, col) owns one cell per z-layer, the cell at x = col + z,
 * y = row - z (mod nc). Each time step, every rank writes its cells with one
 * collective call through a view made of one 3-D subarray per cell (BT's
 * own construction); the steps are appended to the file. At the end the
 * whole file is read back the same way and verified.
 *
 * Every row of a cell is a separate piece of the file, so each rank moves
 * many small noncontiguous pieces per step.
 *
 * BT itself needs a square P. For other counts ferry-bench generalises the
 * diagonal to an r x c process grid (r the largest divisor of P not above
 * sqrt(P), nc = c cells per dimension, owner of cell (x, y, z) =
 * ((y + z) mod r) + r * ((x - z) mod c)), which is BT's rule when r = c. A
 * rank then owns several cells of a z-layer, whose rows interleave in the
 * file, so the view is built from the rows themselves (hindexed) instead of
 * one subarray per cell. The bytes each rank moves are the same either way.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define POINT 40 /* bytes per grid point: u(5) in double precision */

struct btio_opts {
    int n, steps;
};
static const struct btio_opts defaults = {.n = 64, .steps = 5};
static struct btio_opts o;

static const fb_opt opts[] = {
    {"-n", "grid", FB_INT, &o.n, "grid points per dimension (NPB class S 12, W 24, A 64, B 102, C 162; default 64)",
     NULL},
    {"--steps", "steps", FB_INT, &o.steps, "time steps written (appended), then read back (default 5)", NULL},
    {0},
};

/* the multipartition of the ranks */
static int pr, pc, nc; /* process grid pr x pc, cells per dimension */

static int owner(int x, int y, int z)
{
    return ((y + z) % pr) + pr * (((x - z) % nc + nc) % nc);
}

static int cell_start(int i)
{
    return (int)((int64_t)i * o.n / nc);
}

static const char *check(fb_ctx *c)
{
    pr = fb_squarest(c->size);
    pc = c->size / pr;
    nc = pc;
    if (o.n < nc)
        return "the grid needs at least one point per cell in each dimension (-n >= cells per dimension)";
    if (o.steps < 1)
        return "--steps must be at least 1";
    if ((int64_t)o.n * o.n * o.n / c->size * 2 > 0x7fffffff / POINT)
        return "the grid is too large for int counts";
    return NULL;
}

typedef struct {
    int n;
    int64_t *off; /* byte offset in one step's array */
    int *len;     /* bytes */
} pieces;

/* This rank's rows, in file order. */
static void my_pieces(fb_ctx *c, pieces *p, int64_t *bytes)
{
    int *cell_of = malloc(sizeof(int) * (size_t)o.n);
    for (int i = 0; i < nc; i++)
        for (int g = cell_start(i); g < cell_start(i + 1); g++)
            cell_of[g] = i;
    int cap = 1024;
    p->n = 0;
    p->off = malloc(sizeof(int64_t) * (size_t)cap);
    p->len = malloc(sizeof(int) * (size_t)cap);
    *bytes = 0;
    for (int z = 0; z < o.n; z++)
        for (int y = 0; y < o.n; y++)
            for (int x = 0; x < nc; x++) {
                if (owner(x, cell_of[y], cell_of[z]) != c->rank)
                    continue;
                if (p->n == cap) {
                    cap *= 2;
                    p->off = realloc(p->off, sizeof(int64_t) * (size_t)cap);
                    p->len = realloc(p->len, sizeof(int) * (size_t)cap);
                }
                p->off[p->n] = (((int64_t)z * o.n + y) * o.n + cell_start(x)) * POINT;
                p->len[p->n] = (cell_start(x + 1) - cell_start(x)) * POINT;
                *bytes += p->len[p->n++];
            }
    free(cell_of);
}

/* BT's view: one subarray per owned cell, one cell per z-layer. */
static void subarray_view(fb_ctx *c, MPI_Datatype point, MPI_Datatype *ft)
{
    MPI_Datatype cell[nc];
    int one[nc];
    MPI_Aint zero[nc];
    for (int z = 0; z < nc; z++) {
        int sizes[3] = {o.n, o.n, o.n}, sub[3], start[3] = {cell_start(z), 0, 0};
        for (int y = 0; y < nc; y++)
            for (int x = 0; x < nc; x++)
                if (owner(x, y, z) == c->rank) {
                    start[1] = cell_start(y), start[2] = cell_start(x);
                    sub[1] = cell_start(y + 1) - start[1], sub[2] = cell_start(x + 1) - start[2];
                }
        sub[0] = cell_start(z + 1) - start[0];
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, point, &cell[z]);
        one[z] = 1, zero[z] = 0;
    }
    MPI_Type_create_struct(nc, one, zero, cell, ft);
    for (int z = 0; z < nc; z++)
        MPI_Type_free(&cell[z]);
}

typedef struct {
    const pieces *p;
    unsigned char *buf; /* all steps */
    int64_t step_bytes;
    MPI_Datatype point, ft; /* made by set_view; freed after the pass */
} btio_pass;

/* Part of opening, as in BT-IO. */
static void set_view(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    (void)write;
    btio_pass *bp = arg;
    const pieces *p = bp->p;
    MPI_Datatype *point = &bp->point, *ft = &bp->ft;
    MPI_Type_contiguous(POINT, MPI_BYTE, point);
    MPI_Type_commit(point);
    MPI_Datatype t;
    if (pr == pc)
        subarray_view(c, *point, &t);
    else {
        int *count = malloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
        MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)(p->n ? p->n : 1));
        for (int i = 0; i < p->n; i++)
            count[i] = p->len[i] / POINT, disp[i] = (MPI_Aint)p->off[i];
        MPI_Type_create_hindexed(p->n, count, disp, *point, &t);
        free(count);
        free(disp);
    }
    /* one filetype per step: step s starts where step s-1's array ends */
    MPI_Type_create_resized(t, 0, (MPI_Aint)o.n * o.n * o.n * POINT, ft);
    MPI_Type_commit(ft);
    MPI_Type_free(&t);
    fb_mpi_check(c, MPI_File_set_view(fh, 0, *point, *ft, "native", MPI_INFO_NULL), "MPI_File_set_view", c->path);
}

static void steps(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    btio_pass *bp = arg;
    int count = (int)(bp->step_bytes / POINT);
    for (int s = 0; s < o.steps; s++) {
        MPI_Status st;
        unsigned char *b = bp->buf + (size_t)s * (size_t)bp->step_bytes;
        MPI_Offset at = (MPI_Offset)s * count; /* in points of this rank's view */
        int rc = write ? MPI_File_write_at_all(fh, at, b, count, bp->point, &st)
                       : MPI_File_read_at_all(fh, at, b, count, bp->point, &st);
        fb_mpi_check(c, rc, write ? "MPI_File_write_at_all" : "MPI_File_read_at_all", c->path);
        fb_check_count(c, &st, bp->point, count, write ? "a step write" : "a step read");
    }
}

static void steps_io(fb_ctx *c, const pieces *p, unsigned char *buf, int64_t step_bytes, int write)
{
    btio_pass bp = {.p = p, .buf = buf, .step_bytes = step_bytes};
    fb_pass(c, write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY, write, set_view, steps, &bp);
    MPI_Type_free(&bp.ft);
    MPI_Type_free(&bp.point);
}

static void run(fb_ctx *c, int rep)
{
    pieces p;
    int64_t step_bytes, array = (int64_t)o.n * o.n * o.n * POINT;
    my_pieces(c, &p, &step_bytes);
    unsigned char *buf = fb_alloc(c, (size_t)(step_bytes * o.steps));
    uint64_t seed = fb_seed("btio", rep, 0);
    int64_t at = 0;
    for (int s = 0; s < o.steps; s++)
        for (int i = 0; i < p.n; at += p.len[i++])
            fb_fill(buf + at, s * array + p.off[i], (size_t)p.len[i], seed);
    c->bytes_w = c->bytes_r = array * o.steps;

    fb_remove(c, c->path);
    steps_io(c, &p, buf, step_bytes, 1);
    fb_corrupt(c, c->path, c->rank == 0 && p.n ? p.off[0] + p.len[0] / 2 : 0);

    memset(buf, 0xa5, (size_t)(step_bytes * o.steps));
    steps_io(c, &p, buf, step_bytes, 0);
    at = 0;
    for (int s = 0; s < o.steps; s++)
        for (int i = 0; i < p.n; at += p.len[i++])
            fb_check(&c->v, buf + at, s * array + p.off[i], (size_t)p.len[i], seed, c->path);
    fb_check_file(c, c->path, array * o.steps, seed, 1);
    fb_discard(c, c->path);
    free(buf);
    free(p.off);
    free(p.len);
}

const fb_pattern fb_pat_btio = {
    .name = "btio",
    .summary = "NPB BT-IO full mode: diagonal multipartition, many small pieces per step, steps appended",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
