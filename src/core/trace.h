/*
 * FERRY_TRACE=PATH: the data sends and storage writes a run made, in the
 * format of docs/trace-format.md, so ferry-topo replay can cost the same
 * traffic on a much larger machine model. Each rank appends one JSON line per
 * closed file; ranks are MPI_COMM_WORLD ranks.
 */
#ifndef FERRY_CORE_TRACE_H
#define FERRY_CORE_TRACE_H

#include <mpi.h>
#include <stdint.h>

int ferry_trace_on(void);
/* A send of `bytes` from this rank to rank `dst` of comm. */
void ferry_trace_send(MPI_Comm comm, int dst, int64_t bytes);
/* Appends this rank's records (and `write_bytes` written by it) to the trace
 * file and forgets them. */
void ferry_trace_flush(int64_t write_bytes, int64_t write_calls);

#endif
