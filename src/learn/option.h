/*
 * A learned option as the library hands it on: which collective strategy
 * (its id, as the hints hold it) and the aggregator count learning gave it.
 * Learning makes it, the collective engine and two-phase take it as it is;
 * its text forms (the statistics' "twophase cb_nodes=1", the store's
 * "strategy" member, a FERRY_HINTS pair) are written and read here only.
 */
#ifndef FERRY_LEARN_OPTION_H
#define FERRY_LEARN_OPTION_H

#include "learn/store.h"

typedef struct ferry_coll_option {
    int strategy;  /* a collective strategy's id (util/strategy_desc.h), never auto */
    int cb_nodes;  /* aggregators, for a strategy that takes cb_nodes (0: the file's own) */
} ferry_coll_option;

/* "twophase" or "twophase cb_nodes=1", as statistics and reasons show it. */
void ferry_coll_option_name(const ferry_coll_option *o, char *buf, size_t cap);
/* The option a name of ferry_coll_option_name stands for; -1 when it names none. */
int ferry_coll_option_parse(const char *name, ferry_coll_option *o);
/* "ferry_write_strategy=twophase:cb_nodes=1": the hints that pin it. */
void ferry_coll_option_hint(const ferry_coll_option *o, int is_write, char *buf, size_t cap);

/* The store's spelling of an option and back; -1 when the store names a
 * strategy it does not keep (ferry_learned_strategy_id). */
void ferry_coll_option_to_store(const ferry_coll_option *o, ferry_learned_option *s);
int ferry_coll_option_from_store(const ferry_learned_option *s, ferry_coll_option *o);

#endif
