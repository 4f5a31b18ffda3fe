/* The strategy layer's entry points, as the core calls them (core/strategies.h). */
#include "core/strategies.h"
#include "strategy/aggregators.h"
#include "strategy/forward.h"
#include "strategy/strategy.h"

/* Collective at open: forwarding's channel, and the aggregators a
 * collective call would choose, which cb_nodes reports until a two-phase
 * call chooses (ROMIO reports its choice from the open on). */
static void strategy_open(ferry_file *f)
{
    ferry_forward_open(f);
    ferry_nodes nodes;
    if (ferry_nodes_build(f->comm, &nodes) != MPI_SUCCESS)
        return;
    ferry_aggs a;
    if (ferry_aggs_choose(&f->hints, ferry_stripes_of(f).count, &nodes, f->size, f->rank, &a) == MPI_SUCCESS) {
        f->cb_nodes_used = a.n;
        ferry_aggs_free(&a);
    }
    ferry_nodes_free(&nodes);
}

const ferry_strategy_table ferry_strategies = {
    .independent = ferry_strategy_independent,
    .collective = ferry_strategy_collective,
    .own_nodes = ferry_strategy_own_nodes,
    .release = ferry_strategy_release,
    .open = strategy_open,
    .close = ferry_forward_close,
    .flush = ferry_forward_flush,
};
