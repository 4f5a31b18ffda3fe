/*
 * flash: the FLASH-IO checkpoint through parallel HDF5. Each rank holds
 * `blocks` blocks of nxb^3 cells surrounded by `guard` guard cells on every
 * side, for each of 24 variables. The checkpoint stores every variable in its
 * own dataset (all blocks of all ranks, interior cells only), written
 * collectively, so HDF5 turns each dataset write into a collective MPI-IO call
 * whose memory side skips the guard cells. The data goes through MPI-IO, and
 * therefore through ferry when it is preloaded.
 *
 * The read-back reads every dataset the same way into an array whose guard
 * cells hold a sentinel: the interior must match and the guards must be
 * untouched.
 */
#include "bench.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

struct flash_opts {
    int blocks, nxb, guard, vars;
};
static const struct flash_opts defaults = {.blocks = 80, .nxb = 8, .guard = 4, .vars = 24};
static struct flash_opts o;

static const fb_opt opts[] = {
    {"--blocks", "blocks", FB_INT, &o.blocks, "blocks per rank (default 80)", NULL},
    {"--nxb", "nxb", FB_INT, &o.nxb, "cells per block edge (default 8)", NULL},
    {"--guard", "guard", FB_INT, &o.guard, "guard cells on each side (default 4)", NULL},
    {"--vars", "vars", FB_INT, &o.vars, "variables, one dataset each (default 24)", NULL},
    {0},
};

/* FLASH's usual unknowns; beyond them, numbered names */
static const char *const unk_names[] = {"dens", "velx", "vely", "velz", "pres", "ener", "temp", "gamc",
                                        "game", "enuc", "gpot", NULL};

static void var_name(int v, char *buf, size_t n)
{
    if (v < (int)(sizeof unk_names / sizeof unk_names[0]) - 1)
        snprintf(buf, n, "%s", unk_names[v]);
    else
        snprintf(buf, n, "f%d", v - (int)(sizeof unk_names / sizeof unk_names[0]) + 2);
}

static const char *check(fb_ctx *c)
{
    (void)c;
    int side = o.nxb + 2 * o.guard;
    if (o.blocks < 1 || o.nxb < 1 || o.guard < 0 || o.vars < 1)
        return "--blocks, --nxb and --vars must be positive, --guard not negative";
    if ((int64_t)o.blocks * o.vars * side * side * side > ((int64_t)1 << 31))
        return "too much data per rank";
    return NULL;
}

#define SENTINEL 0x7ff4dead7ff4deadULL /* a NaN no generated value can equal */

typedef struct {
    int64_t total_blocks, first_block;
    hsize_t cells;   /* nxb^3 */
    hsize_t side;    /* nxb + 2 guard */
    size_t elems;    /* doubles in the in-memory array */
    uint64_t seed;
} flash_geom;

/* Memory: unk[block][var][k][j][i] with guard cells around each block. */
static size_t mem_index(const flash_geom *g, int b, int v, int k, int j, int i)
{
    return ((((size_t)b * (size_t)o.vars + (size_t)v) * g->side + (size_t)k) * g->side + (size_t)j) * g->side +
           (size_t)i;
}

/* The value of interior cell (k, j, i) of global block gb, variable v: an
 * integer below 2^53, so it survives any double conversion exactly. */
static uint64_t value(const flash_geom *g, int v, int64_t gb, int k, int j, int i)
{
    int64_t idx = (((int64_t)v * g->total_blocks + gb) * (int64_t)g->cells) + ((int64_t)k * o.nxb + j) * o.nxb + i;
    uint64_t w;
    fb_fill(&w, idx * 8, 8, g->seed);
    double d = (double)(w >> 11);
    memcpy(&w, &d, 8);
    return w;
}

/* Fill the array (fill = 1) or check it: interior cells hold their values,
 * guard cells the sentinel. */
static void visit(fb_ctx *c, const flash_geom *g, uint64_t *unk, int fill)
{
    int gd = o.guard, n = o.nxb;
    for (int b = 0; b < o.blocks; b++)
        for (int v = 0; v < o.vars; v++)
            for (int k = 0; k < (int)g->side; k++)
                for (int j = 0; j < (int)g->side; j++)
                    for (int i = 0; i < (int)g->side; i++) {
                        size_t m = mem_index(g, b, v, k, j, i);
                        int inside = k >= gd && k < gd + n && j >= gd && j < gd + n && i >= gd && i < gd + n;
                        uint64_t want = inside ? value(g, v, g->first_block + b, k - gd, j - gd, i - gd) : SENTINEL;
                        if (fill) {
                            unk[m] = want;
                            continue;
                        }
                        if (unk[m] == want) {
                            c->v.checked += inside ? 8 : 0; /* bytes of the file that were checked */
                            continue;
                        }
                        char where[4300], name[32];
                        var_name(v, name, sizeof name);
                        snprintf(where, sizeof where, "dataset '%s'%s in %s", name,
                                 inside ? "" : " (a guard cell that must stay untouched)", c->path);
                        /* offset: bytes into the dataset (for a guard cell, of the block's first cell) */
                        int64_t off = ((g->first_block + b) * (int64_t)g->cells +
                                       (inside ? ((int64_t)(k - gd) * n + (j - gd)) * n + (i - gd) : 0)) * 8;
                        fb_check_bytes(&c->v, &unk[m], &want, off, 8, where);
                    }
}

