/*
 * HACC-IO's write as ferry's local aggregation issues it, without ferry:
 * 4 processes stand for the aggregators of 4 nodes of 2 ranks; each writes
 * its node's range of each of the 9 variables (50,000 particles a rank) with
 * one pwritev of 2 buffers, as move_share does. Rank 0 then checks every
 * byte with pread; the file is made anew each repetition. It separates the
 * file system from ferry in docs/filesystems.md's "Local aggregation lost a
 * page on the sharded volume":
 *
 *   mpicc.openmpi -O2 bench/hacc_local_writes.c -o /tmp/hlw
 *   mpiexec.openmpi --oversubscribe -n 4 /tmp/hlw /mnt/ferry-pfs/shard/hlw.dat 1000
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define PARTICLES 50000
#define RANKS 8 /* the job this stands for: 4 nodes of 2 */

static const int var_size[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

static unsigned char byte_at(uint64_t seed, uint64_t off)
{
    uint64_t z = seed + off * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned char)(z ^ (z >> 31));
}

static void write_node(int fd, int node, uint64_t seed, unsigned char *a, unsigned char *b)
{
    int64_t base = 0;
    for (int v = 0; v < 9; v++) {
        int64_t piece = (int64_t)PARTICLES * var_size[v];
        int64_t off = base + 2 * node * piece;
        for (int64_t i = 0; i < piece; i++) {
            a[i] = byte_at(seed, (uint64_t)(off + i));
            b[i] = byte_at(seed, (uint64_t)(off + piece + i));
        }
        struct iovec iov[2] = {{a, (size_t)piece}, {b, (size_t)piece}};
        if (pwritev(fd, iov, 2, off) != 2 * piece) {
            perror("pwritev");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        base += RANKS * piece;
    }
}

static int64_t check(const char *path, uint64_t seed, unsigned char *buf, int64_t total, int64_t *first)
{
    int fd = open(path, O_RDONLY);
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
    if (argc != 3 || size != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 %s FILE REPETITIONS\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int reps = atoi(argv[2]), bad_reps = 0;
    int64_t total = 0;
    for (int v = 0; v < 9; v++)
        total += (int64_t)RANKS * PARTICLES * var_size[v];
    unsigned char *a = malloc(8 * PARTICLES), *b = malloc(8 * PARTICLES);
    unsigned char *buf = rank == 0 ? malloc((size_t)total) : NULL;
    for (int rep = 0; rep < reps; rep++) {
        uint64_t seed = 1000 + (uint64_t)rep;
        if (rank == 0)
            unlink(argv[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
        if (fd < 0) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        write_node(fd, rank, seed, a, b);
        close(fd);
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t first, bad = rank == 0 ? check(argv[1], seed, buf, total, &first) : 0;
        if (bad) {
            bad_reps++;
            printf("repetition %d: %lld bytes wrong, the first at offset %lld\n", rep, (long long)bad, (long long)first);
        }
    }
    if (rank == 0)
        printf("repetitions with wrong bytes: %d of %d\n", bad_reps, reps);
    free(a);
    free(b);
    free(buf);
    MPI_Finalize();
    return bad_reps ? 1 : 0;
}
