/*
 * How far `auto` may measure instead of guessing: the ferry_learn hint's
 * values (docs/collective.md, "Learning"). The hints hold it; the learner
 * and the store obey it.
 */
#ifndef FERRY_LEARN_MODE_H
#define FERRY_LEARN_MODE_H

typedef enum {
    FERRY_LEARN_AUTO = 0, /* trials on repeats within a tenth of the pattern's time; the store kept */
    FERRY_LEARN_OFF,      /* the rules alone; no store */
    FERRY_LEARN_REUSE,    /* start from the store; no trials */
    FERRY_LEARN_EXPLORE,  /* as auto, without the tenth, and a one-off pattern tries one option per run */
} ferry_learn_mode;

#endif
