/* The strategy layer's entry points, as the core calls them (core/strategies.h). */
#include "core/strategies.h"
#include "strategy/strategy.h"

const ferry_strategy_table ferry_strategies = {
    .independent = ferry_strategy_independent,
    .collective = ferry_strategy_collective,
    .own_nodes = ferry_strategy_own_nodes,
    .release = ferry_strategy_release,
    .open = ferry_strategy_open_all,
    .close = ferry_strategy_close_all,
    .flush = ferry_strategy_flush_all,
};
