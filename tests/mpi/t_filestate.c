/*
 * What every rank must see alike of one file, with ranks on different nodes
 * (each node its own file-system client) as well as on one host:
 *
 *   shared  the shared file pointer: write_shared and iwrite_shared put
 *           every record in the file exactly once, read_shared and
 *           iread_shared hand every record to exactly one rank,
 *           write_ordered / read_ordered (and their split forms) go in rank
 *           order, seek_shared and get_position_shared agree on every rank;
 *   size    MPI_File_get_size on every rank after set_size (shrinking and
 *           growing), preallocate, other nodes' writes with and without
 *           sync, and in atomic mode; the bytes where the size moved are
 *           read back on another node;
 *   small   a file small enough for a client to cache it whole: a rank on
 *           another node rewrites it, and after sync-barrier-sync (or a
 *           barrier in atomic mode) every rank reads the new bytes;
 *   state   the rest of the per-file state: individual pointers and
 *           get_byte_offset after set_view, get_info after set_info, the
 *           atomicity flag.
 *
 *   t_filestate [-r repetitions] [-c shared,size,small,state] [-s strategy,...]
 *
 * A fresh file every repetition. -s names ferry strategies given to each
 * open as hints (tutil.h). Under ferry every miscount fails the test;
 * natively the counts are information (the natives do not keep these rules
 * on every file system).
 */
#include "tutil.h"

#include <stdint.h>

enum { K = 12, REC_INTS = 4, REC = REC_INTS * 4, DISP = 64 };

typedef struct {
    long long lost, dup, bad, wrong_pos, wrong_order, wrong_size, stale, errors, checks;
} tally;

static int nodes, ppn, rep;
static const char *strategy = "auto";

static void count_error(tally *t, int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    t->errors++;
    if (getenv("T_FILESTATE_DEBUG")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "r%d rep %d: %s: %s\n", t_rank, rep, what, msg);
    }
}

static void say(const char *fmt, long long a, long long b)
{
    if (getenv("T_FILESTATE_DEBUG")) {
        fprintf(stderr, "r%d rep %d: ", t_rank, rep);
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
}

static int reopen_file(const char *path, MPI_File *fh)
{
    MPI_Info info = t_strategy_info(strategy);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, fh);
    MPI_Info_free(&info);
    return rc;
}

static int open_file(const char *path, MPI_File *fh)
{
    t_fresh(path);
    return reopen_file(path, fh);
}

