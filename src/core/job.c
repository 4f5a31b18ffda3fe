/* The job's mount view, agreed once (job.h). */
#include "core/job.h"
#include "driver/mount_view.h"

#include <stdatomic.h>
#include <stdint.h>

static atomic_int one_view;

void ferry_job_init(void)
{
    /* the view's number cut to 62 bits, so that its negation fits: one
     * allreduce gives the largest and the smallest */
    int64_t v = (int64_t)(ferry_mount_view_id() >> 2), in[2] = {v, -v}, out[2];
    if (MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return;
    atomic_store(&one_view, v != 0 && out[0] == -out[1]);
}

/* comm inside MPI_COMM_WORLD: a communicator reaching another job (spawned,
 * connected) has processes whose view was never compared */
static int within_world(MPI_Comm comm)
{
    MPI_Group g, w;
    int n, in = 1;
    if (MPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return 0;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, &n);
    int ranks[64], where[64];
    for (int lo = 0; lo < n && in; lo += 64) {
        int k = n - lo < 64 ? n - lo : 64;
        for (int i = 0; i < k; i++)
            ranks[i] = lo + i;
        MPI_Group_translate_ranks(g, k, ranks, w, where);
        for (int i = 0; i < k && in; i++)
            in = where[i] != MPI_UNDEFINED;
    }
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return in;
}

int ferry_job_one_view(MPI_Comm comm)
{
    return atomic_load(&one_view) && within_world(comm);
}
