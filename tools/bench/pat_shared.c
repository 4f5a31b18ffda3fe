/*
 * shared: records appended through the shared file pointer, as logs and
 * checkpoint libraries that append write them. Every rank writes -n records
 * of -t bytes with MPI_File_write_shared, then the file is opened again and
 * every rank reads -n records back with MPI_File_read_shared. A record
 * begins with its writer and its number, and its other bytes are a function
 * of both, so wherever it landed and whoever read it, every record is
 * checked, and rank 0 counts each one exactly once (a lost or a duplicated
 * record counts as a mismatched byte).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

struct shared_opts {
    int64_t rec;
    int records;
};
static const struct shared_opts defaults = {.rec = 64, .records = 1000};
static struct shared_opts o;

static const fb_opt opts[] = {
    {"-t", "record", FB_SIZE, &o.rec, "bytes per record (default 64, at least 16)", NULL},
    {"-n", "records", FB_INT, &o.records, "records per rank (default 1000)", NULL},
    {0},
};

static const char *check(fb_ctx *c)
{
    (void)c;
    return o.rec < 16          ? "-t must be at least 16 bytes (a record names its writer and number)"
           : o.rec > (1 << 20) ? "-t must be at most 1 MiB"
           : o.records < 1     ? "-n must be at least 1"
                               : NULL;
}

/* A record's bytes: writer and number, then what they seed. */
static void make(unsigned char *r, int rep, int64_t writer, int64_t k)
{
    memcpy(r, &writer, 8);
    memcpy(r + 8, &k, 8);
    fb_fill(r + 16, k * o.rec + 16, (size_t)o.rec - 16, fb_seed("shared", rep, writer));
}

typedef struct {
    unsigned char *buf; /* the records written one at a time, or all read back */
    int rep;
} shared_pass;

/* This rank's records through the shared file pointer. */
static void records(fb_ctx *c, MPI_File fh, int write, void *arg)
{
    shared_pass *p = arg;
    MPI_Status st;
    for (int k = 0; k < o.records; k++) {
        if (write) {
            make(p->buf, p->rep, c->rank, k);
            fb_mpi_check(c, MPI_File_write_shared(fh, p->buf, (int)o.rec, MPI_BYTE, &st), "MPI_File_write_shared",
                         c->path);
        } else
            fb_mpi_check(c, MPI_File_read_shared(fh, p->buf + k * o.rec, (int)o.rec, MPI_BYTE, &st),
                         "MPI_File_read_shared", c->path);
        fb_check_count(c, &st, MPI_BYTE, o.rec, write ? "a shared write" : "a shared read");
    }
}

static void run(fb_ctx *c, int rep)
{
    unsigned char *buf = fb_alloc(c, (size_t)o.rec * o.records);
    shared_pass pass = {buf, rep};
    c->bytes_w = c->bytes_r = o.rec * o.records * (int64_t)c->size;
    fb_remove(c, c->path);

    fb_pass(c, MPI_MODE_CREATE | MPI_MODE_WRONLY, 1, NULL, records, &pass);
    fb_corrupt(c, c->path, o.rec / 2 + 8);

    memset(buf, 0xa5, (size_t)o.rec * o.records);
    fb_pass(c, MPI_MODE_RDONLY, 0, NULL, records, &pass);

    /* each record against what its header says it is; the headers to rank 0 */
    int64_t *ids = malloc(sizeof *ids * 2 * (size_t)o.records);
    unsigned char *want = fb_alloc(c, (size_t)o.rec);
    for (int k = 0; k < o.records; k++) {
        unsigned char *r = buf + k * o.rec;
        int64_t writer, n;
        memcpy(&writer, r, 8);
        memcpy(&n, r + 8, 8);
        ids[2 * k] = writer;
        ids[2 * k + 1] = n;
        if (writer < 0 || writer >= c->size || n < 0 || n >= o.records)
            writer = n = -1; /* a header no writer made: the whole record is wrong */
        if (writer < 0)
            memset(want, 0, (size_t)o.rec), want[0] = (unsigned char)~r[0];
        else
            make(want, rep, writer, n);
        fb_check_bytes(&c->v, r, want, k * o.rec, (size_t)o.rec, c->path);
    }
    int64_t *all = c->rank == 0 ? malloc(sizeof *all * 2 * (size_t)o.records * c->size) : NULL;
    MPI_Gather(ids, 2 * o.records, MPI_INT64_T, all, 2 * o.records, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (c->rank == 0) {
        int64_t total = (int64_t)o.records * c->size, off = 0;
        unsigned char *seen = calloc((size_t)total, 1);
        for (int64_t i = 0; i < total; i++) {
            int64_t w = all[2 * i], n = all[2 * i + 1];
            if (w >= 0 && w < c->size && n >= 0 && n < o.records && !seen[w * o.records + n]++)
                continue;
            /* a duplicate (or a record already counted wrong above) */
            fb_check_bytes(&c->v, "x", "y", off++, 1, "a record read twice");
        }
        for (int64_t i = 0; i < total; i++)
            if (!seen[i])
                fb_check_bytes(&c->v, "x", "y", off++, 1, "a record nobody read");
        free(seen);
    }
    free(all);
    free(ids);
    free(want);
    fb_discard(c, c->path);
    free(buf);
}

const fb_pattern fb_pat_shared = {
    .name = "shared",
    .summary = "records appended through the shared file pointer (write_shared), read back with read_shared; "
               "every record checked, each exactly once",
    FB_PATTERN_RUN(opts, o, defaults, check, run),
};
