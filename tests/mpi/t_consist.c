/*
 * MPI's consistency rules across nodes: every rank first reads (and so lets
 * its node's file-system client cache) the piece of the file that a rank on
 * another node is about to write; that rank writes it; then one of
 *   sync    MPI_File_sync, MPI_Barrier, MPI_File_sync
 *   atomic  atomic mode (set at open), MPI_Barrier
 *   reopen  MPI_File_close, MPI_File_open
 * and every rank reads the piece again. Any byte that is not the writer's is
 * stale. Pieces of different ranks interleave (1000 bytes each, so pages are
 * shared between writers), and every other round writes past the end of the
 * file, so a client's old idea of the size is tried as well as its pages.
 * MPI_File_get_size must then give the size the writes make.
 *
 *   t_consist [-r rounds] [-p pieces per rank] [-m sync,atomic,reopen] [-k coll,ind]
 *             [-s independent,sieve,twophase,local,forward,auto]
 *
 * -s names ferry strategies, given to each open as hints (MPI_Info; the
 * natives ignore them). Each strategy, mode and kind of call (collective,
 * independent) has a file of its own, and a line of counts; under ferry any
 * stale byte, short read or wrong size fails the test, natively they are
 * information (the natives do not keep these rules on every file system).
 */
#include "tutil.h"

#define PIECE 1000

typedef struct {
    long long stale_bytes, stale_reads, reads, short_reads, size_errors, errors;
} tally;

static int nodes, ppn;

/* The rank whose piece `me` reads in round r: on another node when there
 * is one, a different one each round. */
static int partner(int me, int r)
{
    if (t_size == 1)
        return 0;
    int shift = nodes > 1 ? ppn * (1 + r % (nodes - 1)) : 1 + r % (t_size - 1);
    return (me + shift) % t_size;
}

/* Round r's region: even rounds overwrite the start of the file, odd ones
 * go past its end. */
static long long base_of(int r, long long region)
{
    return r % 2 == 0 ? 0 : region * (1 + r / 2);
}

static unsigned char byte_of(long long off, int r, int writer)
{
    return t_byte(off, r * 131 + writer + 1);
}

/* The view of rank `who`: its pieces of the interleaved region at `base`. */
static void view_of(MPI_File fh, long long base, int who)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(1, PIECE, PIECE * t_size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)PIECE * t_size, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, base + (long long)who * PIECE, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
}

static const char *strategy = "auto";

static int open_file(const char *path, int amode, int atomic, MPI_File *fh)
{
    MPI_Info info = t_strategy_info(strategy);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, info, fh);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS && atomic)
        rc = MPI_File_set_atomicity(*fh, 1);
    return rc;
}

/* Reads who's piece of round r (collectively when coll) and counts what is
 * not the writer's into t (NULL: a read only to fill the client's cache).
 * Every rank calls it (the view change is collective). */
static void check(MPI_File fh, int coll, int r, long long base, int who, long long pieces, char *buf, tally *t)
{
    long long n = pieces * PIECE;
    view_of(fh, base, who);
    memset(buf, 0, (size_t)n);
    MPI_Status st;
    int rc = coll ? MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_BYTE, &st)
                  : MPI_File_read_at(fh, 0, buf, (int)n, MPI_BYTE, &st);
    int got = 0;
    if (rc == MPI_SUCCESS)
        MPI_Get_count(&st, MPI_BYTE, &got);
    if (!t)
        return;
    t->errors += rc != MPI_SUCCESS;
    if (rc != MPI_SUCCESS && getenv("T_CONSIST_DEBUG")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "r%d round %d: read: %s\n", t_rank, r, msg);
    }
    long long bad = 0, first = -1;
    for (long long i = 0; i < n; i++) {
        long long off = base + (i / PIECE) * PIECE * t_size + (long long)who * PIECE + i % PIECE;
        if (i >= got || (unsigned char)buf[i] != byte_of(off, r, who)) {
            if (first < 0)
                first = off;
            bad++;
        }
    }
    if (bad && getenv("T_CONSIST_DEBUG"))
        fprintf(stderr, "r%d round %d: %lld bad bytes of rank %d's piece, first at %lld, read %d of %lld\n", t_rank,
                r, bad, who, first, got, n);
    t->reads++;
    t->short_reads += got < n;
    t->stale_bytes += bad;
    t->stale_reads += bad > 0;
}

