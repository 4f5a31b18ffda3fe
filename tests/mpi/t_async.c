/*
 * Nonblocking and split collectives: queued calls keep their order (the
 * individual pointer moves at each start), complete in MPI_Waitall beside
 * point-to-point requests, mix with blocking collectives and set_view on the
 * same file, and give the bytes of the blocking calls.
 *
 * With MPI_THREAD_MULTIPLE a nonblocking collective must not wait for the
 * other ranks at its start: under ferry, rank 0 starts one and only then
 * releases rank 1 into its own start (a library that completes at the start
 * would hang here). T_THREAD=single runs the same at MPI_THREAD_SINGLE.
 * T_UNORDERED=1 skips that check (runs where ferry may complete at the start:
 * FERRY_ASYNC off on some ranks).
 *
 * T_EXPECT_FAIL=<class> (fault-injection runs, ferry only): the first queued
 * write must fail on every rank with that class. T_ARG_ERROR=1 (ferry only):
 * the last rank starts a write with a negative count; it fails there at the
 * start and on every other rank at the wait, with the same class.
 */
#include "tutil.h"

#define BLK 40 /* bytes per rank per stripe */
#define NBLK 512
#define N (BLK * NBLK)

static int threads_multiple;

static void fill(unsigned char *b, long long n, long long base, int salt)
{
    for (long long i = 0; i < n; i++)
        b[i] = t_byte(base + i, salt);
}

static MPI_Datatype stripes(void)
{
    MPI_Datatype ft, ftr;
    MPI_Type_vector(NBLK, BLK, BLK * t_size, MPI_BYTE, &ft);
    MPI_Type_create_resized(ft, 0, (MPI_Aint)BLK * t_size * NBLK, &ftr);
    MPI_Type_commit(&ftr);
    MPI_Type_free(&ft);
    return ftr;
}

static int count_of(MPI_Status *st)
{
    int c = -1;
    MPI_Get_count(st, MPI_BYTE, &c);
    return c;
}

