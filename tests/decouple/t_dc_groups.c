/*
 * Groups and placement: the compute side sees N compute and M data
 * processes, the data processes are the world ranks the placement rule
 * names (argv[1], comma-separated, "-" for none), and with serving inside
 * MPI_Init (argv[2] = "init") the data processes never run the program and
 * the compute processes return from MPI_Init with their groups built.
 * After ferry_decouple_finalize the world is whole again: a barrier on
 * MPI_COMM_WORLD completes.
 */
#include "dtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int in_init = argc > 2 && !strcmp(argv[2], "init");
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (in_init) {
        /* only compute processes get here, groups already built */
        CHECK(!ferry_is_data_process() && ferry_comm_local() != MPI_COMM_NULL,
              "world rank %d runs the program after MPI_Init with serving inside it", wrank);
    } else {
        CHECK(ferry_comm_local() == MPI_COMM_NULL, "groups before ferry_decouple_init");
    }
    int rc = ferry_decouple_init();
    CHECK(rc == MPI_SUCCESS, "ferry_decouple_init: %s", d_class_name(rc));
    if (!ferry_is_data_process()) {
        MPI_Comm comm = ferry_comm_local();
        MPI_Comm_rank(comm, &d_rank);
        MPI_Comm_size(comm, &d_size);
        int expect[64], ne = 0;
        if (argc > 1 && strcmp(argv[1], "-"))
            for (char *s = argv[1]; *s && ne < 64;) {
                expect[ne++] = (int)strtol(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        CHECK(d_size == wsize - ne, "%d compute processes, expected %d", d_size, wsize - ne);
        MPI_Comm inter = ferry_comm_inter();
        if (ne == 0) {
            CHECK(inter == MPI_COMM_NULL, "an inter-communicator without data processes");
        } else {
            int rs = 0;
            MPI_Comm_remote_size(inter, &rs);
            CHECK(rs == ne, "%d data processes, expected %d", rs, ne);
            MPI_Group remote, world;
            MPI_Comm_remote_group(inter, &remote);
            MPI_Comm_group(MPI_COMM_WORLD, &world);
            int ranks[64], wr[64];
            for (int i = 0; i < rs && i < 64; i++)
                ranks[i] = i;
            MPI_Group_translate_ranks(remote, rs < 64 ? rs : 64, ranks, world, wr);
            for (int i = 0; i < rs && i < ne; i++)
                CHECK(wr[i] == expect[i], "data process %d is world rank %d, expected %d", i, wr[i], expect[i]);
            MPI_Group_free(&remote);
            MPI_Group_free(&world);
            /* the program may talk to the data group on the inter-communicator;
             * ferry's own traffic never meets it */
            int lsize = 0;
            MPI_Comm_size(inter, &lsize);
            CHECK(lsize == d_size, "local side of the inter-communicator");
        }
        int fails = 0;
        MPI_Allreduce(&d_fail, &fails, 1, MPI_INT, MPI_SUM, comm);
        if (d_rank == 0)
            printf("t_dc_groups: %s (world %d, data ranks %s%s)\n", fails ? "FAILED" : "passed", wsize,
                   argc > 1 ? argv[1] : "-", in_init ? ", served inside MPI_Init" : "");
        d_fail = fails;
        ferry_decouple_finalize();
    }
    /* data processes come back from ferry_decouple_init once every compute
     * process has finalized its decoupled I/O */
    if (!in_init)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return d_fail != 0;
}
