/*
 * Test-only fault injection at the system-call boundary. Only the test
 * library (build/<mpi>/lib/faults/libferry.so, compiled with FERRY_FAULTS)
 * has it: there FERRY_FAULT makes chosen calls fail so tests can prove that
 * every strategy retries what is retryable and reports what is not. The
 * product library makes the plain system calls and ignores FERRY_FAULT.
 *
 *   FERRY_FAULT="op=write,rank=1,nth=3,err=EIO[,times=1]"
 *   op: read | write | truncate | any (reads and writes);  rank: world rank (as
 *   the launcher sets it) or -1 for all;
 *   nth: the first failing call (1-based, counted per op on that rank);
 *   err: EIO | ENOSPC | EINTR | SHORT | GROW (a write succeeds and the size
 *   is left 4 KiB past its end, as racing GlusterFS shard clients do; a
 *   truncate leaves the size 4 KiB past the one asked for, as the shard
 *   translator does when it applies a cut from a stale size) | HANG (the
 *   call never returns: a server that neither answers nor fails);  times: how
 *   many calls fail (default 1, 0 = every call from nth on);  every: K
 *   fails only every K-th call from nth on (default 1).
 */
#ifndef FERRY_DRIVER_FAULTS_H
#define FERRY_DRIVER_FAULTS_H

#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The test library's own variables (FERRY_FAULT, FERRY_DECOUPLE_FAULT;
 * NULL-terminated), so that its misspelling check knows them; the product
 * neither reads nor names them, and there this is NULL. */
extern const char *const ferry_testlib_env_names[] __attribute__((weak));

#ifdef FERRY_FAULTS
ssize_t ferry_fault_pread(int fd, void *buf, size_t n, off_t off);
ssize_t ferry_fault_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t ferry_fault_preadv(int fd, const struct iovec *iov, int cnt, off_t off);
ssize_t ferry_fault_pwritev(int fd, const struct iovec *iov, int cnt, off_t off);
int ferry_fault_ftruncate(int fd, off_t size);
#else
#define ferry_fault_pread pread
#define ferry_fault_pwrite pwrite
#define ferry_fault_preadv preadv
#define ferry_fault_pwritev pwritev
#define ferry_fault_ftruncate ftruncate
#endif

#endif
