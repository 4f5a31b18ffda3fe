/*
 * MPI's consistency rules on file systems whose client caches are not
 * coherent (a node's client keeps pages and sizes another node's writes
 * made stale): sync-barrier-sync, close-then-open and atomic mode must show
 * every rank the bytes other ranks wrote, whatever its client cached. This
 * file says when (the collective points); driver/coherence.h says how, from
 * the file system's facts. On coherent file systems every function here
 * returns at once, without communication.
 */
#ifndef FERRY_CORE_CONSISTENCY_H
#define FERRY_CORE_CONSISTENCY_H

#include "core/file.h"

/* Collective, once the file is open everywhere and its file system known:
 * drops this node's old pages and agrees on the size (a client that saw
 * less refreshes). Returns an MPI error code, the same on every rank. */
int ferry_consist_open(ferry_file *f);

/* Collective, the end of MPI_File_sync: `code` is this rank's outcome so far
 * (everything written is flushed). Agrees on it and on how far the ranks
 * wrote; puts back a size that racing clients left wrong; then every rank
 * drops its pages and refreshes a size short of the agreed one. */
int ferry_consist_sync(ferry_file *f, int code);

/* Collective, at close before the descriptor goes: syncs where close would
 * return early, and puts back a size racing clients left wrong. */
int ferry_consist_close(ferry_file *f);

/* Every rank before a size change is agreed: this rank's writes reach the
 * servers first (a client that writes behind would land them after the
 * cut), and rank 0's client, whose idea of the size a size change is
 * computed from on some file systems, is refreshed. Returns this rank's
 * MPI error code. */
int ferry_consist_before_resize(ferry_file *f);
/* Collective, after a size change that succeeded on every rank. Returns an
 * MPI error code, the same on every rank. */
int ferry_consist_after_resize(ferry_file *f, int64_t size, int truncate);

/* After a collective write whose bytes other ranks moved (aggregators):
 * `lo`..`hi` is what this rank asked to write, `wend` how far the ranks
 * wrote (agreed; 0 when the call's outcome already carried it). A later
 * read of its own bytes must not meet its client's old pages. */
void ferry_consist_after_aggregated_write(ferry_file *f, int64_t lo, int64_t hi, int64_t wend);

/* Before the size is read (get_size, seeking from the end): in atomic mode
 * other nodes' finished writes count without a sync, so the client's size
 * is refreshed first. */
void ferry_consist_before_size(ferry_file *f);

/* MPI_File_set_atomicity, agreed. */
void ferry_consist_set_atomic(ferry_file *f, int on);

#endif
