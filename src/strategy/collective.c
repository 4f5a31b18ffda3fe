/*
 * The collective path. Every rank moves its own part, then the ranks agree on
 * the outcome in one allreduce, so a failure on any rank fails the call on
 * all of them with the same class, and no rank can leave early and hang the rest.
 */
#include "core/errors.h"
#include "strategy/strategy.h"

int ferry_strategy_collective(ferry_file *f, const ferry_xfer *x, int local_err, int64_t *done)
{
    *done = 0;
    /* Bad arguments anywhere stop the call before any rank touches the file. */
    int code = ferry_agree(f, local_err, "the collective call has invalid arguments on another rank");
    if (code == MPI_SUCCESS) {
        ferry_stats_strategy(&f->stats, x->is_write ? FERRY_KIND_COLL_WRITE : FERRY_KIND_COLL_READ,
                             "independent", "each rank accesses its own pieces");
        code = ferry_strategy_independent(f, x, 1, done);
    }
    double t0 = ferry_now();
    code = ferry_agree(f, code, "the collective call failed on another rank");
    ferry_stats_phase(&f->stats, FERRY_PHASE_META, t0);
    return code;
}
