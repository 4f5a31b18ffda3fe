/*
 * MPI-IO from several threads of each rank at MPI_THREAD_MULTIPLE:
 *   files  every thread opens a file of its own (collectively, over a
 *          duplicate of MPI_COMM_WORLD made for it), writes its part with
 *          independent and collective calls, reads it back and closes it;
 *   shared every thread of every rank writes its own region of one file
 *          (opened once over MPI_COMM_WORLD) with independent calls, then
 *          reads another thread's region back after sync-barrier-sync.
 * Every byte is checked; a deadlock is the test's time limit.
 *
 *   t_threads [-t threads] [-r repetitions] [-c files,shared] [-n bytes]
 *
 * Where the MPI library gives less than MPI_THREAD_MULTIPLE the program
 * says so and passes (nothing to test there).
 */
#include "tutil.h"

#include <pthread.h>

static int nthreads = 4, reps = 3;
static long long piece = 65536;
static MPI_Comm *comms;
static MPI_File shared_fh;
static int rep;
static int bad_bytes, errors;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int bad, int err)
{
    pthread_mutex_lock(&count_lock);
    bad_bytes += bad;
    errors += err;
    pthread_mutex_unlock(&count_lock);
}

static unsigned char byte_for(long long off, int salt)
{
    return t_byte(off, salt * 7919 + rep);
}

static int check(const unsigned char *buf, long long off, long long n, int salt)
{
    int bad = 0;
    for (long long i = 0; i < n; i++)
        bad += buf[i] != byte_for(off + i, salt);
    return bad;
}

/* A file of the thread's own: independent writes of the first half, a
 * collective write of the second, both read back. */
static void *own_file(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm comm = comms[t];
    char path[512], name[64];
    snprintf(name, sizeof name, "threads-%d.dat", t);
    t_path(path, sizeof path, name);
    MPI_File fh;
    int err = 0, bad = 0;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                           &fh);
    if (rc != MPI_SUCCESS) {
        count(0, 1);
        return NULL;
    }
    long long half = piece / 2, base = (long long)t_rank * piece;
    unsigned char *buf = malloc((size_t)piece), *back = malloc((size_t)piece);
    for (long long i = 0; i < piece; i++)
        buf[i] = byte_for(base + i, t);
    MPI_Status st;
    err += MPI_File_write_at(fh, base, buf, (int)half, MPI_BYTE, &st) != MPI_SUCCESS;
    err += MPI_File_write_at_all(fh, base + half, buf + half, (int)(piece - half), MPI_BYTE, &st) != MPI_SUCCESS;
    memset(back, 0, (size_t)piece);
    err += MPI_File_read_at_all(fh, base, back, (int)piece, MPI_BYTE, &st) != MPI_SUCCESS;
    bad += check(back, base, piece, t);
    err += MPI_File_close(&fh) != MPI_SUCCESS;
    free(buf);
    free(back);
    count(bad, err);
    return NULL;
}

/* Thread t of rank r owns region r * nthreads + t of the shared file. */
static void *shared_write(void *arg)
{
    int t = (int)(long)arg, region = t_rank * nthreads + t;
    unsigned char *buf = malloc((size_t)piece);
    for (long long i = 0; i < piece; i++)
        buf[i] = byte_for((long long)region * piece + i, 0);
    MPI_Status st;
    /* in four calls, to interleave with the other threads */
    int err = 0;
    for (int k = 0; k < 4; k++) {
        long long at = (long long)region * piece + k * (piece / 4);
        err += MPI_File_write_at(shared_fh, at, buf + k * (piece / 4), (int)(piece / 4), MPI_BYTE, &st) !=
               MPI_SUCCESS;
    }
    free(buf);
    count(0, err);
    return NULL;
}

static void *shared_read(void *arg)
{
    int t = (int)(long)arg, total = t_size * nthreads;
    int region = (t_rank * nthreads + t + nthreads + 1) % total; /* another rank's thread */
    unsigned char *buf = calloc(1, (size_t)piece);
    MPI_Status st;
    int err = MPI_File_read_at(shared_fh, (long long)region * piece, buf, (int)piece, MPI_BYTE, &st) != MPI_SUCCESS;
    int bad = check(buf, (long long)region * piece, piece, 0);
    free(buf);
    count(bad, err);
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t *th = malloc((size_t)nthreads * sizeof *th);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, fn, (void *)(long)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    free(th);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    char cases[64] = "files,shared";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-t"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-c"))
            snprintf(cases, sizeof cases, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "-n"))
            piece = atoll(argv[i + 1]);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (t_rank == 0)
            printf("t_threads: the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE: nothing to test\n",
                   provided);
        return t_finish("t_threads");
    }
    comms = malloc((size_t)nthreads * sizeof *comms);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    double t0 = MPI_Wtime();
    for (rep = 0; rep < reps; rep++) {
        if (strstr(cases, "files"))
            run_threads(own_file);
        if (strstr(cases, "shared")) {
            char path[512];
            t_path(path, sizeof path, "threads-shared.dat");
            t_fresh(path);
            int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &shared_fh);
            EXPECT(rc == MPI_SUCCESS, "open %s: %s", path, t_class_name(rc));
            if (rc != MPI_SUCCESS)
                break;
            run_threads(shared_write);
            MPI_File_sync(shared_fh);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_File_sync(shared_fh);
            run_threads(shared_read);
            MPI_File_close(&shared_fh);
            if (t_rank == 0)
                MPI_File_delete(path, MPI_INFO_NULL);
        }
    }
    int v[2] = {bad_bytes, errors}, s[2];
    MPI_Allreduce(v, s, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("t_threads: %d ranks x %d threads, %d repetitions of %s: %d wrong bytes, %d errors (%.1f s)\n", t_size,
               nthreads, reps, cases, s[0], s[1], MPI_Wtime() - t0);
    EXPECT(s[0] == 0 && s[1] == 0, "wrong bytes or errors");
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    free(comms);
    return t_finish("t_threads");
}
