/*
 * Many files, many calls.
 *   r_many files [N]   N files (default 1000) open at once on every rank,
 *                      each written collectively, all read back, all closed;
 *                      the soft descriptor limit is raised to the hard one.
 *   r_many calls [N]   N collective calls (default 10000) on one file, with
 *                      no growth of the resident set (VmRSS) after the first
 *                      tenth. A leak grows it in every third of the rest; the
 *                      MPI library's pools may grow it once, in steps. So:
 *                      no growth in some third, and at most R_RSS_SLACK_KIB
 *                      (4096) in all. R_RSS_PER_CALL_B allows that many bytes
 *                      per call instead, for an MPI library that leaks
 *                      itself (MPICH 4.0: derived-datatype messages);
 *                      R_RSS_CHECK=0 only reports (AddressSanitizer's
 *                      quarantine holds freed memory).
 *   r_many comms [N]   N files (default 1000) one after the other, each
 *                      over a communicator duplicated for it and freed after
 *                      its close, each written through the shared file
 *                      pointer and collectively: what ferry keeps per
 *                      program communicator (duplicates, node layouts,
 *                      shared-pointer windows) must go with it, or MPICH
 *                      runs out of communicators.
 * The strategy comes from FERRY_HINTS.
 */
#include "mpi/tutil.h"

#include <dirent.h>

#include <stdint.h>
#include <sys/resource.h>

static long long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            v = atoll(line + 6);
    if (f)
        fclose(f);
    return v;
}

static void files(int n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < n + 200) {
        if (t_rank == 0)
            printf("r_many: only %lld descriptors allowed: %d files instead of %d\n", (long long)rl.rlim_cur,
                   (int)rl.rlim_cur - 200, n);
        n = (int)rl.rlim_cur - 200;
    }
    MPI_File *fh = calloc((size_t)n, sizeof *fh);
    char p[600];
    int opened = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "many_%04d.dat", i);
        t_path(p, sizeof p, name);
        if (t_rank == 0)
            unlink(p);
        int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &fh[i]);
        if (rc != MPI_SUCCESS) {
            EXPECT(rc == MPI_SUCCESS, "open of file %d of %d: %s", i, n, t_class_name(rc));
            break;
        }
        opened++;
        int v[2] = {i, t_rank};
        rc = MPI_File_write_at_all(fh[i], (MPI_Offset)t_rank * (MPI_Offset)sizeof v, v, 2, MPI_INT,
                                   MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS;
        /* and an independent write, which a forwarding strategy forwards */
        int u[2] = {-i, t_rank};
        rc = MPI_File_write_at(fh[i], (MPI_Offset)(t_size + t_rank) * (MPI_Offset)sizeof u, u, 2, MPI_INT,
                               MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS;
    }
    t_report("files opened %d of %d", opened, n);
    /* resources per open file must be bounded: no thread per file */
    int threads = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *de; d && (de = readdir(d));)
        threads += de->d_name[0] != '.';
    if (d)
        closedir(d);
    const char *maxt = getenv("R_MAX_THREADS");
    if (maxt)
        EXPECT(threads <= atoi(maxt), "%d threads with %d files open (at most %s wanted)", threads, opened, maxt);
    if (t_rank == 0)
        printf("r_many: %d threads on rank 0 with %d files open\n", threads, opened);
    for (int i = 0; i < opened; i++) {
        int v[2] = {-1, -1};
        int nb = (t_rank + 1) % t_size;
        int rc = MPI_File_read_at_all(fh[i], (MPI_Offset)nb * (MPI_Offset)sizeof v, v, 2, MPI_INT,
                                      MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS || v[0] != i || v[1] != nb;
        rc = MPI_File_read_at(fh[i], (MPI_Offset)(t_size + nb) * (MPI_Offset)sizeof v, v, 2, MPI_INT,
                              MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS || v[0] != -i || v[1] != nb;
    }
    for (int i = 0; i < opened; i++)
        bad += MPI_File_close(&fh[i]) != MPI_SUCCESS;
    EXPECT(bad == 0, "%d calls on the open files failed or read wrong data", bad);
    free(fh);
}

static void calls(int n)
{
    char p[600];
    t_path(p, sizeof p, "many_calls.dat");
    t_fresh(p);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    /* ranks interleaved in 64-byte pieces, 1 KiB per rank per call */
    enum { PIECE = 64, PER = 1024 };
    MPI_Datatype v, ft;
    MPI_Type_vector(PER / PIECE, PIECE, PIECE * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)PER * t_size, &ft);
    MPI_Type_commit(&ft);
    rc = MPI_File_set_view(fh, (MPI_Offset)t_rank * PIECE, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    char w[PER], r[PER];
    long long warm = n / 10, slack = 4096, at[4] = {0, 0, 0, 0};
    if (getenv("R_RSS_SLACK_KIB"))
        slack = atoll(getenv("R_RSS_SLACK_KIB"));
    long long per_call = getenv("R_RSS_PER_CALL_B") ? atoll(getenv("R_RSS_PER_CALL_B")) : 0;
    if (per_call > 0)
        slack += per_call * (n - warm) / 1024;
    int bad = 0;
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < 3; j++)
            if (k == warm + j * (n - warm) / 3)
                at[j] = rss_kib();
        memset(w, 'a' + (k + t_rank) % 26, PER);
        /* a window of 64 calls' worth of file, reused: the file stays small */
        MPI_Offset off = (MPI_Offset)(k % 64) * PER;
        if (k % 2 == 0) {
            rc = MPI_File_write_at_all(fh, off, w, PER, MPI_BYTE, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_File_read_at_all(fh, off - PER, r, PER, MPI_BYTE, MPI_STATUS_IGNORE);
            memset(w, 'a' + (k - 1 + t_rank) % 26, PER);
            bad += memcmp(r, w, PER) != 0;
        }
        bad += rc != MPI_SUCCESS;
    }
    at[3] = rss_kib();
    long long grow = at[3] - at[0], maxgrow = 0;
    int every = per_call <= 0 && at[1] > at[0] && at[2] > at[1] && at[3] > at[2];
    MPI_Allreduce(&grow, &maxgrow, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("r_many: %d collective calls: VmRSS %lld, %lld, %lld, %lld KiB after %lld, %lld, %lld, %d calls "
               "(most growth on a rank %lld KiB)\n",
               n, at[0], at[1], at[2], at[3], warm, warm + (n - warm) / 3, warm + 2 * (n - warm) / 3, n, maxgrow);
    const char *chk = getenv("R_RSS_CHECK");
    if (chk && !atoi(chk))
        every = 0, slack = INT64_MAX;
    EXPECT(!every && grow <= slack, "VmRSS grew by %lld KiB over %lld collective calls (%lld, %lld, %lld, %lld)",
           grow, n - warm, at[0], at[1], at[2], at[3]);
    EXPECT(bad == 0, "%d collective calls failed or read wrong data", bad);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);
    if (t_rank == 0)
        unlink(p);
}

