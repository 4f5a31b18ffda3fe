/*
 * Seeing other clients' writes where a file system's client caches are not
 * coherent (ferry_fs_info.coherent_cache = 0; docs/filesystems.md,
 * "Consistency across nodes"). The core decides when (MPI's consistency
 * points: sync, open, close, atomic mode); this file knows how, from the
 * file system's facts: drop the pages this client cached, refresh the size
 * it believes (a forced stat, or a listing of the directory where only that
 * reaches the client's own size caches), and sync before close where close
 * returns before the data is out.
 *
 * A size this client holds can be too small, so a read that stops short
 * below what the ranks agreed the file holds (the floor the core sets) is
 * taken for a stale size, not end of file: the size is refreshed and the
 * read goes on. In atomic mode every short read is suspect and every read
 * drops the pages it covers first.
 *
 * Descriptors on coherent file systems carry no state and pay nothing.
 */
#ifndef FERRY_DRIVER_COHERENCE_H
#define FERRY_DRIVER_COHERENCE_H

#include <stdint.h>

#include "driver/driver.h"

/* Gives fd the state its file system needs (none where caches are
 * coherent). path is kept by the caller for as long as fd is open. Returns
 * 0 or -ENOMEM. */
int ferry_coh_attach(ferry_fd *fd, const char *path, const ferry_fs_info *fs);
/* Frees it; the POSIX driver's close calls this. */
void ferry_coh_detach(ferry_fd *fd);
/* 1 when fd's file system needs any of this. */
int ferry_coh_active(const ferry_fd *fd);

/* Lists the directory holding path. Where clients cache names (GlusterFS),
 * a file another client created since, or deleted and created again,
 * shows here only after that (its READDIRPLUS replaces the old entry).
 * Returns 0 or -errno. */
int ferry_coh_list_dir(const char *path);

/* Drops this client's cached pages of [off, off + len) (len 0: to the end). */
void ferry_coh_drop(ferry_fd *fd, int64_t off, int64_t len);
/* Drops every cached page and refreshes the size this client believes;
 * list: also by listing the directory where only that refreshes it. A
 * file small enough for a whole-file client cache is listed always: only
 * that refreshes its content. Returns 0 or -errno. */
int ferry_coh_refresh(ferry_fd *fd, int list);
/* The size this client believes, past the kernel's attribute cache where
 * that helps (not past caches only a listing reaches). */
int ferry_coh_client_size(ferry_fd *fd, int64_t *size);

/* The size was set (cut: set_size; else preallocate, which only grows):
 * the agreed size follows, and so does the end of this descriptor's
 * writes where the cut removed them. */
void ferry_coh_resized(ferry_fd *fd, int64_t size, int cut);
/* Grows a small file, sparse, past the largest whole-file client cache of
 * fs (ferry_fs_info.whole_file_cache), so that every read of it under a
 * lock reaches the servers. For files ferry keeps beside the data (the
 * shared file pointer's). Returns 0 or -errno. */
int ferry_coh_outgrow_whole_file_cache(ferry_fd *fd, const ferry_fs_info *fs);

/* What the core agreed the file holds at least (set at open, sync, size
 * changes; reads short of it refresh and retry). */
void ferry_coh_set_floor(ferry_fd *fd, int64_t floor);
int64_t ferry_coh_floor(const ferry_fd *fd);
/* One past the furthest byte written through fd since it was opened. */
int64_t ferry_coh_written_end(const ferry_fd *fd);
/* 1 if fd wrote since its last sync. */
int ferry_coh_dirty(const ferry_fd *fd);
/* MPI atomic mode: reads drop what they cover (and refresh a small file's
 * whole-file cache) and distrust short reads. */
void ferry_coh_set_atomic(ferry_fd *fd, int on);

/* Hooks of the POSIX driver. */
void ferry_coh_wrote(ferry_fd *fd, int64_t off, int64_t n);
void ferry_coh_synced(ferry_fd *fd);
void ferry_coh_before_read(ferry_fd *fd, int64_t off, int64_t len);
/* Where racing clients make sizes too large (ferry_fs_info.size_race),
 * outside atomic mode: the end of the file as the ranks agreed it and this
 * descriptor wrote it, where reads stop and which the size is. Elsewhere
 * INT64_MAX. Other ranks' growth since the last sync is not in it, and MPI
 * does not ask that it be seen. */
int64_t ferry_coh_read_limit(const ferry_fd *fd);
/* ftruncate, where a cut to a multiple of the file system's block would
 * empty the block below it (ferry_fs_info.cut_unit) without doing so;
 * 0 or -errno. The driver's truncate and the atomic growth's settling use
 * it. */
int ferry_coh_cut(ferry_fd *fd, int64_t size);
/* A read came back short at byte `at`: 1 if the size was refreshed because
 * the file should reach further, and the read should go on. */
int ferry_coh_retry_short(ferry_fd *fd, int64_t at);
/* Atomic mode where clients growing a file at once leave its size wrong
 * (ferry_fs_info.size_race): every write holds one lock all writes take,
 * with this client's size refreshed, until grow_end has synced it. begin
 * returns 1 (held), 0 (not needed) or -errno; end returns 0 or -errno. */
int ferry_coh_grow_begin(ferry_fd *fd);
int ferry_coh_grow_end(ferry_fd *fd, int held);
/* 1 if [from, to) of fd's file reads as zeros only (racing clients' growth
 * holds no byte anybody wrote); 0 otherwise or on error (*err = -errno). */
int ferry_coh_zeros(ferry_fd *fd, int64_t from, int64_t to, int *err);
/* The same over every write of one call from this thread (one lock, one
 * refresh and one sync instead of one per write). */
int ferry_coh_call_grow_begin(ferry_fd *fd);
int ferry_coh_call_grow_end(ferry_fd *fd, int held);
/* 1 if close must sync first (close returns early and fd wrote). */
int ferry_coh_sync_before_close(const ferry_fd *fd);

#endif
