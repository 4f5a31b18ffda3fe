/*
 * What the ranks agree on when they open a file, in one reduction: whether
 * the arguments are valid and the same everywhere, which cached
 * communicator and shared-pointer slot the file takes, whether every rank
 * already holds the hint files' text, how the open itself went, and rank
 * 0's facts (the file system, an appended file's size), which the others
 * take as theirs, and the environment switches (switches.h). An open of an existing file needs nothing more.
 */
#ifndef FERRY_CORE_OPEN_AGREE_H
#define FERRY_CORE_OPEN_AGREE_H

#include "core/switches.h"
#include "driver/fsinfo.h"

#include <mpi.h>
#include <stdint.h>

/* Rank 0's facts, the same on every rank after the agreement. */
typedef struct {
    int64_t size;      /* the file's size at open, for MPI_MODE_APPEND */
    int known;         /* entries the store of learned choices has for it (remember.h) */
    ferry_fs_info fs;
} ferry_open_facts;

/* This rank's side. */
typedef struct {
    int err;           /* error class of the arguments here */
    int amode;
    uint64_t digest;   /* of the hints that must agree */
    int64_t pool;      /* shared-pointer pool state (ferry_shfp_pool_state) */
    const char *name;
    int dup;           /* cached communicator picked (ferry_dups_pick) */
    int need_text;     /* the hint files' text is not held yet */
    int opened;        /* error class of this rank's open, if it opened already */
    ferry_open_facts facts; /* rank 0's count */
    ferry_switches sw; /* this process's environment switches (switches.h) */
} ferry_open_mine;

typedef struct {
    int err;           /* largest error class of the arguments */
    int amode_differs, hints_differ, names_differ;
    int need_text;
    int opened;        /* largest error class of the opens made before */
    int64_t pool;      /* the agreed pool state, -2 when the ranks' differ */
    int dup;           /* the agreed communicator entry, -1 when the ranks' differ */
    ferry_open_facts facts;
    int64_t sw_max[FERRY_SW_COUNT], sw_negmax[FERRY_SW_COUNT]; /* for ferry_switches_settle */
} ferry_open_agreed;

/* Collective over comm (the program's communicator). */
int ferry_open_agree(MPI_Comm comm, int rank, const ferry_open_mine *m, ferry_open_agreed *a);

#endif
