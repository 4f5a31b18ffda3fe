/*
 * What learning may try for a collective pattern (learn/learner.h): the
 * rules' choice, the strategies that learn and can run this call, and
 * fewer aggregators where that can pay. Which strategies can run a call is
 * the strategy layer's to say, so the learner asks here, once per pattern.
 */
#ifndef FERRY_STRATEGY_LEARN_OPTIONS_H
#define FERRY_STRATEGY_LEARN_OPTIONS_H

#include "core/file.h"
#include "core/nodes.h"
#include "learn/learner.h"
#include "strategy/pattern.h"

/* What the options come from; the caller keeps it while ctx is used. */
typedef struct ferry_learn_from {
    const ferry_file *f;
    const ferry_pattern *p;
    const ferry_nodes *nodes;
    ferry_coll_strategy rule; /* what auto's rules chose */
} ferry_learn_from;

/* Fills ctx->key from the call's global pattern and the file, the mode and
 * budget from f's hints, and has the options worked out from `from` when
 * the learner first needs them. Pure. */
void ferry_learn_setup(ferry_learn_ctx *ctx, const ferry_learn_from *from, int is_write, const char *rule_why);

#endif
