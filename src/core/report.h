/*
 * The job report (FERRY_REPORT=1 or a path): at MPI_Finalize rank 0 of
 * MPI_COMM_WORLD writes one report of the whole job: the files, their bytes,
 * the time per phase, what each kind of call ran with and what learning
 * measured, and recommendations backed by those measurements.
 *
 * The switch changes what is collective (statistics are reduced at every
 * close, and finalize gathers them), so the ranks agree on it at MPI_Init
 * in one allreduce: the report is on when any rank asks, written where rank
 * 0's FERRY_REPORT says (standard error when rank 0 did not ask), and rank 0
 * warns once when the ranks' settings differ.
 */
#ifndef FERRY_CORE_REPORT_H
#define FERRY_CORE_REPORT_H

#include "core/stats_internal.h"

/* Collective over MPI_COMM_WORLD, right after MPI_Init: agrees on the switch
 * and, when it is on, makes every close keep its file's reduced statistics
 * (ferry_stats_set_sink) and registers the report with MPI_Finalize. */
void ferry_report_init(void);

/* Pure, for tests: the report text of n files (malloc'd). */
char *ferry_report_text(const ferry_stats_total *files, const char *const *names, int n, int ranks,
                        const char *version);

#endif
