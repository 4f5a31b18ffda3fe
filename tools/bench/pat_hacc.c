/*
 * hacc: the HACC-IO checkpoint. Each rank holds N particles of 9 variables
 * (xx yy zz vx vy vz phi: float32, pid: int64, mask: uint16), one array per
 * variable. The file is variable-major across ranks: all ranks' xx, then all
 * ranks' yy, and so on, so one rank's data is 9 pieces far apart.
 *
 * --mode struct describes the whole checkpoint in one collective call: a
 * struct file view over the 9 pieces and a struct memory type over the 9
 * arrays (the fix the HACC team applied with ROMIO). --mode pervar makes one
 * collective call per variable, as the code first did.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define NVARS 9
static const char *const var_name[NVARS] = {"xx", "yy", "zz", "vx", "vy", "vz", "phi", "pid", "mask"};
static const int var_size[NVARS] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

static const char *const modes[] = {"struct", "pervar", NULL};
enum { MODE_STRUCT, MODE_PERVAR };

struct hacc_opts {
    int particles, mode;
};
static const struct hacc_opts defaults = {.particles = 1500000};
static struct hacc_opts o;

static const fb_opt opts[] = {
    {"-n", "particles", FB_INT, &o.particles, "particles per rank (default 1500000)", NULL},
    {"--mode", "mode", FB_CHOICE, &o.mode, "struct: one collective call; pervar: one per variable", modes},
    {0},
};

static const char *check(fb_ctx *c)
{
    (void)c;
    /* the largest piece (pid) is passed as one int count of bytes */
    if (o.particles < 1 || (int64_t)o.particles * 8 > 0x7fffffff)
        return "-n must be between 1 and 268435455";
    return NULL;
}

typedef struct {
    unsigned char *arr[NVARS];
    int len[NVARS];       /* bytes of this rank's piece */
    MPI_Aint off[NVARS];  /* file offset of this rank's piece */
} hacc_data;

/* Variable v of all ranks starts at the sum of the earlier variables' sizes;
 * within it, ranks follow each other. */
static void layout(fb_ctx *c, hacc_data *d, int64_t *total)
{
    int64_t n = o.particles, before = 0, all = 0;
    MPI_Exscan(&n, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (c->rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    int64_t base = 0;
    for (int v = 0; v < NVARS; v++) {
        d->len[v] = (int)(n * var_size[v]);
        d->off[v] = (MPI_Aint)(base + before * var_size[v]);
        base += all * var_size[v];
    }
    *total = base;
}

/* The memory type covers the 9 arrays by absolute address (used with
 * MPI_BOTTOM); the file type covers the 9 pieces by file offset. */
static void make_types(hacc_data *d, MPI_Datatype *mem, MPI_Datatype *file)
{
    MPI_Aint addr[NVARS];
    MPI_Datatype bytes[NVARS];
    for (int v = 0; v < NVARS; v++) {
        MPI_Get_address(d->arr[v], &addr[v]);
        bytes[v] = MPI_BYTE;
    }
    MPI_Type_create_struct(NVARS, d->len, addr, bytes, mem);
    MPI_Type_create_struct(NVARS, d->len, d->off, bytes, file);
    MPI_Type_commit(mem);
    MPI_Type_commit(file);
}

static void io(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    hacc_data *d = arg;
    MPI_Status st;
    if (o.mode == MODE_STRUCT) {
        MPI_Datatype mem, file;
        make_types(d, &mem, &file);
        fb_mpi_check(c, MPI_File_set_view(fh, 0, MPI_BYTE, file, "native", MPI_INFO_NULL), "MPI_File_set_view",
                     c->path);
        int rc = write ? MPI_File_write_all(fh, MPI_BOTTOM, 1, mem, &st) : MPI_File_read_all(fh, MPI_BOTTOM, 1, mem, &st);
        fb_mpi_check(c, rc, write ? "MPI_File_write_all" : "MPI_File_read_all", c->path);
        fb_check_count(c, &st, mem, 1, write ? "the checkpoint write" : "the checkpoint read");
        MPI_Type_free(&mem);
        MPI_Type_free(&file);
        return;
    }
    for (int v = 0; v < NVARS; v++) {
        int rc = write ? MPI_File_write_at_all(fh, d->off[v], d->arr[v], d->len[v], MPI_BYTE, &st)
                       : MPI_File_read_at_all(fh, d->off[v], d->arr[v], d->len[v], MPI_BYTE, &st);
        fb_mpi_check(c, rc, write ? "MPI_File_write_at_all" : "MPI_File_read_at_all", c->path);
        fb_check_count(c, &st, MPI_BYTE, d->len[v], var_name[v]);
    }
}

static void run(fb_ctx *c, int rep)
{
    hacc_data d;
    int64_t total;
    layout(c, &d, &total);
    uint64_t seed = fb_seed("hacc", rep, 0);
    for (int v = 0; v < NVARS; v++) {
        d.arr[v] = fb_alloc(c, (size_t)d.len[v]);
        fb_fill(d.arr[v], d.off[v], (size_t)d.len[v], seed);
    }
    c->bytes_w = c->bytes_r = total;

    fb_remove(c, c->path);
    fb_pass(c, MPI_MODE_CREATE | MPI_MODE_RDWR, 1, NULL, io, &d);
    fb_corrupt(c, c->path, d.off[0] + d.len[0] / 2);

    for (int v = 0; v < NVARS; v++)
        memset(d.arr[v], 0xa5, (size_t)d.len[v]);
    fb_pass(c, MPI_MODE_RDONLY, 0, NULL, io, &d);
    for (int v = 0; v < NVARS; v++) {
        char where[4200];
        snprintf(where, sizeof where, "%s (variable %s)", c->path, var_name[v]);
        fb_check(&c->v, d.arr[v], d.off[v], (size_t)d.len[v], seed, where);
        free(d.arr[v]);
    }
    fb_check_file(c, c->path, total, seed, 1);
    fb_discard(c, c->path);
}

const fb_pattern fb_pat_hacc = {
    .name = "hacc",
    .summary = "HACC-IO checkpoint: 9 variables per particle, variable-major across ranks",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
