/*
 * Two-phase collective buffering. Each aggregator owns a file domain and
 * works through it in rounds of at most cb_buffer_size bytes. Ranks send an
 * aggregator only the pieces in its domain: a counts exchange tells each
 * aggregator how many ranks will talk to it, then each rank sends its piece
 * list to those aggregators alone, so no rank ever holds all P lists. Data
 * moves straight between user buffers and aggregator buffers through derived
 * datatypes: non-aggregators use no data buffers, and an aggregator uses two
 * of the process's kept buffers (buffers.h), writing one round in a helper
 * thread while it receives the next.
 */
#ifndef FERRY_STRATEGY_TWOPHASE_H
#define FERRY_STRATEGY_TWOPHASE_H

#include "strategy/aggregators.h"
#include "strategy/pattern.h"

/* File domains are at least this large: below it, fewer aggregators do better. */
#define FERRY_TP_MIN_DOMAIN ((int64_t)1 << 20)

/* The plan of one call on one rank. */
typedef struct ferry_tp_piece {
    int64_t off, len;  /* file bytes */
    int64_t mem0;      /* first memory run of this piece in the message's list */
    int round;
} ferry_tp_piece;

typedef struct ferry_tp_out {     /* what this rank exchanges with one aggregator */
    ferry_tp_piece *p;
    int64_t n, cap;
    MPI_Aint *maddr;              /* memory runs, absolute addresses */
    int *mlen;
    int64_t mn, mcap;
} ferry_tp_out;

typedef struct ferry_tp_sender {  /* what an aggregator learns from one rank */
    int rank;
    int64_t *pairs;               /* off, len, off, len, ... */
    int64_t n;
    int64_t cursor;
} ferry_tp_sender;

typedef struct ferry_tp_plan {
    ferry_domains d;
    ferry_aggs aggs;
    int64_t round_bytes;
    ferry_tp_out *out;            /* per aggregator index */
    ferry_tp_sender *senders;     /* mine, if I aggregate */
    int nsenders;
} ferry_tp_plan;

/* What the last two-phase call on a file in one direction agreed. A call
 * whose every rank moved its runs by the same shift, over domains moved by
 * that shift, has the same senders per aggregator with the same piece lists
 * moved: the counts exchange and the piece-list messages are skipped, and
 * each aggregator moves the lists it kept. `valid` must be alike on every
 * rank (the caller clears it after any failed or other-strategy call). */
typedef struct ferry_tp_memo {
    int valid;
    ferry_domains d;
    ferry_tp_sender *senders;     /* copies, cursors at 0 */
    int nsenders;
    /* seconds this rank's last plan spent exchanging the lists (0: kept
     * ones moved): paid once while a pattern repeats, so what learning
     * compares leaves it out, as it does local's node window */
    double listed;
    /* seconds this rank's last call spent making buffers (buffers.h):
     * once per process, left out of the call's time as the lists are */
    double fresh;
} ferry_tp_memo;
void ferry_tp_memo_free(ferry_tp_memo *memo);

/* Collective: cuts this rank's runs into per-aggregator, per-round pieces
 * and exchanges piece lists with the aggregators. `cb_nodes` aggregators
 * (0: the file's cb_nodes hint). Updates *memo (may be NULL). */
int ferry_tp_plan_make(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_pattern *pat,
                       const ferry_nodes *nodes, int cb_nodes, ferry_tp_memo *memo, ferry_tp_plan *plan);
void ferry_tp_plan_free(ferry_tp_plan *plan);

int ferry_tp_round_of(const ferry_tp_plan *plan, int64_t off);

/* Collective, with `cb_nodes` aggregators (0: the file's cb_nodes hint).
 * *done is what this rank moved (0 for a write that failed anywhere). */
int ferry_twophase(ferry_file *f, const ferry_xfer *x, const ferry_runs *runs, const ferry_pattern *pat,
                   const ferry_nodes *nodes, int cb_nodes, ferry_tp_memo *memo, int64_t *done);

/* Its descriptor's code (catalog.c): runs it for the collective engine,
 * keeps its memo per direction, and at open works out the aggregators a
 * call would have, which cb_nodes reports until a call chooses. */
extern const struct ferry_strategy_code ferry_twophase_code;

/* Message tags on the file's private communicator. */
enum { FERRY_TAG_META = 0x4e00, FERRY_TAG_DATA = 0x5000, FERRY_TAG_ROUNDS = 0x2000 };

#endif
