/*
 * The environment switches that decide whether a collective step runs:
 * FERRY_STATS, FERRY_TIMERS and FERRY_STATS_JSON (the report at close, with
 * Cray's MPICH_MPIIO_STATS and _TIMERS), FERRY_HINTS_DISPLAY,
 * FERRY_AGGREGATOR_DISPLAY and ROMIO_PRINT_HINTS (what rank 0 prints),
 * FERRY_ASYNC (the worker that runs nonblocking collectives) and FERRY_TOPOLOGY (the machine model
 * that places aggregators and forwarders). Each process reads its own
 * environment, and a launch may give ranks different values (an MPMD launch
 * with one value per app context), so every open agrees them over the
 * file's ranks, as it agrees the hints: a switch that differs is off for
 * that file on every rank, with one warning.
 */
#ifndef FERRY_CORE_SWITCHES_H
#define FERRY_CORE_SWITCHES_H

#include <stdint.h>

#include "core/hints.h"
#include "core/machine.h"

typedef enum {
    FERRY_SW_STATS = 0,   /* level */
    FERRY_SW_TIMERS,      /* level */
    FERRY_SW_JSON,        /* 1 when a path is set */
    FERRY_SW_DISPLAY,     /* hints display */
    FERRY_SW_AGGDISPLAY,  /* aggregator display */
    FERRY_SW_ROMIO_PRINT, /* ROMIO_PRINT_HINTS */
    FERRY_SW_ASYNC,       /* 1 when asked for and MPI runs at MPI_THREAD_MULTIPLE */
    FERRY_SW_TOPOLOGY,    /* a digest of the model's spec, 0 when there is none */
    FERRY_SW_COUNT
} ferry_switch;

typedef struct ferry_switches {
    int64_t v[FERRY_SW_COUNT];
} ferry_switches;

/* The model for a file's collective calls: ferry_machine() when the file's
 * ranks agreed on FERRY_TOPOLOGY at open, else NULL. */
static inline const ferry_topo_machine *ferry_machine_agreed(const ferry_switches *sw)
{
    return sw && sw->v[FERRY_SW_TOPOLOGY] ? ferry_machine() : NULL;
}

/* This process's values (each >= 0 and below 2^62, so its negation fits). */
void ferry_switches_local(ferry_switches *s);
/* After an allreduce(MAX) of v and of -v over the ranks (max and negmax):
 * every switch whose values differ is set to 0, with one warning each
 * naming it. Returns how many differed (the same on every rank). */
int ferry_switches_settle(ferry_switches *s, const int64_t *max, const int64_t *negmax, ferry_hint_warnings *w);

#endif
