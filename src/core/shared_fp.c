/*
 * The shared file pointer: one int64 on rank 0 of the file's communicator,
 * moved with MPI_Fetch_and_op in a passive-target epoch, so independent
 * shared-pointer calls from any rank serialize without a hidden file on disk.
 * A file opened by one rank keeps it in the file object.
 */
#include "core/errors.h"
#include "core/file.h"

int ferry_shfp_create(ferry_file *f, int64_t initial)
{
    f->shfp_self = initial;
    if (f->size == 1)
        return MPI_SUCCESS;
    int64_t *base = NULL;
    MPI_Aint bytes = f->rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0;
    int rc = MPI_Win_allocate(bytes, (int)sizeof(int64_t), MPI_INFO_NULL, f->comm, &base, &f->shfp_win);
    if (rc != MPI_SUCCESS) {
        f->shfp_win = MPI_WIN_NULL;
        return MPI_ERR_INTERN;
    }
    if (f->rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shfp_win);
        *base = initial;
        MPI_Win_unlock(0, f->shfp_win);
    }
    return MPI_SUCCESS;
}

void ferry_shfp_free(ferry_file *f)
{
    if (f->shfp_win != MPI_WIN_NULL)
        MPI_Win_free(&f->shfp_win);
}

int ferry_shfp_fetch_add(ferry_file *f, int64_t delta, int64_t *old)
{
    f->shfp_touched = 1;
    if (f->size == 1) {
        *old = f->shfp_self;
        f->shfp_self += delta;
        return MPI_SUCCESS;
    }
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f->shfp_win);
    int rc = MPI_Fetch_and_op(&delta, old, MPI_INT64_T, 0, 0, delta ? MPI_SUM : MPI_NO_OP, f->shfp_win);
    MPI_Win_unlock(0, f->shfp_win);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(MPI_ERR_INTERN, "shared file pointer update failed");
}

int ferry_shfp_reset(ferry_file *f, int64_t value)
{
    f->shfp_touched = 0;
    if (f->size == 1) {
        f->shfp_self = value;
        return MPI_SUCCESS;
    }
    /* The barriers fence the reset from shared-pointer calls made before and
     * after the collective call on every rank. */
    MPI_Barrier(f->comm);
    int rc = MPI_SUCCESS;
    if (f->rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shfp_win);
        rc = MPI_Put(&value, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, f->shfp_win);
        MPI_Win_unlock(0, f->shfp_win);
    }
    MPI_Barrier(f->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ferry_err(MPI_ERR_INTERN, "shared file pointer reset failed");
}
