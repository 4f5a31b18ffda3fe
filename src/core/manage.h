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

/* Pointers (pointer.c), in etype units. */
int ferry_file_seek(ferry_file *f, MPI_Offset offset, int whence);
/* Collective: every rank gives the same offset and whence. */
int ferry_file_seek_shared(ferry_file *f, MPI_Offset offset, int whence);
int ferry_file_position_shared(ferry_file *f, MPI_Offset *offset);
/* The first etype offset at or past end of file, under the current view. */
int ferry_view_eof_offset(ferry_file *f, int64_t *off);

#endif