/* Rank 0 starts a collective before rank 1 may start it (see above). */
static void ping_after_start(void)
{
    if (!threads_multiple || !t_under_ferry() || t_size < 2 || getenv("T_UNORDERED"))
        return;
    int token = 7;
    if (t_rank == 0)
        MPI_Send(&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
}

static void pong_before_start(void)
{
    if (!threads_multiple || !t_under_ferry() || t_size < 2 || getenv("T_UNORDERED"))
        return;
    int token = 0;
    if (t_rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT(token == 7, "token");
    }
}

static void ordered_queue(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    MPI_Datatype ft = stripes();
    rc = MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    unsigned char *w = malloc(4 * N), *r = malloc(4 * N);
    fill(w, 4 * N, (long long)t_rank << 24, 3);

    /* three writes queued through the individual pointer, then a ring of
     * point-to-point messages, all completed by one Waitall */
    MPI_Request req[5];
    pong_before_start();
    rc = MPI_File_iwrite_all(fh, w, N / 2, MPI_BYTE, &req[0]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_all 1: %s", t_class_name(rc));
    ping_after_start();
    rc = MPI_File_iwrite_all(fh, w + N / 2, N / 2, MPI_BYTE, &req[1]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_all 2: %s", t_class_name(rc));
    rc = MPI_File_iwrite_all(fh, w + N, N, MPI_BYTE, &req[2]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_all 3: %s", t_class_name(rc));
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    t_report("position after three starts %lld", (long long)pos);
    int out = t_rank, in = -1;
    MPI_Isend(&out, 1, MPI_INT, (t_rank + 1) % t_size, 5, MPI_COMM_WORLD, &req[3]);
    MPI_Irecv(&in, 1, MPI_INT, (t_rank + t_size - 1) % t_size, 5, MPI_COMM_WORLD, &req[4]);
    MPI_Status st[5];
    rc = MPI_Waitall(5, req, st);
    EXPECT(rc == MPI_SUCCESS, "waitall: %s", t_class_name(rc));
    EXPECT(in == (t_rank + t_size - 1) % t_size, "ring message");
    t_report("queued writes %d %d %d", count_of(&st[0]), count_of(&st[1]), count_of(&st[2]));

    /* a queued write, a blocking collective and a split collective on the
     * same file, then a new view while a write is still queued */
    rc = MPI_File_iwrite_at_all(fh, 2 * N, w + 2 * N, N, MPI_BYTE, &req[0]);
    EXPECT(rc == MPI_SUCCESS, "iwrite_at_all: %s", t_class_name(rc));
    rc = MPI_File_write_at_all(fh, 3 * N, w + 3 * N, N / 2, MPI_BYTE, &st[1]);
    EXPECT(rc == MPI_SUCCESS && count_of(&st[1]) == N / 2, "write_at_all between");
    rc = MPI_File_write_at_all_begin(fh, 3 * N + N / 2, w + 3 * N + N / 2, N / 2, MPI_BYTE);
    EXPECT(rc == MPI_SUCCESS, "write_at_all_begin: %s", t_class_name(rc));
    rc = MPI_File_write_at_all_end(fh, w + 3 * N + N / 2, &st[2]);
    EXPECT(rc == MPI_SUCCESS && count_of(&st[2]) == N / 2, "write_at_all_end");
    int flag = 0;
    while (!flag)
        MPI_Test(&req[0], &flag, &st[0]);
    t_report("mixed writes %d %d %d", count_of(&st[0]), count_of(&st[1]), count_of(&st[2]));

    /* read back through a neighbour's view: nonblocking, split, blocking */
    int nb = (t_rank + 1) % t_size;
    rc = MPI_File_iwrite_at_all(fh, 4 * N, w, 0, MPI_BYTE, &req[0]); /* nothing, still collective */
    EXPECT(rc == MPI_SUCCESS, "empty iwrite_at_all");
    rc = MPI_File_set_view(fh, (MPI_Offset)nb * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view with a write queued");
    MPI_Wait(&req[0], &st[0]);
    t_report("empty write %d", count_of(&st[0]));
    memset(r, 0, 4 * N);
    rc = MPI_File_iread_all(fh, r, N, MPI_BYTE, &req[0]);
    rc |= MPI_File_iread_at_all(fh, N, r + N, N, MPI_BYTE, &req[1]);
    rc |= MPI_File_read_at_all_begin(fh, 2 * N, r + 2 * N, N, MPI_BYTE);
    MPI_Status sb;
    rc |= MPI_File_read_at_all_end(fh, r + 2 * N, &sb);
    rc |= MPI_File_read_at_all(fh, 3 * N, r + 3 * N, N, MPI_BYTE, &st[2]);
    rc |= MPI_Waitall(2, req, st);
    EXPECT(rc == MPI_SUCCESS, "reads");
    t_report("reads %d %d %d %d", count_of(&st[0]), count_of(&st[1]), count_of(&sb), count_of(&st[2]));
    fill(w, 4 * N, (long long)nb << 24, 3);
    EXPECT(!memcmp(w, r, 4 * N), "read back the neighbour's bytes");
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(w);
    free(r);
}

/* Fault runs: the first queued write fails on every rank with one class. */
static void failing(const char *path, const char *want_fail, int arg_error)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    unsigned char *w = malloc(N);
    fill(w, N, t_rank, 5);
    MPI_Request req;
    MPI_Status st;
    int bad = arg_error && t_rank == t_size - 1;
    rc = MPI_File_iwrite_at_all(fh, (MPI_Offset)t_rank * N, w, bad ? -1 : N, MPI_BYTE, &req);
    int got = rc;
    if (rc == MPI_SUCCESS)
        got = MPI_Wait(&req, &st);
    EXPECT(!strcmp(t_class_name(got), want_fail), "expected %s on every rank, got %s (%s)", want_fail,
           t_class_name(got), rc == MPI_SUCCESS ? "at the wait" : "at the start");
    if (arg_error) { /* the file stays usable */
        rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * N, w, N, MPI_BYTE, &st);
        EXPECT(rc == MPI_SUCCESS, "write after the failed one: %s", t_class_name(rc));
    }
    MPI_File_close(&fh);
    free(w);
}

int main(int argc, char **argv)
{
    const char *th = getenv("T_THREAD");
    int provided = MPI_THREAD_SINGLE;
    if (th && !strcmp(th, "single"))
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    threads_multiple = provided == MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    /* a failed generalized request reports through the world's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char p[512];
    const char *want_fail = getenv("T_EXPECT_FAIL");
    const char *arg_error = getenv("T_ARG_ERROR");
    if ((want_fail && *want_fail) || arg_error) {
        t_path(p, sizeof p, "async_fail.dat");
        t_fresh(p);
        failing(p, arg_error ? "MPI_ERR_COUNT" : want_fail, arg_error != NULL);
        return t_finish("t_async");
    }
    t_path(p, sizeof p, "async_queue.dat");
    t_fresh(p);
    ordered_queue(p);
    if (t_rank == 0)
        printf("t_async: thread level %s\n", threads_multiple ? "multiple" : "below multiple");
    return t_finish("t_async");
}
