/*
 * The ROMIO and Cray MPICH variables that existing job scripts set, beyond
 * the hints (hints_env.c) and the display switches (hints.c, stats.c): each
 * honoured, or refused with one line (docs/hints.md, "Variables of other
 * MPI-IO libraries").
 */
#ifndef FERRY_CORE_COMPAT_ENV_H
#define FERRY_CORE_COMPAT_ENV_H

#include <stdio.h>

/* ROMIO_PRINT_HINTS: rank 0 prints the hints at open in ROMIO's format. */
int ferry_env_romio_print_hints(void);
/* FERRY_ABORT_ON_RW_ERROR, else Cray's MPICH_MPIIO_ABORT_ON_RW_ERROR
 * ("enable"): a read or write the file system fails aborts the job. Returns
 * the variable's name when set, else NULL. */
const char *ferry_env_abort_on_rw_error(void);
/* The prefix of the per-rank CSV files of FERRY_STATS=2 (MPICH_MPIIO_STATS=2):
 * FERRY_STATS_FILE, else MPICH_MPIIO_STATS_FILE, else _cray_mpiio_stats_. */
const char *ferry_env_stats_file(void);
/* Once per process, on world rank 0 (at the first open): one line for each
 * ROMIO_* or MPICH_MPIIO_* variable ferry does not read, saying so. */
void ferry_env_compat_announce(FILE *out);

#endif