static void comms(int n)
{
    char p[600];
    t_path(p, sizeof p, "many_comms.dat");
    int bad = 0, done = 0;
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (t_rank == 0)
            unlink(p);
        MPI_Barrier(c);
        MPI_File fh;
        int rc = MPI_File_open(c, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
        if (rc != MPI_SUCCESS) {
            EXPECT(rc == MPI_SUCCESS, "open over communicator %d of %d: %s", i, n, t_class_name(rc));
            MPI_Comm_free(&c);
            break;
        }
        /* ranks' records through the shared pointer fill [0, size) */
        int v = i * t_size + t_rank;
        bad += MPI_File_write_shared(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE) != MPI_SUCCESS;
        int w[2] = {i, t_rank};
        rc = MPI_File_write_at_all(fh, (MPI_Offset)(t_size + 2 * t_rank) * (MPI_Offset)sizeof(int), w, 2, MPI_INT,
                                   MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS;
        bad += MPI_File_sync(fh) != MPI_SUCCESS;
        MPI_Barrier(c);
        bad += MPI_File_sync(fh) != MPI_SUCCESS;
        MPI_Offset pos = -1;
        bad += MPI_File_get_position_shared(fh, &pos) != MPI_SUCCESS || pos != t_size * (MPI_Offset)sizeof(int); /* in bytes: the default view's etype */
        int *all = malloc((size_t)(3 * t_size) * sizeof *all), *once = calloc((size_t)t_size, sizeof *once);
        rc = MPI_File_read_at(fh, 0, all, 3 * t_size, MPI_INT, MPI_STATUS_IGNORE);
        bad += rc != MPI_SUCCESS;
        for (int k = 0; rc == MPI_SUCCESS && k < t_size; k++) {
            int r = all[k] - i * t_size;
            if (r >= 0 && r < t_size)
                once[r]++;
            bad += all[t_size + 2 * k] != i || all[t_size + 2 * k + 1] != k;
        }
        for (int k = 0; k < t_size; k++)
            bad += once[k] != 1; /* each rank's record exactly once */
        free(all);
        free(once);
        bad += MPI_File_close(&fh) != MPI_SUCCESS;
        MPI_Comm_free(&c);
        done++;
    }
    t_report("communicators %d of %d", done, n);
    EXPECT(bad == 0, "%d calls over fresh communicators failed or read wrong data", bad);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "files";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (!strcmp(mode, "calls"))
        calls(n > 0 ? n : 10000);
    else if (!strcmp(mode, "comms"))
        comms(n > 0 ? n : 1000);
    else
        files(n > 0 ? n : 1000);
    return t_finish("r_many");
}