/* a failed sync counts: what follows it is not promised */
static void sync_barrier_sync(MPI_File fh, tally *t)
{
    count_error(t, MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    count_error(t, MPI_File_sync(fh), "sync");
}

/* ---- shared ---- */

/* A record names its writer, its number and the repetition, and checks
 * itself. */
static void make_rec(int32_t *r, int writer, int k)
{
    r[0] = writer;
    r[1] = k;
    r[2] = rep;
    r[3] = (int32_t)(0x5eed1234u ^ (uint32_t)writer * 2654435761u ^ (uint32_t)k * 40503u ^ (uint32_t)rep);
}

static int rec_ok(const int32_t *r, int nwriters, int nk)
{
    if (r[0] < 0 || r[0] >= nwriters || r[1] < 0 || r[1] >= nk || r[2] != rep)
        return 0;
    int32_t want[REC_INTS];
    make_rec(want, r[0], r[1]);
    return want[3] == r[3];
}

/* Counts over n records: each of nwriters x nk must be there exactly once. */
static void census(const int32_t *recs, long long n, int nwriters, int nk, tally *t)
{
    long long total = (long long)nwriters * nk;
    int *seen = calloc((size_t)total, sizeof *seen);
    for (long long i = 0; i < n; i++) {
        const int32_t *r = recs + i * REC_INTS;
        if (!rec_ok(r, nwriters, nk)) {
            t->bad++;
            continue;
        }
        if (seen[(long long)r[0] * nk + r[1]]++)
            t->dup++;
    }
    for (long long i = 0; i < total; i++)
        t->lost += !seen[i];
    t->checks += total;
    free(seen);
}

/* Every rank's shared position must be `want` (in etypes: ints). */
static void check_position(MPI_File fh, long long want, tally *t, const char *when)
{
    MPI_Offset pos = -1;
    count_error(t, MPI_File_get_position_shared(fh, &pos), "get_position_shared");
    t->checks++;
    if (pos != want) {
        t->wrong_pos++;
        say(when, (long long)pos, want);
    }
}

/* Every rank reads [from, from + n records) and checks it holds each record
 * of nwriters x nk exactly once. */
static void check_region(MPI_File fh, long long from, long long n, int nwriters, int nk, tally *t)
{
    int32_t *all = calloc((size_t)n, REC);
    MPI_Status st;
    int got = 0;
    int rc = MPI_File_read_at(fh, from, all, (int)(n * REC_INTS), MPI_INT, &st);
    count_error(t, rc, "read_at of the shared region");
    if (rc == MPI_SUCCESS)
        MPI_Get_count(&st, MPI_INT, &got);
    census(all, got / REC_INTS, nwriters, nk, t);
    free(all);
}

static void shared_case(const char *path, tally *t)
{
    MPI_File fh;
    int rc = open_file(path, &fh);
    count_error(t, rc, "open");
    if (rc != MPI_SUCCESS)
        return;
    /* a view with a displacement and int etypes: positions count ints */
    MPI_File_set_view(fh, DISP, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int32_t rec[2 * REC_INTS];
    MPI_Status st;
    long long n = (long long)t_size * K;

    /* independent shared writes, one or two records a call, some nonblocking */
    for (int k = 0; k < K;) {
        int two = k % 5 == 1 && k + 1 < K;
        make_rec(rec, t_rank, k);
        if (two)
            make_rec(rec + REC_INTS, t_rank, k + 1);
        if (k % 3 == 2) {
            MPI_Request q;
            rc = MPI_File_iwrite_shared(fh, rec, REC_INTS * (1 + two), MPI_INT, &q);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&q, &st);
        } else {
            rc = MPI_File_write_shared(fh, rec, REC_INTS * (1 + two), MPI_INT, &st);
        }
        count_error(t, rc, "write_shared");
        k += 1 + two;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_position(fh, n * REC_INTS, t, "shared position %lld after write_shared, want %lld");
    sync_barrier_sync(fh, t);
    check_region(fh, 0, n, t_size, K, t);

    /* independent shared reads: every record to exactly one rank */
    count_error(t, MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    int32_t *mine = calloc(K, REC);
    for (int k = 0; k < K; k++) {
        if (k % 4 == 3) {
            MPI_Request q;
            rc = MPI_File_iread_shared(fh, mine + k * REC_INTS, REC_INTS, MPI_INT, &q);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&q, &st);
        } else {
            rc = MPI_File_read_shared(fh, mine + k * REC_INTS, REC_INTS, MPI_INT, &st);
        }
        count_error(t, rc, "read_shared");
    }
    int32_t *got = t_rank == 0 ? calloc((size_t)n, REC) : NULL;
    MPI_Gather(mine, K * REC_INTS, MPI_INT, got, K * REC_INTS, MPI_INT, 0, MPI_COMM_WORLD);
    if (t_rank == 0)
        census(got, n, t_size, K, t);
    free(got);
    free(mine);
    MPI_Barrier(MPI_COMM_WORLD);
    check_position(fh, n * REC_INTS, t, "shared position %lld after read_shared, want %lld");

    /* ordered writes from the end: rank r writes r % 3 + 1 records, then one
     * more through the split form */
    count_error(t, MPI_File_seek_shared(fh, 0, MPI_SEEK_END), "seek_shared to the end");
    check_position(fh, n * REC_INTS, t, "shared position %lld at the end, want %lld");
    int own = t_rank % 3 + 1, total = 0;
    for (int r = 0; r < t_size; r++)
        total += r % 3 + 1;
    int32_t *ord = calloc((size_t)own + 1, REC);
    for (int j = 0; j < own; j++)
        make_rec(ord + j * REC_INTS, t_rank, 100 + j);
    make_rec(ord + own * REC_INTS, t_rank, 200);
    count_error(t, MPI_File_write_ordered(fh, ord, own * REC_INTS, MPI_INT, &st), "write_ordered");
    rc = MPI_File_write_ordered_begin(fh, ord + own * REC_INTS, REC_INTS, MPI_INT);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_write_ordered_end(fh, ord + own * REC_INTS, &st);
    count_error(t, rc, "write_ordered_begin/end");
    long long ord_at = n * REC_INTS, end = ord_at + (long long)(total + t_size) * REC_INTS;
    check_position(fh, end, t, "shared position %lld after write_ordered, want %lld");
    sync_barrier_sync(fh, t);
    /* every rank checks the whole ordered region: rank order, nothing else */
    int32_t *region = calloc((size_t)total + t_size, REC);
    rc = MPI_File_read_at(fh, ord_at, region, (total + t_size) * REC_INTS, MPI_INT, &st);
    count_error(t, rc, "read_at of the ordered region");
    for (int r = 0, at = 0; r < t_size; r++)
        for (int j = 0; j < r % 3 + 1; j++, at++) {
            int32_t want[REC_INTS];
            make_rec(want, r, 100 + j);
            t->checks++;
            t->wrong_order += memcmp(want, region + at * REC_INTS, REC) != 0;
        }
    for (int r = 0; r < t_size; r++) {
        int32_t want[REC_INTS];
        make_rec(want, r, 200);
        t->checks++;
        t->wrong_order += memcmp(want, region + (total + r) * REC_INTS, REC) != 0;
    }
    free(region);

    /* ordered reads give each rank back what it wrote */
    count_error(t, MPI_File_seek_shared(fh, ord_at, MPI_SEEK_SET), "seek_shared");
    int32_t *back = calloc((size_t)own + 1, REC);
    count_error(t, MPI_File_read_ordered(fh, back, own * REC_INTS, MPI_INT, &st), "read_ordered");
    rc = MPI_File_read_ordered_begin(fh, back + own * REC_INTS, REC_INTS, MPI_INT);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_read_ordered_end(fh, back + own * REC_INTS, &st);
    count_error(t, rc, "read_ordered_begin/end");
    t->checks += 2;
    t->wrong_order += memcmp(back, ord, (size_t)own * REC) != 0;
    /* the split read continues in the tail, where every rank's record 200
     * follows in rank order */
    int32_t want200[REC_INTS];
    make_rec(want200, t_rank, 200);
    t->wrong_order += memcmp(back + own * REC_INTS, want200, REC) != 0;
    free(back);
    free(ord);
    check_position(fh, end, t, "shared position %lld after read_ordered, want %lld");

    /* relative seeks agree on every rank */
    count_error(t, MPI_File_seek_shared(fh, -REC_INTS, MPI_SEEK_CUR), "seek_shared back");
    check_position(fh, end - REC_INTS, t, "shared position %lld after a relative seek, want %lld");
    MPI_File_close(&fh);
}

/* ---- size ---- */

static void check_size(MPI_File fh, long long lo, long long hi, tally *t, const char *when)
{
    MPI_Offset have = -1;
    count_error(t, MPI_File_get_size(fh, &have), "get_size");
    t->checks++;
    if (have < lo || have > hi) {
        t->wrong_size++;
        if (getenv("T_FILESTATE_DEBUG"))
            fprintf(stderr, "r%d rep %d: size %lld %s, want %lld..%lld\n", t_rank, rep, (long long)have, when, lo,
                    hi);
    }
}

/* Reads [from, from + len) on the rank `reader` and compares with `want`
 * (NULL: zeros). Every rank calls it. */
static void check_bytes(MPI_File fh, int reader, long long from, long long len, const unsigned char *want, tally *t,
                        const char *what)
{
    if (t_rank != reader)
        return;
    unsigned char *buf = malloc((size_t)len + 1);
    memset(buf, 0xee, (size_t)len + 1);
    MPI_Status st;
    int got = 0;
    int rc = MPI_File_read_at(fh, from, buf, (int)len + 1, MPI_BYTE, &st);
    count_error(t, rc, what);
    if (rc == MPI_SUCCESS)
        MPI_Get_count(&st, MPI_BYTE, &got);
    long long bad = 0;
    for (long long i = 0; i < len; i++)
        bad += i >= got || buf[i] != (want ? want[i] : 0);
    t->checks++;
    if (bad) {
        t->stale++;
        if (getenv("T_FILESTATE_DEBUG"))
            fprintf(stderr, "r%d rep %d: %s: %lld bad bytes of %lld at %lld (read %d)\n", t_rank, rep, what, bad,
                    len, from, got);
    }
    free(buf);
}

static void size_case(const char *path, tally *t)
{
    MPI_File fh;
    int rc = open_file(path, &fh);
    count_error(t, rc, "open");
    if (rc != MPI_SUCCESS)
        return;
    enum { PER = 65536 };
    long long full = (long long)t_size * PER;
    unsigned char *buf = malloc(PER);
    for (int i = 0; i < PER; i++)
        buf[i] = t_byte((long long)t_rank * PER + i, rep);
    MPI_Status st;
    int other = (t_rank + ppn) % t_size, last = t_size - 1;

    /* a collective write: without sync a rank sees at least its own writes */
    count_error(t, MPI_File_write_at_all(fh, (MPI_Offset)t_rank * PER, buf, PER, MPI_BYTE, &st), "write_at_all");
    check_size(fh, (long long)(t_rank + 1) * PER, full, t, "after write_at_all, no sync");
    sync_barrier_sync(fh, t);
    check_size(fh, full, full, t, "after write_at_all and sync");

    /* shrink: every rank, at once */
    count_error(t, MPI_File_set_size(fh, 1000), "set_size 1000");
    check_size(fh, 1000, 1000, t, "after set_size(1000)");
    unsigned char first[1000];
    for (int i = 0; i < 1000; i++)
        first[i] = t_byte(i, rep);
    check_bytes(fh, other, 0, 1000, first, t, "the bytes kept by set_size(1000)");

    /* one rank writes past the end: it sees the new size at once, every
     * rank after sync-barrier-sync; the gap reads as zeros elsewhere */
    const unsigned char ten[10] = "0123456789";
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == last)
        count_error(t, MPI_File_write_at(fh, 5000, ten, 10, MPI_BYTE, &st), "write_at 5000");
    if (t_rank == last)
        check_size(fh, 5010, 5010, t, "on the writer, no sync");
    else
        check_size(fh, 1000, 5010, t, "on the others, no sync");
    sync_barrier_sync(fh, t);
    check_size(fh, 5010, 5010, t, "after another node's write and sync");
    check_bytes(fh, 0, 1000, 4000, NULL, t, "the gap below another node's write");
    check_bytes(fh, 0, 5000, 10, ten, t, "another node's write past the end");

    /* grow: zeros up to the new size on every node */
    count_error(t, MPI_File_set_size(fh, 200000), "set_size 200000");
    check_size(fh, 200000, 200000, t, "after set_size(200000)");
    check_bytes(fh, other, 5010, 200000 - 5010, NULL, t, "what set_size(200000) added");

    /* preallocate grows, never shrinks */
    count_error(t, MPI_File_preallocate(fh, 300000), "preallocate 300000");
    check_size(fh, 300000, 300000, t, "after preallocate(300000)");
    count_error(t, MPI_File_preallocate(fh, 100), "preallocate 100");
    check_size(fh, 300000, 300000, t, "after preallocate(100)");

    /* shrink below what other nodes wrote and cached, then let one of them
     * write again below the old end */
    count_error(t, MPI_File_set_size(fh, 3000), "set_size 3000");
    check_size(fh, 3000, 3000, t, "after set_size(3000)");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == ppn % t_size)
        count_error(t, MPI_File_write_at(fh, 20000, ten, 10, MPI_BYTE, &st), "write_at 20000");
    sync_barrier_sync(fh, t);
    check_size(fh, 20010, 20010, t, "after set_size(3000) and a write to 20010");
    /* rank 0's node cached what it wrote there before the cut */
    check_bytes(fh, 0, 3000, 17000, NULL, t, "between the cut and another node's write");
    check_bytes(fh, 0, 20000, 10, ten, t, "another node's write past the cut");

    /* atomic mode: a completed write is seen after a barrier, no sync */
    count_error(t, MPI_File_set_atomicity(fh, 1), "set_atomicity");
    if (t_rank == 1 % t_size)
        count_error(t, MPI_File_write_at(fh, 40000, ten, 10, MPI_BYTE, &st), "write_at 40000");
    MPI_Barrier(MPI_COMM_WORLD);
    check_size(fh, 40010, 40010, t, "in atomic mode after another node's write");
    check_bytes(fh, (1 + ppn) % t_size, 40000, 10, ten, t, "atomic mode: another node's write");
    count_error(t, MPI_File_set_size(fh, 500), "set_size 500 (atomic)");
    check_size(fh, 500, 500, t, "in atomic mode after set_size(500)");
    MPI_File_close(&fh);
    free(buf);
}

