/*
 * ferry-iond: the I/O-node server the ionode strategy spawns (one per I/O
 * node, MPI_Comm_spawn). Everything it does is libferry's: see
 * src/decouple/ion_server.c and docs/cluster.md.
 */
#include <mpi.h>
#include <stdlib.h>

int ferry_ion_serve(void);

int main(int argc, char **argv)
{
    /* the program's launcher settings are not the server's: it is no data
     * process of a decoupled job and prints no records of its own */
    static const char *const not_mine[] = {"FERRY_DATA_PROCS", "FERRY_DECOUPLE_SERVE", "FERRY_STATS",
                                           "FERRY_STATS_JSON", "FERRY_STATS_FILE", "FERRY_TIMERS",
                                           "FERRY_HINTS_DISPLAY", "FERRY_TRACE", "FERRY_REPORT"};
    for (size_t i = 0; i < sizeof not_mine / sizeof not_mine[0]; i++)
        unsetenv(not_mine[i]);
    MPI_Init(&argc, &argv);
    int rc = ferry_ion_serve();
    MPI_Finalize();
    return rc;
}
