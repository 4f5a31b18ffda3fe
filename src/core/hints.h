/*
 * Hints: every tunable ferry has, with ROMIO's names where ferry has the same
 * mechanism. Sources, in increasing precedence: defaults, the program's
 * MPI_Info, FERRY_HINTS_FILE, FERRY_HINTS patterns. The environment wins so a
 * user can tune a binary without recompiling it.
 */
#ifndef FERRY_CORE_HINTS_H
#define FERRY_CORE_HINTS_H

#include <mpi.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>

#include "learn/mode.h"

typedef enum { FERRY_TRI_AUTO = 0, FERRY_TRI_ENABLE, FERRY_TRI_DISABLE } ferry_tri;

/* Collective strategies (ferry_write_strategy / ferry_read_strategy): the
 * ids of the list of strategies (strategy/catalog.c), which names them and
 * may hold more; these are the ones the code names. */
typedef enum {
    FERRY_COLL_AUTO = 0,
    FERRY_COLL_INDEPENDENT,
    FERRY_COLL_TWOPHASE,
    FERRY_COLL_LOCAL,
} ferry_coll_strategy;

/* Independent strategies (ferry_ind_write_strategy / ferry_ind_read_strategy),
 * ids of the same list. */
typedef enum {
    FERRY_IND_AUTO = 0,
    FERRY_IND_DIRECT,   /* one system call per contiguous file run */
    FERRY_IND_SIEVE,    /* data sieving */
    FERRY_IND_FORWARD,  /* forward to a gateway node */
} ferry_ind_strategy;

typedef enum {
    FERRY_PLACE_SPREAD = 0, /* one aggregator per node, spread over nodes */
    FERRY_PLACE_TOPOLOGY,   /* cost-model placement when a topology is known */
} ferry_placement;

/* How forwarding assigns gateways when FERRY_TOPOLOGY is set (docs/topology.md). */
typedef enum {
    FERRY_FWD_ROUTE_AWARE = 0, /* the seed's route- and load-aware assignment */
    FERRY_FWD_DEFAULT,         /* the model's static balanced assignment */
    FERRY_FWD_REFINED,         /* route-aware plus max-link-load local search */
    FERRY_FWD_AUTO,            /* the topology layer's advice (ferry_topo_advise) */
    FERRY_FWD_LOAD_AWARE,      /* load-aware: balances what each bridge carries */
} ferry_fwd_assign;

/* When a forwarded write's error reaches the program (ferry_forward_errors). */
typedef enum {
    FERRY_FWD_ERR_DEFERRED = 0, /* opt-in write-behind: at the rank's next forwarded call, sync, close or finalize */
    FERRY_FWD_ERR_CALL,         /* the default: the write waits for the forwarder, its error is the call's */
} ferry_fwd_errors;

#define FERRY_HINT_STR 256

/* ferry_local_aggregators=all: every rank of a node aggregates. */
#define FERRY_LOCAL_AGG_ALL INT32_MAX

/* Where a hint's value came from (ferry_hints.source). */
typedef enum {
    FERRY_HINT_SRC_DEFAULT = 0,
    FERRY_HINT_SRC_INFO,    /* the program's MPI_Info */
    FERRY_HINT_SRC_FILE,    /* FERRY_HINTS_FILE */
    FERRY_HINT_SRC_ENV,     /* FERRY_HINTS */
    FERRY_HINT_SRC_DERIVED, /* set by ferry itself (ferry_hints_set), e.g. at open */
} ferry_hint_source;

/* Room for the source of every distinct hint field (aliases share one). */
#define FERRY_HINT_NFIELDS 32

