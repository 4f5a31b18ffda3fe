/* The automatic choice of a collective strategy for one call. */
#ifndef FERRY_STRATEGY_AUTO_H
#define FERRY_STRATEGY_AUTO_H

#include "core/nodes.h"
#include "strategy/pattern.h"

/* Pure: the same answer on every rank (all inputs are global). */
ferry_coll_strategy ferry_auto_choose(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, int is_write,
                                      char *reason, size_t cap);

/* Pure: 1 when the `local` hint would collapse on this file system (small
 * pieces interleaved across nodes, so each node's merged runs stay small and
 * each costs a network round trip); fills *reason for two-phase instead. */
int ferry_auto_local_collapses(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, char *reason,
                               size_t cap);

/* Pure: 1 when auto's rules know the collective strategy s (an id) to lose
 * this call's pattern, so learning spends no trial on it. A strategy the
 * rules do not know is never ruled out. */
int ferry_auto_rules_out(const ferry_file *f, const ferry_pattern *p, const ferry_nodes *nodes, int s);

#endif
