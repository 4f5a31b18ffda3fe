/*
 * Memory of a collective write: ranks that do not aggregate must not grow by
 * more than 1 MiB beyond their own data while a large collective write runs
 * (peak resident set, VmHWM). Run with one aggregator (cb_nodes=1) so every
 * rank but 0 is a non-aggregator.
 *   t_mem [MiB per rank]
 */
#include "tutil.h"

static long long hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            v = atoll(line + 6);
    if (f)
        fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    long long mib = argc > 1 ? atoll(argv[1]) : 64;
    size_t n = (size_t)mib << 20;
    char path[512];
    t_path(path, sizeof path, "mem.dat");
    t_fresh(path);
    char *buf = malloc(n);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)t_byte((long long)i, t_rank);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    /* warm up: the MPI library's own buffers for large messages come now */
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * (MPI_Offset)n, buf, 1 << 20, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    long long before = hwm_kib();
    rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * (MPI_Offset)n, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    long long after = hwm_kib();
    EXPECT(rc == MPI_SUCCESS, "write_all");
    long long growth = after - before;
    printf("MEM r%d growth %lld KiB during a %lld MiB-per-rank collective write\n", t_rank, growth, mib);
    if (t_rank != 0)
        EXPECT_STD(growth <= 1024, "non-aggregator grew %lld KiB (limit 1024)", growth);
    MPI_File_close(&fh);
    free(buf);
    if (t_rank == 0)
        unlink(path);
    return t_finish("t_mem");
}
