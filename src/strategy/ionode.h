/*
 * Collective buffering on I/O nodes (strategy `ionode`). The seeds'
 * machines put nodes of their own between compute and storage (Blue
 * Gene/Q's I/O nodes, seed 001's data nodes); there, a compute node's
 * bytes cross its link once, to the aggregator on an I/O node, instead of
 * twice as two-phase among compute ranks makes them (the shuffle, then the
 * aggregator's domain to storage).
 *
 * The first open of a group of ranks whose collective strategy hint names
 * `ionode` spawns one server on each I/O node of ferry_io_nodes
 * (ferry-iond, MPI_Comm_spawn) and merges the two groups into one
 * communicator, servers first; the group's later opens use the same
 * servers, which open each file too. Each collective call is then
 * two-phase on that communicator, the servers its
 * only aggregators and the compute ranks senders (or receivers) only:
 * two-phase's planning, rounds and buffers, run by both sides alike
 * (ferry_ion_call). Writes are on the servers' storage before the call
 * returns (each server syncs its file), so MPI's sync, close and size
 * rules need nothing more of them.
 */
#ifndef FERRY_STRATEGY_IONODE_H
#define FERRY_STRATEGY_IONODE_H

#include "strategy/pattern.h"
#include "strategy/twophase.h"

/* What the servers are told, by compute rank 0, before each step. */
enum { FERRY_ION_OPEN = 1, FERRY_ION_WRITE, FERRY_ION_READ, FERRY_ION_CLOSE, FERRY_ION_BYE };
typedef struct ferry_ion_cmd {
    int32_t kind;
    int32_t memo_valid;   /* two-phase's memo of this direction holds (alike on the compute ranks) */
    int64_t fid;          /* the file, numbered by its open on the link */
    int64_t floor;        /* the size the compute ranks agreed the file holds at least */
    ferry_pattern pat;    /* the call's, as the compute ranks agreed it */
} ferry_ion_cmd;

/* What the servers learn at an open, after its command, then the path
 * (pathlen bytes, at most FERRY_ION_PATH_MAX). */
#define FERRY_ION_PATH_MAX 4096
typedef struct ferry_ion_open {
    int32_t amode;
    int32_t pathlen;
    ferry_hints hints;    /* the compute ranks' (cb_buffer_size, striping: the plan's inputs) */
    ferry_fs_info fs;     /* the compute ranks' view of the file system, the plan's other input */
} ferry_ion_open;

/* The servers of one group of compute ranks: spawned at the group's first
 * open that asks for them, kept for its later opens, told to go at
 * MPI_Finalize. */
typedef struct ferry_ion_link {
    MPI_Comm inter;       /* from the spawn */
    MPI_Comm merged;      /* servers 0..nservers-1, then the compute ranks */
    int nservers;
    ferry_nodes nodes;    /* each server a node of its own, the compute ranks one more */
} ferry_ion_link;

/* One file on a link, as each side keeps it. */
typedef struct ferry_ion_file {
    int64_t fid;
    ferry_hints hints;    /* the compute ranks' */
    ferry_fs_info fs;
    ferry_tp_memo memo[2];
} ferry_ion_file;

/* Collective over l->merged, once merged and nservers are set, on both
 * sides: the link's node map; 0, or -1 where any rank is out of memory. */
int ferry_ion_link_nodes(ferry_ion_link *l);
/* Collective over l->merged: frees the link (both sides). */
void ferry_ion_unlink(ferry_ion_link *l);
void ferry_ion_file_free(ferry_ion_file *h);

/* Collective over l->merged: one collective call, two-phase with the
 * servers as aggregators. f is this side's file (a server's own open of
 * the path, or the compute rank's); x and runs its part (empty on a
 * server); the servers are the nodes' first ranks of l->nodes, so
 * two-phase's one aggregator per node are they. Servers refresh their
 * client's view of the file first and sync what they wrote. Returns the
 * outcome, the same on every rank; *wend is how far the servers' writes
 * reach. */
int ferry_ion_call(ferry_file *f, ferry_ion_link *l, ferry_ion_file *h, const ferry_ion_cmd *cmd,
                   const ferry_xfer *x, const ferry_runs *runs, int64_t *done, int64_t *wend);

/* This process is an I/O-node server: its own opens spawn nothing. */
void ferry_ion_serving(void);

/* Its descriptor's code (catalog.c). */
extern const struct ferry_strategy_code ferry_ionode_code;

#endif
