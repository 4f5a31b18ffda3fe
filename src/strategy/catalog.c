/*
 * Every strategy ferry has, one descriptor each (util/strategy_desc.h). A
 * strategy is its own file, which defines its code (strategy.h), and its
 * descriptor here; the hints, auto's learning, the store of learned choices
 * and ferry-tune take their lists from this one.
 *
 * The order gives the ids the hints hold (core/hints.h names those of
 * ferry's first strategies) and the order of the open, flush and close
 * hooks. ferry-tune and the unit tests compile this file with
 * FERRY_STRATEGY_NAMES_ONLY: they read the descriptors and link no
 * strategy, so `code` is NULL there.
 */
#include "strategy/forward.h"
#include "strategy/ionode.h"
#include "strategy/local.h"
#include "strategy/twophase.h"

#ifdef FERRY_STRATEGY_NAMES_ONLY
#define CODE(c) NULL
#else
#define CODE(c) (&(c))
#endif

static const char *const no_hints[] = {NULL};
static const char *const sieve_hints[] = {"romio_ds_read", "romio_ds_write", "ind_rd_buffer_size",
                                          "ind_wr_buffer_size", "ferry_ds_threshold", NULL};
static const char *const forward_hints[] = {"ferry_forward_collectors", "ferry_forward_assign",
                                            "ferry_forward_errors", NULL};
static const char *const twophase_hints[] = {"cb_buffer_size", "cb_nodes", "cb_config_list", "striping_unit",
                                             "striping_factor", "ferry_aggregator_placement", NULL};
static const char *const local_hints[] = {"cb_buffer_size", "ferry_local_aggregators", NULL};
static const char *const ionode_hints[] = {"ferry_io_nodes", "cb_buffer_size", "striping_unit", NULL};

static const ferry_strategy_desc list[] = {
    /* independent calls */
    {.name = "direct",
     .kind = FERRY_STRATEGY_INDEPENDENT,
     .about = "one system call per contiguous file run",
     .hints = no_hints},
    {.name = "sieve",
     .kind = FERRY_STRATEGY_INDEPENDENT,
     .about = "data sieving: one large window over many small runs",
     .hints = sieve_hints},
    {.name = "forward",
     .kind = FERRY_STRATEGY_INDEPENDENT,
     .about = "forwards each call to a rank on a gateway node",
     .hints = forward_hints,
     .needs = FERRY_NEEDS_THREADS,
     .roles = FERRY_ROLE_TUNED,
     .fallback = "direct",
     .code = CODE(ferry_forward_code)},
    /* collective calls */
    {.name = "independent",
     .kind = FERRY_STRATEGY_COLLECTIVE,
     .about = "every rank moves its own pieces on the independent path",
     .hints = no_hints,
     .roles = FERRY_ROLE_LEARNED | FERRY_ROLE_TUNED,
     .code = CODE(ferry_coll_independent_code)},
    {.name = "twophase",
     .kind = FERRY_STRATEGY_COLLECTIVE,
     .about = "aggregators gather the pieces of their file domains and write them whole",
     .hints = twophase_hints,
     .roles = FERRY_ROLE_LEARNED | FERRY_ROLE_TUNED,
     .code = CODE(ferry_twophase_code)},
    {.name = "local",
     .kind = FERRY_STRATEGY_COLLECTIVE,
     .about = "each node merges its ranks' pieces in node-shared memory and writes them",
     .hints = local_hints,
     .needs = FERRY_NEEDS_NODE_MATES | FERRY_NEEDS_UNORDERED,
     .roles = FERRY_ROLE_LEARNED | FERRY_ROLE_TUNED,
     .fallback = "twophase",
     .code = CODE(ferry_local_code)},
    {.name = "ionode",
     .kind = FERRY_STRATEGY_COLLECTIVE,
     .about = "servers on the I/O nodes (ferry_io_nodes) aggregate the file domains and write them whole",
     .hints = ionode_hints,
     .needs = FERRY_NEEDS_UNORDERED,
     .fallback = "twophase",
     .code = CODE(ferry_ionode_code)},
};

int ferry_strategy_count(void) { return (int)(sizeof list / sizeof list[0]); }

const ferry_strategy_desc *ferry_strategy_at(int i)
{
    return i >= 0 && i < ferry_strategy_count() ? &list[i] : NULL;
}
