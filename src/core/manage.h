/* File management beyond open/close: size, sync, atomicity, pointers, info. */
#ifndef FERRY_CORE_MANAGE_H
#define FERRY_CORE_MANAGE_H

#include "core/file.h"

/* Collective; size must agree across ranks. */
int ferry_file_set_size(ferry_file *f, MPI_Offset size);
int ferry_file_preallocate(ferry_file *f, MPI_Offset size);
int ferry_file_get_size(ferry_file *f, MPI_Offset *size);
/* Collective: data written by this open reaches storage. */
int ferry_file_sync(ferry_file *f);
/* Collective; flag must agree. */
int ferry_file_set_atomicity(ferry_file *f, int flag);
/* Collective: applies hints; values that must agree follow rank 0. */
int ferry_file_set_info(ferry_file *f, MPI_Info info);

/* The hints as they act on f, for get_info and the display: cb_nodes is the
 * number of aggregators (chosen at open, then by the last two-phase call);
 * striping_factor is 0 where the file system does not stripe files and
 * direct_read/direct_write are false (ferry does no O_DIRECT I/O); each
 * such value has the source "derived". */
void ferry_file_hints_in_effect(const ferry_file *f, ferry_hints *out);
/* MPI_File_get_info: the hints in effect, without striping_factor where the
 * file system does not stripe (as ROMIO leaves it out there). */
int ferry_file_get_info(const ferry_file *f, MPI_Info *info);

/* Pointers (pointer.c), in etype units. */
int ferry_file_seek(ferry_file *f, MPI_Offset offset, int whence);
/* Collective: every rank gives the same offset and whence. */
int ferry_file_seek_shared(ferry_file *f, MPI_Offset offset, int whence);
int ferry_file_position_shared(ferry_file *f, MPI_Offset *offset);
/* The first etype offset at or past end of file, under the current view. */
int ferry_view_eof_offset(ferry_file *f, int64_t *off);

#endif
