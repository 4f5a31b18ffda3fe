/*
 * What every layer and tool knows of a strategy: its descriptor. The
 * strategy layer holds the one list of descriptors (strategy/catalog.c),
 * and everything that names strategies reads it: the hints accept their
 * names, learning tries them, the store of learned choices keeps them,
 * ferry-tune searches them. It sits at the bottom of the tree because every
 * layer names strategies; the layers below strategy never include a strategy
 * header and reach the list through ferry_strategy_count and
 * ferry_strategy_at, which the strategy layer defines (as the core reaches
 * the strategies' entry points through core/strategies.h).
 *
 * A strategy's id is what the hints hold for it: 0 is auto, and the
 * strategies of one kind are 1, 2, ... in the list's order. The enums of
 * core/hints.h name the ids of the strategies ferry has always had.
 *
 * No MPI here: ferry-tune and the unit tests compile the list without the
 * strategies' code (the descriptors' `code` is NULL there).
 */
#ifndef FERRY_UTIL_STRATEGY_DESC_H
#define FERRY_UTIL_STRATEGY_DESC_H

#include <stddef.h>

/* Which hints name it: ferry_write_strategy and ferry_read_strategy, or
 * ferry_ind_write_strategy and ferry_ind_read_strategy. */
typedef enum {
    FERRY_STRATEGY_COLLECTIVE = 0,
    FERRY_STRATEGY_INDEPENDENT,
} ferry_strategy_kind;

/* What a strategy needs to run (ferry_strategy_desc.needs). */
enum {
    FERRY_NEEDS_NODE_MATES = 1 << 0, /* ranks that share a node: alone on its node it has nothing to do */
    FERRY_NEEDS_THREADS = 1 << 1,    /* MPI_THREAD_MULTIPLE, asked of MPI_Init when a hint names it */
    FERRY_NEEDS_UNORDERED = 1 << 2,  /* writes outside atomic mode: it cannot order overlapping writes */
};

/* Where it takes part besides its hints (ferry_strategy_desc.roles). */
enum {
    FERRY_ROLE_LEARNED = 1 << 0, /* auto's learning tries it and the store of learned choices keeps it */
    FERRY_ROLE_TUNED = 1 << 1,   /* ferry-tune searches it */
};

/* How it runs: the strategy layer's (strategy/strategy.h). */
struct ferry_strategy_code;

typedef struct ferry_strategy_desc {
    const char *name;              /* as the hints, statistics and the store spell it */
    ferry_strategy_kind kind;
    const char *about;             /* one line: what it does */
    const char *const *hints;      /* the hints that tune it, NULL-terminated: ferry-tune searches
                                    * them where it may run, learning varies cb_nodes where listed */
    unsigned needs;                /* FERRY_NEEDS_* */
    unsigned roles;                /* FERRY_ROLE_* */
    const char *fallback;          /* the strategy of its kind a call takes where it cannot run */
    const struct ferry_strategy_code *code; /* NULL where only the list is linked */
} ferry_strategy_desc;

/* The list (strategy/catalog.c). */
int ferry_strategy_count(void);
const ferry_strategy_desc *ferry_strategy_at(int i);

/* Lookups over the list (util/strategy_desc.c). */
/* The id of kind's strategy `name` (case-insensitive; "auto" and "automatic"
 * are 0), or -1. */
int ferry_strategy_id(ferry_strategy_kind kind, const char *name);
/* The descriptor of kind's strategy id, or NULL (auto, unknown). */
const ferry_strategy_desc *ferry_strategy_of(ferry_strategy_kind kind, int id);
/* Its name ("auto" for 0, "?" when unknown). */
const char *ferry_strategy_name(ferry_strategy_kind kind, int id);
/* 1 when d lists `hint` among the hints that tune it. */
int ferry_strategy_takes(const ferry_strategy_desc *d, const char *hint);
/* "independent, twophase, local or auto": what a hint of kind accepts. */
void ferry_strategy_choices(ferry_strategy_kind kind, char *buf, size_t cap);

#endif