typedef struct ferry_hints {
    /* ROMIO names */
    int64_t cb_buffer_size;            /* 16 MiB */
    int cb_nodes;                      /* 0: one per node (derived at open) */
    char cb_config_list[FERRY_HINT_STR]; /* "*:1" */
    ferry_tri romio_ds_read, romio_ds_write;   /* automatic */
    int64_t ind_rd_buffer_size;        /* 4 MiB */
    int64_t ind_wr_buffer_size;        /* 512 KiB */
    int romio_no_indep_rw;             /* false */
    int striping_factor;               /* 0: unknown */
    int64_t striping_unit;             /* 0: unknown */
    int direct_read, direct_write;     /* false */
    /* ferry's own */
    /* romio_cb_write/romio_cb_read are aliases of these: enable = twophase,
     * disable = independent, automatic = auto; get_info reports both names. */
    ferry_coll_strategy write_strategy, read_strategy;     /* auto */
    ferry_ind_strategy ind_write_strategy, ind_read_strategy; /* auto */
    int local_aggregators;             /* ranks per node that write in local aggregation: 1 */
    ferry_placement aggregator_placement;
    int64_t ds_threshold;              /* sieve when the mean gap is below this: 64 KiB */
    int forward_collectors;            /* forwarding: ranks per node that coalesce the node's records: 1 */
    ferry_fwd_assign forward_assign;   /* forwarding: gateway assignment on a model: auto (the advice) */
    ferry_fwd_errors forward_errors;   /* forwarding: when write errors are reported: call */
    ferry_tri cache_coherent;          /* the file system's client caches: detected (auto) or vouched for */
    int io_timeout;                    /* seconds one system call may wait before the job ends: 0 (never) */
    char io_nodes[FERRY_HINT_STR];     /* the ionode strategy's servers: "host,host,...", a count, or "none" */
    ferry_learn_mode learn;            /* auto */
    int learn_trials;                  /* trial calls per pattern and open: 8 */
    char learn_cache[FERRY_HINT_STR];  /* the store's path, "off", or "default" (FERRY_LEARN_CACHE, else ~/.cache/ferry) */
    /* Added by the hints module: where each hint's value came from, indexed
     * by the hint's field number (see ferry_hints_source_of), one
     * ferry_hint_source per entry. Not part of a hint's value:
     * ferry_hints_equal and ferry_hints_digest ignore it. */
    unsigned char source[FERRY_HINT_NFIELDS];
} ferry_hints;

/* One warning per bad value; the caller prints them on rank 0 only. */
typedef struct ferry_hint_warnings {
    int n;
    char msg[16][200];
} ferry_hint_warnings;

void ferry_hints_defaults(ferry_hints *h);
/* Applies the keys of info that ferry knows; unknown keys are ignored
 * (MPI semantics), bad values warned and ignored. MPI_INFO_NULL is fine. */
void ferry_hints_apply_info(ferry_hints *h, MPI_Info info, ferry_hint_warnings *w);
/* Applies FERRY_HINTS_FILE (the text read at the last open, see
 * ferry_hints_env_read), then the MPICH_MPIIO_HINTS and FERRY_HINTS patterns
 * matching `filename` (glob on the full path and on its basename). */
void ferry_hints_apply_env(ferry_hints *h, const char *filename, ferry_hint_warnings *w);
/* Parses a FERRY_HINTS-style string against `filename` (exposed for tests and fuzzing). */
void ferry_hints_apply_patterns(ferry_hints *h, const char *spec, const char *filename,
                                ferry_hint_warnings *w);
/* Parses one key/value; returns 1 if the key is ferry's, 0 if unknown. */
int ferry_hints_set(ferry_hints *h, const char *key, const char *value, ferry_hint_warnings *w);
/* A new MPI_Info with every hint in effect and its effective value. */
int ferry_hints_to_info(const ferry_hints *h, MPI_Info *info);
/* Readable table of every hint, as FERRY_HINTS_DISPLAY prints it. */
void ferry_hints_display(const ferry_hints *h, const char *filename, FILE *out);
/* The hints as get_info reports them, in ROMIO's ROMIO_PRINT_HINTS lines
 * ("key = cb_nodes                  value = 2"). */
void ferry_hints_print_romio(const ferry_hints *h, const char *filename, FILE *out);
/* Digest of the hints that must agree across the ranks of a collective open. */
uint64_t ferry_hints_digest(const ferry_hints *h);
/* The strategy a ROMIO romio_cb_* value maps to. */
ferry_coll_strategy ferry_hints_coll_of_tri(ferry_tri t);

