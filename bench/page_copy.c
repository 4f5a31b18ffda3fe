/*
 * What the buffer's place in its page does to the kernel's copy: pread and
 * pwrite of one file range into a buffer from malloc (which puts a large
 * block 16 bytes into a page) and into a page-aligned one, alternated,
 * medians of 31. Why src/strategy/buffers.c aligns ferry's kept buffers:
 *
 *   gcc -O2 bench/page_copy.c -o /tmp/page_copy
 *   /tmp/page_copy /dev/shm/page_copy.dat 4423680     (BT-IO quick's file)
 *   /tmp/page_copy /tmp/page_copy.dat 4423680
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPS 31

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, REPS, sizeof *v, by_value);
    return v[REPS / 2];
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: page_copy FILE BYTES\n");
        return 2;
    }
    size_t n = strtoull(argv[2], NULL, 10);
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    char *plain = malloc(n), *aligned = NULL;
    if (fd < 0 || n == 0 || !plain || posix_memalign((void **)&aligned, (size_t)sysconf(_SC_PAGESIZE), n)) {
        perror("page_copy");
        return 1;
    }
    memset(plain, 7, n);
    memset(aligned, 7, n);
    if (pwrite(fd, plain, n, 0) != (ssize_t)n) {
        perror("pwrite");
        return 1;
    }
    double t[4][REPS];
    char *buf[2] = {plain, aligned};
    for (int r = 0; r < REPS; r++)
        for (int b = 0; b < 2; b++) {
            double t0 = now();
            ssize_t got = pread(fd, buf[b], n, 0);
            double t1 = now();
            ssize_t put = pwrite(fd, buf[b], n, 0);
            double t2 = now();
            if (got != (ssize_t)n || put != (ssize_t)n) {
                perror("page_copy");
                return 1;
            }
            t[b][r] = t1 - t0;
            t[2 + b][r] = t2 - t1;
        }
    printf("buffers at %p (malloc) and %p (page-aligned), %zu bytes, medians of %d\n", (void *)plain,
           (void *)aligned, n, REPS);
    printf("pread  ms: malloc %.3f  page-aligned %.3f\n", median(t[0]) * 1e3, median(t[1]) * 1e3);
    printf("pwrite ms: malloc %.3f  page-aligned %.3f\n", median(t[2]) * 1e3, median(t[3]) * 1e3);
    close(fd);
    unlink(argv[1]);
    return 0;
}
