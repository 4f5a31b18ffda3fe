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

int ferry_strategy_flush_all(ferry_file *f)
{
    int first = MPI_SUCCESS;
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const struct ferry_strategy_code *c = ferry_strategy_at(i)->code;
        int rc = c && c->flush ? c->flush(f) : MPI_SUCCESS;
        if (first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}

int ferry_strategy_close_all(ferry_file *f)
{
    int first = MPI_SUCCESS;
    for (int i = 0; i < ferry_strategy_count(); i++) {
        const struct ferry_strategy_code *c = ferry_strategy_at(i)->code;
        int rc = c && c->close ? c->close(f) : MPI_SUCCESS;
        if (first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}