static void die_h5(fb_ctx *c, const char *what)
{
    fb_die(c, "HDF5 %s failed on %s", what, c->path);
}

/* Returns, after the write, where --corrupt-after-write strikes: inside the
 * first dataset. */
static int64_t flash_io(fb_ctx *c, const flash_geom *g, uint64_t *unk, int write)
{
    int64_t corrupt_off = 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    fb_phase_begin(c, write ? FB_OPEN_W : FB_OPEN_R);
    hid_t file = write ? H5Fcreate(c->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(c->path, H5F_ACC_RDONLY, fapl);
    if (file < 0)
        die_h5(c, write ? "H5Fcreate" : "H5Fopen");
    fb_phase_end(c, write ? FB_OPEN_W : FB_OPEN_R);

    hsize_t n = (hsize_t)o.nxb, gd = (hsize_t)o.guard;
    hsize_t fdims[4] = {(hsize_t)g->total_blocks, n, n, n};
    hsize_t fstart[4] = {(hsize_t)g->first_block, 0, 0, 0}, fcount[4] = {(hsize_t)o.blocks, n, n, n};
    hsize_t mdims[5] = {(hsize_t)o.blocks, (hsize_t)o.vars, g->side, g->side, g->side};
    hsize_t mcount[5] = {(hsize_t)o.blocks, 1, n, n, n};
    hid_t fspace = H5Screate_simple(4, fdims, NULL), mspace = H5Screate_simple(5, mdims, NULL);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, fstart, NULL, fcount, NULL);

    fb_phase_begin(c, write ? FB_WRITE : FB_READ);
    for (int v = 0; v < o.vars; v++) {
        char name[32];
        var_name(v, name, sizeof name);
        hsize_t mstart[5] = {0, (hsize_t)v, gd, gd, gd};
        H5Sselect_hyperslab(mspace, H5S_SELECT_SET, mstart, NULL, mcount, NULL);
        hid_t d = write ? H5Dcreate2(file, name, H5T_IEEE_F64LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                        : H5Dopen2(file, name, H5P_DEFAULT);
        if (d < 0)
            die_h5(c, write ? "H5Dcreate2" : "H5Dopen2");
        herr_t rc = write ? H5Dwrite(d, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, unk)
                          : H5Dread(d, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, unk);
        if (rc < 0)
            die_h5(c, write ? "H5Dwrite" : "H5Dread");
        if (write && v == 0) {
            haddr_t at = H5Dget_offset(d);
            corrupt_off = at == HADDR_UNDEF ? 0 : (int64_t)at + g->total_blocks * (int64_t)g->cells * 8 / 2;
        }
        H5Dclose(d);
    }
    fb_phase_end(c, write ? FB_WRITE : FB_READ);

    fb_phase_begin(c, write ? FB_CLOSE_W : FB_CLOSE_R);
    if (H5Fclose(file) < 0)
        die_h5(c, "H5Fclose");
    fb_phase_end(c, write ? FB_CLOSE_W : FB_CLOSE_R);
    H5Sclose(fspace);
    H5Sclose(mspace);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    fb_pass_done(c, c->path, write);
    return corrupt_off;
}

static void run(fb_ctx *c, int rep)
{
    flash_geom g;
    int64_t mine = o.blocks;
    g.first_block = 0;
    MPI_Exscan(&mine, &g.first_block, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &g.total_blocks, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (c->rank == 0)
        g.first_block = 0;
    g.cells = (hsize_t)o.nxb * o.nxb * o.nxb;
    g.side = (hsize_t)(o.nxb + 2 * o.guard);
    g.elems = (size_t)o.blocks * (size_t)o.vars * g.side * g.side * g.side;
    g.seed = fb_seed("flash", rep, 0);
    uint64_t *unk = fb_alloc(c, g.elems * 8);
    visit(c, &g, unk, 1);
    c->bytes_w = c->bytes_r = g.total_blocks * (int64_t)g.cells * 8 * o.vars;

    fb_remove(c, c->path);
    fb_corrupt(c, c->path, flash_io(c, &g, unk, 1));

    for (size_t i = 0; i < g.elems; i++)
        unk[i] = SENTINEL;
    flash_io(c, &g, unk, 0);
    visit(c, &g, unk, 0);
    fb_discard(c, c->path);
    free(unk);
}

const fb_pattern fb_pat_flash = {
    .name = "flash",
    .summary = "FLASH-IO checkpoint through parallel HDF5: 8^3-cell blocks with guard cells, one dataset per variable",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
