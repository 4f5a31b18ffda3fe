/* The automatic choice of a collective strategy for one call. */
#ifndef FERRY_STRATEGY_AUTO_H
#define FERRY_STRATEGY_AUTO_H

#include "core/nodes.h"
#include "strategy/pattern.h"

/* Pure: the same answer on every rank (all inputs are global). */
ferry_coll_strategy ferry_auto_choose(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, int is_write,
                                      char *reason, size_t cap);

#endif