static void run(const char *dir, const char *mode, int coll, int rounds, long long pieces, tally *t)
{
    char path[512];
    snprintf(path, sizeof path, "%s/consist-%s-%s-%s.dat", dir, strategy, mode, coll ? "coll" : "ind");
    t_fresh(path);
    int atomic = !strcmp(mode, "atomic"), reopen = !strcmp(mode, "reopen");
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    MPI_File fh;
    int rc = open_file(path, amode, atomic, &fh);
    EXPECT(rc == MPI_SUCCESS, "open %s: %s", path, t_class_name(rc));
    if (rc != MPI_SUCCESS) {
        t->errors++;
        return;
    }
    long long n = pieces * PIECE, region = n * t_size, size = 0;
    char *buf = malloc((size_t)n), *mine = malloc((size_t)n);
    for (int r = 0; r < rounds; r++) {
        long long base = base_of(r, region);
        int who = partner(t_rank, r);
        /* everybody's client caches what another node is about to change */
        check(fh, coll, r, base, who, pieces, buf, NULL);
        view_of(fh, base, t_rank);
        for (long long i = 0; i < n; i++)
            mine[i] = (char)byte_of(base + (i / PIECE) * PIECE * t_size + (long long)t_rank * PIECE + i % PIECE, r,
                                    t_rank);
        MPI_Status st;
        rc = coll ? MPI_File_write_at_all(fh, 0, mine, (int)n, MPI_BYTE, &st)
                  : MPI_File_write_at(fh, 0, mine, (int)n, MPI_BYTE, &st);
        if (rc != MPI_SUCCESS) {
            t->errors++;
            if (getenv("T_CONSIST_DEBUG")) {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(rc, msg, &len);
                fprintf(stderr, "r%d round %d: write: %s\n", t_rank, r, msg);
            }
        }
        if (base + region > size)
            size = base + region;
        if (reopen) {
            MPI_File_close(&fh);
            rc = open_file(path, MPI_MODE_RDWR, 0, &fh);
            if (rc != MPI_SUCCESS) {
                t->errors++;
                break;
            }
        } else if (atomic) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_File_sync(fh);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_File_sync(fh);
        }
        check(fh, coll, r, base, who, pieces, buf, t);
        MPI_Offset have = -1;
        MPI_File_get_size(fh, &have);
        t->size_errors += have != size;
        if (have != size && getenv("T_CONSIST_DEBUG"))
            fprintf(stderr, "r%d round %d: size %lld, the writes make %lld\n", t_rank, r, (long long)have, size);
    }
    MPI_File_close(&fh);
    if (t_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(buf);
    free(mine);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int rounds = 6;
    long long pieces = 16;
    char modes[64] = "sync,atomic,reopen", kinds[32] = "coll,ind", strategies[128] = "auto";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-r"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-p"))
            pieces = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "-m"))
            snprintf(modes, sizeof modes, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "-k"))
            snprintf(kinds, sizeof kinds, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            snprintf(strategies, sizeof strategies, "%s", argv[i + 1]);
    }
    t_find_nodes(&nodes, &ppn);
    char dir[512];
    t_path(dir, sizeof dir, "");
    dir[strlen(dir) - 1] = 0; /* t_path appended a slash */
    if (t_rank == 0)
        printf("t_consist: %d ranks on %d nodes, %d rounds of %lld bytes per rank, %s\n", t_size, nodes, rounds,
               pieces * PIECE, t_under_ferry() ? "ferry" : "native");
    char *ssave = NULL;
    for (char *st = strtok_r(strategies, ",", &ssave); st; st = strtok_r(NULL, ",", &ssave)) {
        strategy = st;
        char mbuf[64], *msave = NULL;
        snprintf(mbuf, sizeof mbuf, "%s", modes);
        for (char *m = strtok_r(mbuf, ",", &msave); m; m = strtok_r(NULL, ",", &msave)) {
            for (int coll = 1; coll >= 0; coll--) {
                if (!strstr(kinds, coll ? "coll" : "ind"))
                    continue;
                tally t = {0}, s;
                double t0 = MPI_Wtime();
                run(dir, m, coll, rounds, pieces, &t);
                MPI_Allreduce(&t, &s, 6, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
                if (t_rank == 0)
                    printf("t_consist: %-11s %-6s %-4s stale reads %lld of %lld, stale bytes %lld, short reads %lld, "
                           "wrong sizes %lld, errors %lld (%.1f s)\n",
                           st, m, coll ? "coll" : "ind", s.stale_reads, s.reads, s.stale_bytes, s.short_reads,
                           s.size_errors, s.errors, MPI_Wtime() - t0);
                EXPECT_STD(s.stale_bytes == 0 && s.size_errors == 0 && s.errors == 0, "%s %s %s: stale or wrong", st,
                           m, coll ? "coll" : "ind");
            }
        }
    }
    return t_finish("t_consist");
}
