/*
 * What a file remembers across runs: at open, rank 0 reads the store of
 * learned choices (core/learned.h) and every rank gets the entries for this
 * file system and job size (their count rides the broadcast of the
 * file-system facts the open already makes; the entries, when there are
 * any, follow in a second); at close, rank 0 adds what this open learned,
 * saved at MPI_Finalize.
 */
#ifndef FERRY_CORE_REMEMBER_H
#define FERRY_CORE_REMEMBER_H

#include "core/file.h"
#include "core/learned.h"

/* What travels with the file-system facts at open. */
typedef struct ferry_remember_wire {
    int n;
    ferry_learned_entry e[FERRY_REMEMBER_MAX];
} ferry_remember_wire;

/* Rank 0, before the broadcast: the store's entries for f's file system
 * (fs, already probed) and f's job size, the newest first. Nothing when
 * learning is off or there is no store; a store that cannot be read warns
 * once per process. */
void ferry_remember_load(const ferry_file *f, const ferry_fs_info *fs, ferry_remember_wire *w);
/* Every rank, after the broadcast: keeps the entries on f. */
void ferry_remember_keep(ferry_file *f, const ferry_remember_wire *w);
/* Adds one entry for rank 0 to keep at close. */
void ferry_remember_note(ferry_file *f, const ferry_learned_entry *e);
/* At close: rank 0 keeps what was noted for MPI_Finalize to save (later
 * opens in this process see it; a failed save warns once); every rank
 * frees what f kept. */
void ferry_remember_close(ferry_file *f);

#endif