/* ---- small ---- */

static void small_case(const char *path, tally *t, int atomic)
{
    MPI_File fh;
    int rc = open_file(path, &fh);
    count_error(t, rc, "open");
    if (rc != MPI_SUCCESS)
        return;
    if (atomic)
        count_error(t, MPI_File_set_atomicity(fh, 1), "set_atomicity");
    enum { SMALL = 4000, ROUNDS = 4 };
    unsigned char buf[SMALL], want[SMALL];
    MPI_Status st;
    for (int r = 0; r < ROUNDS; r++) {
        int writer = (r * ppn + rep) % t_size;
        for (int i = 0; i < SMALL; i++)
            want[i] = t_byte(i, rep * 17 + r + 1);
        /* every node's client reads (and may cache) the old bytes first */
        if (r > 0)
            count_error(t, MPI_File_read_at(fh, 0, buf, SMALL, MPI_BYTE, &st), "read_at before");
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == writer)
            count_error(t, MPI_File_write_at(fh, 0, want, SMALL, MPI_BYTE, &st), "write_at");
        if (atomic)
            MPI_Barrier(MPI_COMM_WORLD);
        else
            sync_barrier_sync(fh, t);
        memset(buf, 0, SMALL);
        int got = 0;
        rc = MPI_File_read_at(fh, 0, buf, SMALL, MPI_BYTE, &st);
        count_error(t, rc, "read_at after");
        if (rc == MPI_SUCCESS)
            MPI_Get_count(&st, MPI_BYTE, &got);
        t->checks++;
        if (got != SMALL || memcmp(buf, want, SMALL)) {
            t->stale++;
            say("small file: stale bytes after round %lld (read %lld)", r, got);
        }
        check_size(fh, SMALL, SMALL, t, "of the small file");
        /* every other round, every node opens the file again: its client
         * looks it up, and may keep its whole content from that */
        if (r % 2 == 0) {
            MPI_File_close(&fh);
            rc = reopen_file(path, &fh);
            count_error(t, rc, "reopen");
            if (rc != MPI_SUCCESS)
                return;
            if (atomic)
                count_error(t, MPI_File_set_atomicity(fh, 1), "set_atomicity");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_File_close(&fh);
}

/* ---- state ---- */

static void state_case(const char *path, tally *t)
{
    MPI_File fh;
    int rc = open_file(path, &fh);
    count_error(t, rc, "open");
    if (rc != MPI_SUCCESS)
        return;
    MPI_Status st;
    int v[8] = {0};
    /* each rank's individual pointer moves on its own */
    count_error(t, MPI_File_write(fh, v, t_rank + 1, MPI_INT, &st), "write");
    MPI_Offset pos = -1, byte = -1;
    MPI_File_get_position(fh, &pos);
    t->checks++;
    t->wrong_pos += pos != (t_rank + 1) * 4;
    /* set_view puts every individual pointer back to 0 in the new view */
    MPI_Datatype ft;
    MPI_Type_vector(1, 2, 2 * t_size, MPI_INT, &ft);
    MPI_Datatype rft;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)2 * t_size * 4, &rft);
    MPI_Type_commit(&rft);
    count_error(t, MPI_File_set_view(fh, 128 + (MPI_Offset)t_rank * 8, MPI_INT, rft, "native", MPI_INFO_NULL),
                "set_view");
    MPI_File_get_position(fh, &pos);
    t->checks++;
    t->wrong_pos += pos != 0;
    /* three ints in: the second block of this rank's tiles */
    count_error(t, MPI_File_seek(fh, 3, MPI_SEEK_SET), "seek");
    MPI_File_get_position(fh, &pos);
    MPI_File_get_byte_offset(fh, pos, &byte);
    t->checks += 2;
    t->wrong_pos += pos != 3;
    t->wrong_pos += byte != 128 + (MPI_Offset)t_rank * 8 + (MPI_Offset)2 * t_size * 4 + 4;
    MPI_Type_free(&ft);
    MPI_Type_free(&rft);

    /* set_info: every rank sees the value in get_info */
    MPI_Info in, out;
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "1048576");
    count_error(t, MPI_File_set_info(fh, in), "set_info");
    MPI_Info_free(&in);
    count_error(t, MPI_File_get_info(fh, &out), "get_info");
    char val[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Info_get(out, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
    MPI_Info_free(&out);
    t->checks++;
    t->bad += !flag || strcmp(val, "1048576");

    /* the atomicity flag, set collectively, on every rank */
    count_error(t, MPI_File_set_atomicity(fh, 1), "set_atomicity");
    int atomic = 0;
    MPI_File_get_atomicity(fh, &atomic);
    t->checks++;
    t->bad += atomic != 1;
    count_error(t, MPI_File_set_atomicity(fh, 0), "set_atomicity 0");
    MPI_File_get_atomicity(fh, &atomic);
    t->checks++;
    t->bad += atomic != 0;
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int reps = 3;
    char cases[64] = "shared,size,small,state", strategies[128] = "auto";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-r"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-c"))
            snprintf(cases, sizeof cases, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            snprintf(strategies, sizeof strategies, "%s", argv[i + 1]);
    }
    t_find_nodes(&nodes, &ppn);
    if (t_rank == 0)
        printf("t_filestate: %d ranks on %d nodes, %d repetitions, %s\n", t_size, nodes, reps,
               t_under_ferry() ? "ferry" : "native");
    char *ssave = NULL;
    for (char *s = strtok_r(strategies, ",", &ssave); s; s = strtok_r(NULL, ",", &ssave)) {
        strategy = s;
        char cbuf[64], *csave = NULL;
        snprintf(cbuf, sizeof cbuf, "%s", cases);
        for (char *c = strtok_r(cbuf, ",", &csave); c; c = strtok_r(NULL, ",", &csave)) {
            tally t = {0}, sum;
            double t0 = MPI_Wtime();
            for (rep = 0; rep < reps; rep++) {
                char path[512], name[128];
                snprintf(name, sizeof name, "filestate-%s-%s.dat", s, c);
                t_path(path, sizeof path, name);
                if (!strcmp(c, "shared"))
                    shared_case(path, &t);
                else if (!strcmp(c, "size"))
                    size_case(path, &t);
                else if (!strcmp(c, "small")) {
                    small_case(path, &t, 0);
                    small_case(path, &t, 1);
                } else if (!strcmp(c, "state"))
                    state_case(path, &t);
                if (t_rank == 0)
                    MPI_File_delete(path, MPI_INFO_NULL);
            }
            MPI_Allreduce(&t, &sum, 9, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (t_rank == 0)
                printf("t_filestate: %-11s %-6s lost %lld, duplicated %lld, bad %lld, wrong positions %lld, "
                       "out of order %lld, wrong sizes %lld, stale %lld, errors %lld of %lld checks (%.1f s)\n",
                       s, c, sum.lost, sum.dup, sum.bad, sum.wrong_pos, sum.wrong_order, sum.wrong_size, sum.stale,
                       sum.errors, sum.checks, MPI_Wtime() - t0);
            EXPECT_STD(sum.lost + sum.dup + sum.bad + sum.wrong_pos + sum.wrong_order + sum.wrong_size + sum.stale +
                               sum.errors ==
                           0,
                       "%s %s: lost, duplicated, stale or wrong", s, c);
            EXPECT(sum.checks > 0, "%s %s: nothing was checked", s, c);
        }
    }
    return t_finish("t_filestate");
}
