/*
 * The file object: what an MPI_File handle points to under ferry. The MPI
 * library never sees it; the binding casts between the two.
 */
#ifndef FERRY_CORE_FILE_H
#define FERRY_CORE_FILE_H

#include <mpi.h>
#include <stdint.h>

#include "core/hints.h"
#include "learn/remember.h"
#include "core/stats.h"
#include "core/switches.h"
#include "datatype/flat.h"
#include "driver/driver.h"

#define FERRY_FILE_MAGIC 0x46455252u /* "FERR" */

typedef struct ferry_view {
    int64_t disp;             /* bytes */
    MPI_Datatype etype;       /* owned duplicates (or the named type itself) */
    MPI_Datatype filetype;
    int64_t etype_size;
    ferry_flat *ft;           /* flattened filetype, a reference */
    char datarep[64];
    int is_bytes;             /* etype and filetype are contiguous bytes: offsets are plain */
} ferry_view;

/* State of an active split collective (MPI allows one per file handle). */
typedef struct ferry_split {
    int active;
    int is_write;
    int err;
    int64_t bytes;
} ferry_split;

typedef struct ferry_file {
    uint32_t magic;
    MPI_Comm comm;            /* private duplicate: ferry's traffic never meets the program's */
    struct ferry_dups *dups;  /* ... cached per program communicator (dups.h) */
    int dup_idx;              /* ... in this entry, or -1: the file's own, freed at close */
    int rank, size;
    char *filename;           /* as the program gave it */
    char *path;               /* driver prefix stripped */
    int amode;
    ferry_fd fd;
    int fd_readable;          /* WRONLY files are opened read-write when allowed, for read-modify-write */
    ferry_fs_info fs;         /* what the file system is and guarantees (driver/fsinfo.h) */
    ferry_hints hints;
    ferry_view view;
    int64_t fp;               /* individual file pointer, etype units */
    MPI_Win shfp_win;         /* shared file pointer lives on rank 0 ... */
    int shfp_slot;            /* ... at this displacement */
    struct shfp_pool *shfp_pool; /* the pooled window it shares, or NULL: a window of its own */
    int64_t *shfp_owned;      /* memory of a window made with MPI_Win_create, or NULL */
    int shfp_windowless;      /* no window across these ranks: ... */
    struct ferry_shfp_file *shfp_file; /* ... the pointer is in a locked hidden file, or nowhere (NULL) */
    int64_t shfp_self;        /* ... or here, when the file is opened by one rank */
    int64_t shfp_base;        /* the slot holds the pointer minus this (its value at open) */
    int shfp_touched;         /* this rank used the shared pointer since the last reset */
    int shfp_dirty;           /* this rank may have left the slot other than 0 */
    int atomic;
    /* a handle among several of one process on this file (a decoupled data
     * server's sessions): sizes racing clients left are not its to set */
    int no_size_fixup;
    /* the size last agreed with the servers (consistency.c): writes that
     * reach past it may have left a wrong one there */
    int64_t settled_size;
    MPI_Errhandler errhandler;
    int f2c;                  /* index in the handle table */
    uint64_t opened;          /* this process's count of opens at this one: files close in this order at MPI_Finalize */
    ferry_split split;
    struct ferry_coll *coll;  /* collective strategies' state, built at the first collective call */
    struct ferry_async *async; /* worker for nonblocking and split collectives (async.c), or NULL */
    char coll_shown[64];      /* strategies whose aggregator placement was displayed */
    ferry_switches sw;        /* the environment switches as the ranks agreed them at open */
    int cb_nodes_used;        /* aggregators: the default choice at open, then the last two-phase call's */
    ferry_remember remember;  /* the store's entries for this file system and job, and what this open learned */
    ferry_stats stats;
} ferry_file;

static inline MPI_File ferry_handle(ferry_file *f) { return (MPI_File)(void *)f; }
static inline ferry_file *ferry_file_of(MPI_File h) { return (ferry_file *)(void *)h; }

/* Handle table: validation of handles and the Fortran integer mapping. */
int ferry_handles_add(ferry_file *f);
void ferry_handles_remove(ferry_file *f);
/* The live files, in the order they were opened (caller frees the array);
 * returns how many, or -1 when out of memory. */
int ferry_handles_live(ferry_file ***out);
/* 1 if h is a live ferry file (never dereferences a stale handle). */
int ferry_handles_valid(MPI_File h);
MPI_Fint ferry_handles_c2f(MPI_File h);
MPI_File ferry_handles_f2c(MPI_Fint i);

/* Open and close: collective over comm. Return an MPI error code. */
/* local_err: the binding's check of this rank's arguments; the open fails on
 * every rank if it is set on any. quiet: the file is a profiling tool's own
 * (core/chain.h), shown in no display, statistics or record. */
int ferry_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, int local_err, int quiet,
                    ferry_file **out);
int ferry_file_close(ferry_file *f);
/* A check a layer above puts in front of every open (decoupled I/O: the
 * program must have set its data processes aside before it opens files):
 * MPI_SUCCESS, or an error code that fails the open on every rank. */
void ferry_open_check_set(int (*check)(void));
int ferry_file_delete(const char *filename, MPI_Info info);

/* Views (view.c). */
void ferry_view_init(ferry_view *v);
void ferry_view_free(ferry_view *v);
/* Collective. Checks the arguments, agrees on errors across ranks, and resets
 * both file pointers. */
int ferry_view_set(ferry_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                   const char *datarep, MPI_Info info);
/* The byte offset of view position `off` (in etypes). */
int64_t ferry_view_byte_offset(const ferry_file *f, int64_t off);

/* Shared file pointer (shared_fp.c); values in etype units. */
/* This rank's pooled shared-pointer slots for comm's group (a bit mask), or
 * FERRY_SHFP_NO_POOL; the open agrees on it and passes the agreed value to
 * create (FERRY_SHFP_OWN_WINDOW where the ranks disagree). */
#define FERRY_SHFP_NO_POOL (-1)
#define FERRY_SHFP_OWN_WINDOW (-2) /* a window of the file's own, not a pool's */
#define FERRY_SHFP_NO_WINDOWS (-3) /* the group has been found to get no windows */
int64_t ferry_shfp_pool_state(MPI_Comm comm, struct ferry_dups *d);
/* Collective only where a window is made (the first open of a group, or
 * ranks that disagree); the result is agreed then. */
int ferry_shfp_create(ferry_file *f, int64_t initial, int64_t agreed);
/* Collective, once the file system is known (f->fs): where no window could
 * be made, the pointer goes to a locked hidden file if the file system's
 * locks hold across nodes. Never fails the open: shared-pointer calls say
 * so if there is no pointer. */
int ferry_shfp_settle(ferry_file *f);
/* Collective close; moved: some rank's shfp_dirty (agreed). */
void ferry_shfp_free(ferry_file *f, int moved);
/* ... and once every rank has agreed on the close, rank 0 removes what is
 * left of it (the hidden file). */
void ferry_shfp_closed(ferry_file *f);
int ferry_shfp_fetch_add(ferry_file *f, int64_t delta, int64_t *old);
/* Collective: every rank leaves with the pointer at `value`. */
int ferry_shfp_reset(ferry_file *f, int64_t value);

#endif
