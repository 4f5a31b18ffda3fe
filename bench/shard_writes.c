/*
 * HACC-IO's write as ferry's local aggregation issues it, without ferry,
 * to separate the file system from ferry (docs/filesystems.md, "Local
 * aggregation lost a page on the sharded volume"). 8 ranks stand for 4
 * nodes of 2: each rank puts its pieces of the 9 variables (50,000
 * particles) into an MPI shared-memory window, and each node's first rank
 * writes the node's range of every variable with one pwritev of 2 buffers,
 * as move_share does. Rank 0 then reads the file with pread and checks
 * every byte; the file is made anew each repetition, and the run stops at
 * the first repetition with a wrong byte, leaving the file in place.
 *
 *   mpicc.openmpi -O2 bench/shard_writes.c -o /tmp/shard_writes
 *   mpiexec.openmpi --oversubscribe -n 8 /tmp/shard_writes [options] /mnt/ferry-pfs/shard/sw.dat 1500
 *
 * Options (each is one thing ferry does around an aggregated write):
 *   --fsync       node writers fsync, then all ranks agree (flush_for_others)
 *   --drop        then each rank drops its written range from the page
 *                 cache (POSIX_FADV_DONTNEED, ferry_coh_drop)
 *   --cold-check  rank 0 drops the whole file's pages before the check, so
 *                 it reads what the servers hold, not this client's pages
 *   --private     write from private copies, not from the window
 *   --independent every rank writes its own pieces (one pwrite each), as
 *                 independent I/O does, instead of the node writers
 *   --serial      the node writers take turns (a barrier between nodes):
 *                 never two writers at once
 *   --aligned N   the node writers write whole N-byte blocks of the file,
 *                 block k by writer k mod 4, as two-phase's stripe-aligned
 *                 file domains do: never two writers in one block
 *   --split N     no write crosses a multiple of N bytes: a write that
 *                 would is issued as one pwritev per N-byte block
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PARTICLES 50000
#define NVARS 9
#define SEGMENT (2 << 20)

static const int var_size[NVARS] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

static unsigned char byte_at(uint64_t seed, uint64_t off)
{
    uint64_t z = seed + (off >> 3) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (unsigned char)(z >> (8 * (off & 7)));
}

typedef struct opts {
    int fsync, drop, cold_check, private_copy, independent, serial;
    int64_t aligned, split;
    const char *path;
    int reps;
} opts;

static int parse(int argc, char **argv, opts *o)
{
    static const struct option longs[] = {{"fsync", no_argument, NULL, 'f'},
                                          {"drop", no_argument, NULL, 'd'},
                                          {"cold-check", no_argument, NULL, 'c'},
                                          {"private", no_argument, NULL, 'p'},
                                          {"independent", no_argument, NULL, 'i'},
                                          {"serial", no_argument, NULL, 's'},
                                          {"aligned", required_argument, NULL, 'a'},
                                          {"split", required_argument, NULL, 'S'},
                                          {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    for (int c; (c = getopt_long(argc, argv, "fdcpisa:S:", longs, NULL)) != -1;) {
        if (c == 'f')
            o->fsync = 1;
        else if (c == 'd')
            o->drop = 1;
        else if (c == 'c')
            o->cold_check = 1;
        else if (c == 'p')
            o->private_copy = 1;
        else if (c == 'i')
            o->independent = 1;
        else if (c == 's')
            o->serial = 1;
        else if (c == 'a' && (o->aligned = atoll(optarg)) > 0)
            continue;
        else if (c == 'S' && (o->split = atoll(optarg)) > 0)
            continue;
        else
            return -1;
    }
    if (argc - optind != 2)
        return -1;
    o->path = argv[optind];
    o->reps = atoi(argv[optind + 1]);
    return o->reps > 0 ? 0 : -1;
}

/* pwritev, as one call per `split`-byte block of the file when split > 0 */
static int64_t write_split(int fd, struct iovec *iov, int n, int64_t off, int64_t split)
{
    int64_t done = 0;
    while (n > 0) {
        int64_t room = split > 0 ? (off / split + 1) * split - off : INT64_MAX, len = 0;
        struct iovec part[2];
        int k = 0;
        for (int i = 0; i < n && len < room; i++) {
            part[k] = iov[i];
            if ((int64_t)part[k].iov_len > room - len)
                part[k].iov_len = (size_t)(room - len);
            len += (int64_t)part[k++].iov_len;
        }
        if (pwritev(fd, part, k, off) != len)
            return -1;
        done += len;
        off += len;
        for (int64_t left = len; left > 0;) {
            int64_t t = (int64_t)iov[0].iov_len < left ? (int64_t)iov[0].iov_len : left;
            iov[0].iov_base = (char *)iov[0].iov_base + t;
            iov[0].iov_len -= (size_t)t;
            left -= t;
            if (iov[0].iov_len == 0) {
                iov++;
                n--;
            }
        }
    }
    return done;
}

