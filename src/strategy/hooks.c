/*
 * The open, flush and close hooks of every strategy, in the list's order
 * (catalog.c). Open and close are collective over f->comm: every rank walks
 * the same list.
 */
#include "strategy/strategy.h"

void ferry_strategy_open_all(ferry_file *f)
{
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const struct ferry_strategy_code *c = ferry_strategy_at(i)->code;
        if (c && c->open)
            c->open(f);
    }
}

typedef int (*file_hook)(ferry_file *f);

/* Runs the hook hook_of picks from every strategy that has one and
 * returns the first error; a failing hook does not stop the others. */
static int each_hook(ferry_file *f, file_hook (*hook_of)(const struct ferry_strategy_code *c))
{
    int first = MPI_SUCCESS;
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const struct ferry_strategy_code *c = ferry_strategy_at(i)->code;
        file_hook hook = c ? hook_of(c) : NULL;
        int rc = hook ? hook(f) : MPI_SUCCESS;
        if (first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}

static file_hook flush_of(const struct ferry_strategy_code *c) { return c->flush; }
static file_hook close_of(const struct ferry_strategy_code *c) { return c->close; }

int ferry_strategy_flush_all(ferry_file *f) { return each_hook(f, flush_of); }

int ferry_strategy_close_all(ferry_file *f) { return each_hook(f, close_of); }
