/*
 * A rank dies in the middle of a run. The launcher must end the job; ferry
 * must not leave the surviving ranks blocked where the MPI library would have
 * aborted them. The runner (rrun.sh --die-within) times the job.
 *
 *   R_DIE="exit|kill|segv|abort" R_DIE_AT=k: rank P-1 dies before its k-th
 *   collective write (the others are already inside it);
 *   without R_DIE the runner kills a rank inside a write (rspy RSPY_KILL).
 */
#include "mpi/tutil.h"

#include <signal.h>

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *how = getenv("R_DIE") ? getenv("R_DIE") : "";
    int at = getenv("R_DIE_AT") ? atoi(getenv("R_DIE_AT")) : 3;
    char path[512];
    t_path(path, sizeof path, "r_die.dat");
    t_fresh(path);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    enum { BLK = 512, N = 256 };
    MPI_Datatype v, ft;
    MPI_Type_vector(N, BLK, BLK * t_size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)BLK * t_size * N, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    static char buf[BLK * N];
    memset(buf, 'a' + t_rank % 26, sizeof buf);
    for (int k = 0; k < 20; k++) {
        if (k == at && t_rank == t_size - 1 && *how) {
            fprintf(stderr, "r_die: rank %d dies (%s) before collective write %d\n", t_rank, how, k);
            fflush(stderr);
            if (!strcmp(how, "kill"))
                raise(SIGKILL);
            else if (!strcmp(how, "segv"))
                raise(SIGSEGV);
            else if (!strcmp(how, "abort"))
                abort();
            _exit(3);
        }
        rc = MPI_File_write_all(fh, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
        EXPECT(rc == MPI_SUCCESS, "write_all %d", k);
    }
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Type_free(&v);
    return t_finish("r_die");
}
