/*
 * The collective strategy `independent`: every rank moves its own pieces on
 * the independent path (independent.c), which records no choice of its own
 * for a collective call: the collective engine records this one.
 */
#include "strategy/coll_call.h"

static int run(ferry_coll_call *c, int64_t *done) { return ferry_strategy_independent(c->f, c->x, 1, done); }

const struct ferry_strategy_code ferry_coll_independent_code = {.run = run};
