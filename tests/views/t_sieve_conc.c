/*
 * Concurrent sieved writes: every rank writes small interleaved pieces at
 * once, each sieving window of one rank covering pieces of all the others.
 * Read-modify-write without the window lock would write back another rank's
 * stale bytes; no byte may be lost, round after round.
 *   phase "interleaved": 4-byte pieces, rank r at 4r of every 4P bytes,
 *       sieving forced, small windows.
 *   phase "mixed": rank 0 writes 12 KiB pieces (direct under ferry's
 *       automatic rule with ferry_ds_threshold=8192), the others 4-byte
 *       pieces in the gaps between them, sieved in 64 KiB windows that reach
 *       over rank 0's pieces: rank 0's direct writes must wait for them.
 *   phase "mixed_contig": the same, rank 0 writing each piece by itself
 *       (contiguous writes that take no lock under ferry: no write window
 *       may span a hole that could hold one).
 */
#include "mpi/tutil.h"

enum { ROUNDS = 12, PIECES = 3000, BIG = 12288, SMALLS = 128 };

static unsigned char val(int rank, int round, int64_t i) { return (unsigned char)(rank * 61 + round * 7 + i * 3 + 1); }

static MPI_File open_with(const char *name, const char *ds, const char *wbuf, const char *threshold)
{
    char path[600];
    t_path(path, sizeof path, name);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", ds);
    MPI_Info_set(info, "ind_wr_buffer_size", wbuf);
    MPI_Info_set(info, "ferry_ds_threshold", threshold);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    EXPECT(rc == MPI_SUCCESS, "open %s", name);
    return fh;
}

static void check(MPI_File fh, const char *what, int64_t size, int (*owner)(int64_t, int64_t *), int round)
{
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    unsigned char *b = malloc((size_t)size);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, b, (int)size, MPI_BYTE, MPI_STATUS_IGNORE);
    int64_t lost = 0, first = -1;
    for (int64_t i = 0; i < size; i++) {
        int64_t k;
        int r = owner(i, &k);
        if (r >= 0 && b[i] != val(r, round, k)) {
            lost++;
            if (first < 0)
                first = i;
        }
    }
    EXPECT(lost == 0, "%s round %d: %lld bytes lost, first at %lld", what, round, (long long)lost, (long long)first);
    free(b);
}

/* interleaved: byte i belongs to rank (i/4)%P, as its data byte k */
static int owner_inter(int64_t i, int64_t *k)
{
    int64_t piece = i / 4;
    *k = (piece / t_size) * 4 + i % 4;
    return (int)(piece % t_size);
}

static void interleaved(void)
{
    MPI_File fh = open_with("sieve_interleaved.dat", "enable", "4096", "65536");
    MPI_Datatype v, ft;
    MPI_Type_vector(PIECES, 4, 4 * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)PIECES * 4 * t_size, &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = malloc(PIECES * 4);
    for (int round = 0; round < ROUNDS; round++) {
        for (int64_t k = 0; k < PIECES * 4; k++)
            buf[k] = val(t_rank, round, k);
        MPI_File_set_view(fh, 4 * t_rank, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD); /* start together: the windows race */
        int rc = MPI_File_write_at(fh, 0, buf, PIECES * 4, MPI_BYTE, MPI_STATUS_IGNORE);
        EXPECT(rc == MPI_SUCCESS, "interleaved write %s", t_class_name(rc));
        if (round == 0 || round == ROUNDS - 1)
            check(fh, "interleaved", (int64_t)PIECES * 4 * t_size, owner_inter, round);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    }
    t_report("interleaved rounds=%d", ROUNDS);
    MPI_Type_free(&v);
    MPI_Type_free(&ft);
    free(buf);
    MPI_File_close(&fh);
}

/* mixed: each period is rank 0's BIG bytes, then SMALLS 4-byte pieces per other rank */
static int64_t period(void) { return BIG + (int64_t)SMALLS * 4 * (t_size - 1); }
static int owner_mixed(int64_t i, int64_t *k)
{
    int64_t p = i / period(), o = i % period();
    if (o < BIG) {
        *k = p * BIG + o;
        return 0;
    }
    int64_t piece = (o - BIG) / 4;
    *k = (p * SMALLS + piece / (t_size - 1)) * 4 + (o - BIG) % 4;
    return 1 + (int)(piece % (t_size - 1));
}

static void mixed(int piecewise)
{
    MPI_File fh = open_with(piecewise ? "sieve_mixed_contig.dat" : "sieve_mixed.dat", "automatic", "65536", "8192");
    enum { PERIODS = 6 };
    MPI_Datatype v, ft;
    int64_t n;
    MPI_Offset disp;
    if (t_rank == 0) {
        MPI_Type_vector(PERIODS, BIG, (int)period(), MPI_BYTE, &v);
        n = (int64_t)PERIODS * BIG;
        disp = 0;
    } else {
        MPI_Type_vector(PERIODS * SMALLS, 4, 4 * (t_size - 1), MPI_BYTE, &v);
        /* one period's small pieces are contiguous in the stride pattern; periods jump */
        MPI_Datatype one, two;
        MPI_Type_vector(SMALLS, 4, 4 * (t_size - 1), MPI_BYTE, &one);
        MPI_Type_create_resized(one, 0, period(), &two);
        MPI_Type_free(&v);
        MPI_Type_contiguous(PERIODS, two, &v);
        MPI_Type_free(&one);
        MPI_Type_free(&two);
        n = (int64_t)PERIODS * SMALLS * 4;
        disp = BIG + 4 * (t_rank - 1);
    }
    MPI_Type_create_resized(v, 0, (MPI_Aint)PERIODS * period(), &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = malloc((size_t)n);
    for (int round = 0; round < ROUNDS; round++) {
        for (int64_t k = 0; k < n; k++)
            buf[k] = val(t_rank, round, k);
        MPI_File_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        int rc = MPI_SUCCESS;
        if (piecewise && t_rank == 0)
            for (int p = PERIODS - 1; p >= 0 && rc == MPI_SUCCESS; p--) /* meet the windows midway */
                rc = MPI_File_write_at(fh, (MPI_Offset)p * BIG, buf + p * BIG, BIG, MPI_BYTE, MPI_STATUS_IGNORE);
        else
            rc = MPI_File_write_at(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
        EXPECT(rc == MPI_SUCCESS, "mixed write %s", t_class_name(rc));
        if (round == 0 || round == ROUNDS - 1)
            check(fh, piecewise ? "mixed_contig" : "mixed", PERIODS * period(), owner_mixed, round);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    }
    t_report("%s rounds=%d", piecewise ? "mixed_contig" : "mixed", ROUNDS);
    MPI_Type_free(&v);
    MPI_Type_free(&ft);
    free(buf);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    interleaved();
    if (t_size > 1) {
        mixed(0);
        mixed(1);
    }
    return t_finish("t_sieve_conc");
}
