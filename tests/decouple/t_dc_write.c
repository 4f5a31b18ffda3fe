/*
 * Decoupled writes: handed over and returned at once (the buffer is
 * scribbled on right after each call), written asynchronously by the data
 * processes, complete after close. Interleaved view, odd calls transformed
 * by a user operation (negation), some through iwrite, one from a strided
 * memory type; a read in the same session sees the writes before it; the
 * file is then checked element by element through MPI_File_read.
 */
#include "dtest.h"

#define B 100          /* view block, elements */
#define PER 250        /* elements per write call */
#define CALLS 400

static int negate(void *state, void *elems, MPI_Count n, MPI_Datatype type)
{
    (void)state;
    if (type != MPI_INT32_T)
        return MPI_ERR_TYPE;
    int32_t *x = elems;
    for (MPI_Count i = 0; i < n; i++)
        x[i] = -x[i];
    return MPI_SUCCESS;
}

static int32_t expect(int owner, int64_t idx)
{
    int32_t v = owner * 1000000 + (int32_t)idx;
    return (idx / PER) % 2 ? -v : v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ferry_op neg;
    ferry_op_register("negate", negate, NULL, 0, &neg);
    MPI_Comm comm;
    if (!d_start(&comm))
        return 0;
    char path[512];
    d_path(path, sizeof path, argc > 1 ? argv[1] : "dcwrite.dat");
    if (d_rank == 0)
        remove(path);
    MPI_Barrier(comm);

    ferry_dfile d;
    MPI_Info info; /* hints travel to the data processes' opens */
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    int rc = ferry_decouple_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &d);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "open: %s", d_class_name(rc));
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_INT32_T, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)B * 4 * d_size, &ft);
    MPI_Type_commit(&ft);
    rc = ferry_decouple_set_view(d, (MPI_Offset)d_rank * B * 4, MPI_INT32_T, ft, "native", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "set_view: %s", d_class_name(rc));

    int32_t *buf = malloc(2 * PER * sizeof *buf);
    MPI_Datatype every_other;
    MPI_Type_vector(PER, 1, 2, MPI_INT32_T, &every_other);
    MPI_Type_commit(&every_other);
    int64_t plain = 0;
    for (int c = 0; c < CALLS; c++) {
        ferry_op op = c % 2 ? neg : FERRY_OP_NULL;
        MPI_Status st;
        if (c == 12) {
            /* strided in memory: the values sit at even positions (one
             * element of 1000 bytes as far as an operation is concerned) */
            for (int i = 0; i < PER; i++) {
                buf[2 * i] = d_rank * 1000000 + c * PER + i;
                buf[2 * i + 1] = -7;
            }
            rc = ferry_decouple_write(d, buf, 1, every_other, op, &st);
        } else {
            for (int i = 0; i < PER; i++)
                buf[i] = d_rank * 1000000 + c * PER + i;
            if (c % 7 == 3) {
                MPI_Request r;
                rc = ferry_decouple_iwrite(d, buf, PER, MPI_INT32_T, op, &r);
                MPI_Wait(&r, &st);
            } else {
                rc = ferry_decouple_write(d, buf, PER, MPI_INT32_T, op, &st);
            }
        }
        CHECK(rc == MPI_SUCCESS, "write %d: %s", c, d_class_name(rc));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT32_T, &cnt);
        CHECK(cnt == PER, "write %d: status says %d elements", c, cnt);
        memset(buf, 0xFF, 2 * PER * sizeof *buf); /* handed over: ours again */
        if (c % 2 == 0)
            for (int i = 0; i < PER; i++)
                plain += d_rank * 1000000 + c * PER + i;
            else
                for (int i = 0; i < PER; i++)
                    plain -= d_rank * 1000000 + c * PER + i;
    }
    /* the same session reads what it wrote, in order */
    MPI_Offset pos;
    ferry_decouple_get_position(d, &pos);
    CHECK(pos == (MPI_Offset)CALLS * PER, "pointer %lld after the writes", (long long)pos);
    ferry_decouple_seek(d, 0, MPI_SEEK_SET);
    int64_t sum = 0;
    rc = ferry_decouple_read(d, &sum, (MPI_Count)CALLS * PER, MPI_INT32_T, FERRY_OP_SUM, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && sum == plain, "read after write: sum %lld, wrote %lld (%s)", (long long)sum,
          (long long)plain, d_class_name(rc));
    MPI_Barrier(comm); /* every rank's writes are in before anyone asks for the end */
    rc = ferry_decouple_sync(d);
    CHECK(rc == MPI_SUCCESS, "sync: %s", d_class_name(rc));
    rc = ferry_decouple_seek(d, 0, MPI_SEEK_END);
    ferry_decouple_get_position(d, &pos);
    CHECK(rc == MPI_SUCCESS && pos == (MPI_Offset)CALLS * PER, "end of file at %lld etypes under the view",
          (long long)pos);
    rc = ferry_decouple_close(&d);
    CHECK(rc == MPI_SUCCESS, "close: %s", d_class_name(rc));

    /* traditional check of every element */
    int64_t total = (int64_t)CALLS * PER * d_size;
    if (d_rank == 0) {
        MPI_File fh;
        rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_Offset size = 0;
        MPI_File_get_size(fh, &size);
        CHECK(size == total * 4, "file has %lld bytes, expected %lld", (long long)size, (long long)total * 4);
        int32_t *all = malloc((size_t)total * sizeof *all);
        MPI_File_read(fh, all, (int)total, MPI_INT32_T, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        int64_t bad = 0;
        for (int64_t g = 0; g < total; g++) {
            int64_t blockno = g / B;
            int owner = (int)(blockno % d_size);
            int64_t idx = (blockno / d_size) * B + g % B;
            if (all[g] != expect(owner, idx) && bad++ < 5)
                fprintf(stderr, "element %lld: %d, expected %d\n", (long long)g, all[g], expect(owner, idx));
        }
        CHECK(bad == 0, "%lld elements differ", (long long)bad);
        free(all);
    }
    int fails = 0;
    MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
    int64_t got = 0, sent = 0;
    ferry_decouple_traffic(&got, &sent);
    if (d_rank == 0)
        printf("t_dc_write: %s (%lld bytes handed over by rank 0)\n", fails ? "FAILED" : "passed", (long long)sent);
    MPI_Type_free(&every_other);
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
    free(buf);
    MPI_Finalize();
    return fails != 0;
}
