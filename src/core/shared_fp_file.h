/*
 * The shared file pointer kept in a locked hidden file, for files whose
 * ranks the MPI library cannot join in a window (shared_fp_file.c).
 */
#ifndef FERRY_CORE_SHARED_FP_FILE_H
#define FERRY_CORE_SHARED_FP_FILE_H

#include "core/file.h"

/* Collective: rank 0 creates the file holding `initial`, every rank opens
 * it. Returns an MPI error code, the same on every rank. */
int ferry_shfp_file_open(ferry_file *f, int64_t initial);
/* Independent: *old = the pointer, which moves by delta (0: a read). */
int ferry_shfp_file_fetch_add(ferry_file *f, int64_t delta, int64_t *old);
/* The pointer becomes value (rank 0 inside a collective reset). */
int ferry_shfp_file_set(ferry_file *f, int64_t value);
/* Every rank closes its descriptor; rank 0 keeps the name until ... */
void ferry_shfp_file_close(ferry_file *f);
/* ... every rank has agreed on the close: then it removes the file. */
void ferry_shfp_file_remove(ferry_file *f);

#endif