/* Returns the number of wrong bytes and the first one's offset. */
static int64_t check(const opts *o, uint64_t seed, unsigned char *buf, int64_t total, int64_t *first)
{
    int fd = open(o->path, O_RDONLY);
    if (fd >= 0 && o->cold_check)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    int64_t got = 0, bad = 0;
    while (fd >= 0 && got < total) {
        ssize_t k = pread(fd, buf + got, (size_t)(total - got), got);
        if (k <= 0)
            break;
        got += k;
    }
    if (fd >= 0)
        close(fd);
    *first = -1;
    for (int64_t i = 0; i < total; i++)
        if (i >= got || buf[i] != byte_at(seed, (uint64_t)i)) {
            if (*first < 0)
                *first = i;
            bad++;
        }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts o;
    if (parse(argc, argv, &o) < 0 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 8 %s [--fsync] [--drop] [--cold-check] [--private] [--independent] [--serial] [--aligned N] [--split N] FILE REPETITIONS\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm node;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &node);
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *mine, *seg[2];
    MPI_Win win;
    MPI_Win_allocate_shared(SEGMENT, 1, info, node, &mine, &win);
    MPI_Info_free(&info);
    for (int i = 0; i < 2; i++) {
        MPI_Aint bytes;
        int unit;
        MPI_Win_shared_query(win, i, &bytes, &unit, &seg[i]);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int64_t total = 0;
    for (int v = 0; v < NVARS; v++)
        total += (int64_t)size * PARTICLES * var_size[v];
    unsigned char *buf = rank == 0 ? malloc((size_t)total) : NULL;
    char *copy[2] = {malloc(SEGMENT), malloc(SEGMENT)};
    char *blockbuf = o.aligned ? malloc((size_t)o.aligned) : NULL;
    int bad_reps = 0, rep = 0;
    for (; rep < o.reps && !bad_reps; rep++) {
        uint64_t seed = 7000 + (uint64_t)rep;
        if (rank == 0)
            unlink(o.path);
        MPI_Barrier(MPI_COMM_WORLD);
        int fd = open(o.path, O_RDWR | O_CREAT, 0644);
        if (fd < 0) {
            perror(o.path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t base = 0, at = 0, lo = -1, hi = 0, node_off[NVARS];
        for (int v = 0; v < NVARS; v++) {
            int64_t piece = (int64_t)PARTICLES * var_size[v], off = base + rank * piece;
            for (int64_t i = 0; i < piece; i++)
                mine[at + i] = (char)byte_at(seed, (uint64_t)(off + i));
            node_off[v] = base + (rank & ~1) * piece;
            if (lo < 0)
                lo = off;
            hi = off + piece;
            at += piece;
            base += size * piece;
        }
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        for (int64_t k = rank / 2, b = o.aligned; b && node_rank == 0 && k * b < total; k += size / 2) {
            int64_t len = total - k * b < b ? total - k * b : b;
            for (int64_t i = 0; i < len; i++)
                blockbuf[i] = (char)byte_at(seed, (uint64_t)(k * b + i));
            if (pwrite(fd, blockbuf, (size_t)len, k * b) != len) {
                perror("pwrite");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        for (int turn = 0; turn < (o.serial ? size / 2 : 1) && !o.aligned; turn++) {
            int writes = o.independent || (node_rank == 0 && (!o.serial || turn == rank / 2));
            at = 0;
            base = 0;
            for (int v = 0; v < NVARS && writes; v++) {
                int64_t piece = (int64_t)PARTICLES * var_size[v];
                struct iovec iov[2] = {{seg[0] + at, (size_t)piece}, {seg[1] + at, (size_t)piece}};
                for (int i = 0; i < 2 && o.private_copy; i++) {
                    memcpy(copy[i], seg[i] + at, (size_t)piece);
                    iov[i].iov_base = copy[i];
                }
                int n = 2;
                int64_t off = node_off[v];
                if (o.independent) {
                    iov[0] = iov[node_rank];
                    n = 1;
                    off = base + rank * piece;
                }
                if (write_split(fd, iov, n, off, o.split) != n * piece) {
                    perror("pwritev");
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                at += piece;
                base += size * piece;
            }
            if (o.serial)
                MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Win_sync(win);
        MPI_Barrier(node);
        if (o.fsync && node_rank == 0 && fsync(fd) < 0)
            perror("fsync");
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.drop)
            posix_fadvise(fd, lo, hi - lo, POSIX_FADV_DONTNEED);
        close(fd);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            int64_t first, bad = check(&o, seed, buf, total, &first);
            if (bad) {
                bad_reps = 1;
                printf("repetition %d: %lld bytes wrong, the first at offset %lld\n", rep, (long long)bad,
                       (long long)first);
            }
        }
        MPI_Bcast(&bad_reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("repetitions with wrong bytes: %d of %d\n", bad_reps, rep);
    free(copy[0]);
    free(copy[1]);
    free(blockbuf);
    free(buf);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return bad_reps ? 1 : 0;
}