/* ---- Added by the hints module ---- */

/* ferry_hints_set with an explicit source, recorded in h->source. */
int ferry_hints_set_from(ferry_hints *h, const char *key, const char *value,
                         ferry_hint_source src, ferry_hint_warnings *w);
/* Collective over comm (at the first open): rank 0 reads ROMIO_HINTS and
 * FERRY_HINTS_FILE (at most 64 KiB each, regular files only, an open that
 * never blocks) and broadcasts them; every rank keeps the text for
 * ferry_hints_apply_system / ferry_hints_apply_env. */
void ferry_hints_env_read(MPI_Comm comm, ferry_hint_warnings *w);
/* 1 once ferry_hints_env_read has run in this process: the opens after it
 * apply the kept text and read no file. */
int ferry_hints_env_held(void);
/* Applies the kept ROMIO_HINTS text: system hints, which MPI_Info overrides
 * (as ROMIO does), so call it before ferry_hints_apply_info. */
void ferry_hints_apply_system(ferry_hints *h, ferry_hint_warnings *w);
/* ferry_hints_env_read, then ferry_hints_apply_env. */
void ferry_hints_apply_env_comm(ferry_hints *h, const char *filename, MPI_Comm comm,
                                ferry_hint_warnings *w);
/* 1 if any file could be given a strategy that needs MPI_THREAD_MULTIPLE
 * (forwarding: util/strategy_desc.h) by the hints files or the pattern
 * variables (any pattern), as the real parser reads them: for the thread
 * level asked of MPI_Init. No MPI, no warnings. */
int ferry_hints_env_may_forward(void);
/* getenv(ferry_name) when set, else getenv(other): ferry's own variable wins
 * over the equivalent one of another MPI-IO (Cray MPICH_MPIIO_*). */
static inline const char *ferry_env_either(const char *ferry_name, const char *other)
{
    const char *v = getenv(ferry_name);
    return v ? v : getenv(other);
}
/* The rules between hints, after every source is applied (the end of
 * ferry_hints_apply_env): romio_no_indep_rw=true turns collective
 * buffering on (an independent or automatic read/write strategy becomes
 * two-phase, romio_cb_read/_write report "enable"), as in ROMIO. */
void ferry_hints_derive(ferry_hints *h);
/* Applies a `key value` hints file (the FERRY_HINTS_FILE format). */
void ferry_hints_apply_file(ferry_hints *h, const char *path, ferry_hint_warnings *w);
/* The effective value of one hint as get_info reports it; returns 1 if the
 * key is ferry's (buf filled, truncated to len), 0 if unknown. */
int ferry_hints_get(const ferry_hints *h, const char *key, char *buf, size_t len);
/* Source of the field behind `key` (FERRY_HINT_SRC_DEFAULT for unknown keys). */
ferry_hint_source ferry_hints_source_of(const ferry_hints *h, const char *key);
/* 1 if every hint value of a and b is the same (sources are not compared). */
int ferry_hints_equal(const ferry_hints *a, const ferry_hints *b);
/* Every hint in effect as one JSON object (the "hints" member of the
 * FERRY_STATS_JSON record). snprintf semantics: returns the length the full
 * text needs; buf is always terminated when len > 0. */
int ferry_hints_to_json(const ferry_hints *h, char *buf, size_t len);
/* Collective over comm: every must-agree hint whose value differs between
 * ranks is reset to its default on every rank, with one warning each.
 * Returns the number of hints reset (the same on every rank). */
int ferry_hints_agree(ferry_hints *h, MPI_Comm comm, ferry_hint_warnings *w);
/* Appends one warning (printf format); capped, never overflows. w may be NULL. */
void ferry_hint_warn(ferry_hint_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* FERRY_HINTS_DISPLAY is set to a non-zero value (read once). */
int ferry_env_hints_display(void);
/* Lower-case names as the hints spell them ("twophase", "sieve", ...). */
const char *ferry_coll_strategy_name(ferry_coll_strategy s);
const char *ferry_ind_strategy_name(ferry_ind_strategy s);

#endif
