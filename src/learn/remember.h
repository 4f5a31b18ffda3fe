/*
 * What an open remembers across runs: at open, rank 0 reads the store of
 * learned choices (store.h) and every rank gets the entries for this file
 * system and job size (the core broadcasts them with the file-system facts
 * the open already sends); at close, rank 0 adds what this open learned,
 * and MPI_Finalize writes it to the store (ferry_remember_save).
 *
 * No MPI and no file object here: the caller names the store, the file
 * system and the job, and passes how a warning reaches a person.
 */
#ifndef FERRY_LEARN_REMEMBER_H
#define FERRY_LEARN_REMEMBER_H

#include "learn/store.h"

#define FERRY_REMEMBER_MAX 16 /* learned entries one open takes from the store */

/* What one open holds: the store's entries as rank 0 read them at open,
 * the same on every rank (known views known_e), and what this open
 * learned, which rank 0 keeps at close. */
typedef struct ferry_remember {
    ferry_learned known;
    ferry_learned_entry known_e[FERRY_REMEMBER_MAX];
    ferry_learned *noted;
} ferry_remember;

/* What travels with the file-system facts at open. */
typedef struct ferry_remember_wire {
    int n;
    ferry_learned_entry e[FERRY_REMEMBER_MAX];
} ferry_remember_wire;

/* Prints one line of warning (the core's, so every message reads alike). */
typedef void ferry_remember_warn(const char *line);

/* Rank 0, before the broadcast: the entries of the store at `path` (NULL:
 * no store, learning off) for file system fs at mount, and `ranks` ranks,
 * the newest first, over what this process's closes learned. A store that
 * cannot be read warns once per process. */
void ferry_remember_load(const char *path, const char *fs, const char *mount, int ranks, ferry_remember_wire *w,
                         ferry_remember_warn *warn);
/* Every rank, after the broadcast: keeps the entries in r. */
void ferry_remember_keep(ferry_remember *r, const ferry_remember_wire *w);
/* Adds one entry for rank 0 to keep at close. */
void ferry_remember_note(ferry_remember *r, const ferry_learned_entry *e);
/* At close: with `path` (rank 0's store; NULL elsewhere or without one)
 * keeps what was noted for ferry_remember_save, so that later opens of this
 * process see it; frees what r held. 1 when something waits to be saved. */
int ferry_remember_close(ferry_remember *r, const char *path, ferry_remember_warn *warn);
/* At MPI_Finalize: each store gets what this process's closes learned (a
 * failed save warns once). */
void ferry_remember_save(ferry_remember_warn *warn);

#endif
