/*
 * A profiling library of the kind Darshan and mpiP are: it wraps MPI-IO
 * calls through the MPI profiling interface, counts them, and at
 * MPI_Finalize writes its own log through MPI-IO (as Darshan writes its log)
 * before the real MPI_Finalize.
 *
 * Built two ways:
 *  - by name (default): each wrapper calls PMPI_File_x, as the MPI standard's
 *    profiling interface describes;
 *  - PROF_DLSYM: as Darshan's LD_PRELOAD build, the wrappers find the next
 *    PMPI_File_x with dlsym(RTLD_NEXT) and the library defines the PMPI_
 *    names too (aliases of its wrappers).
 * Either way its own log is written by name: MPI_File_open,
 * PMPI_File_write_at_all, PMPI_File_close.
 *
 * PROF_LOG=path: the log, one fixed-size record per rank:
 * "rank R: open N, set_view N, ..." (the calls this rank's program made).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPEN, CLOSE, SET_VIEW, WRITE_AT, WRITE_AT_ALL, WRITE_ALL, IWRITE_AT, SYNC, READ_AT, READ_AT_ALL, READ_ALL,
       GET_SIZE, NCALLS };
static const char *const names[NCALLS] = {"open",    "close",       "set_view", "write_at", "write_at_all",
                                          "write_all", "iwrite_at", "sync",     "read_at",  "read_at_all",
                                          "read_all", "get_size"};
static long counts[NCALLS];
static int in_own_log; /* the library's own I/O is not the program's */

#define RECORD 512

static void count(int which)
{
    if (!in_own_log)
        counts[which]++;
}

#ifdef PROF_DLSYM
#define REAL(ret, fn, params) static ret(*real_##fn) params
#define CALL(fn, args)                                                                                                 \
    ((real_##fn ? 0 : (*(void **)&real_##fn = dlsym(RTLD_NEXT, #fn))), real_##fn args)
#define ALIAS(fn) __attribute__((alias(#fn)))
REAL(int, PMPI_File_open, (MPI_Comm, const char *, int, MPI_Info, MPI_File *));
REAL(int, PMPI_File_close, (MPI_File *));
REAL(int, PMPI_File_set_view, (MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info));
REAL(int, PMPI_File_write_at, (MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_write_at_all, (MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_write_all, (MPI_File, const void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_iwrite_at, (MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *));
REAL(int, PMPI_File_sync, (MPI_File));
REAL(int, PMPI_File_read_at, (MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_read_at_all, (MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_read_all, (MPI_File, void *, int, MPI_Datatype, MPI_Status *));
REAL(int, PMPI_File_get_size, (MPI_File, MPI_Offset *));
REAL(int, PMPI_Finalize, (void));
#else
#define CALL(fn, args) fn args
#endif

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    count(OPEN);
    return CALL(PMPI_File_open, (comm, filename, amode, info, fh));
}

int MPI_File_close(MPI_File *fh)
{
    count(CLOSE);
    return CALL(PMPI_File_close, (fh));
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                      MPI_Info info)
{
    count(SET_VIEW);
    return CALL(PMPI_File_set_view, (fh, disp, etype, filetype, datarep, info));
}

int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(WRITE_AT);
    return CALL(PMPI_File_write_at, (fh, off, buf, n, t, st));
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(WRITE_AT_ALL);
    return CALL(PMPI_File_write_at_all, (fh, off, buf, n, t, st));
}

int MPI_File_write_all(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(WRITE_ALL);
    return CALL(PMPI_File_write_all, (fh, buf, n, t, st));
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t, MPI_Request *req)
{
    count(IWRITE_AT);
    return CALL(PMPI_File_iwrite_at, (fh, off, buf, n, t, req));
}

int MPI_File_sync(MPI_File fh)
{
    count(SYNC);
    return CALL(PMPI_File_sync, (fh));
}

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(READ_AT);
    return CALL(PMPI_File_read_at, (fh, off, buf, n, t, st));
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(READ_AT_ALL);
    return CALL(PMPI_File_read_at_all, (fh, off, buf, n, t, st));
}

int MPI_File_read_all(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    count(READ_ALL);
    return CALL(PMPI_File_read_all, (fh, buf, n, t, st));
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    count(GET_SIZE);
    return CALL(PMPI_File_get_size, (fh, size));
}

/* The log, through MPI-IO by name, as Darshan writes its own. */
static void write_log(void)
{
    const char *path = getenv("PROF_LOG");
    if (!path || !*path)
        return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char rec[RECORD];
    memset(rec, ' ', sizeof rec);
    int o = snprintf(rec, sizeof rec, "rank %d:", rank);
    for (int i = 0; i < NCALLS && o < RECORD; i++)
        o += snprintf(rec + o, sizeof rec - (size_t)o, " %s %ld%s", names[i], counts[i], i + 1 < NCALLS ? "," : "");
    if (o < RECORD)
        rec[o] = ' ';
    rec[RECORD - 1] = '\n';
    in_own_log = 1;
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "prof: cannot open %s\n", path);
        return;
    }
    PMPI_File_write_at_all(fh, (MPI_Offset)rank * RECORD, rec, RECORD, MPI_CHAR, MPI_STATUS_IGNORE);
    PMPI_File_close(&fh);
    in_own_log = 0;
}

int MPI_Finalize(void)
{
    write_log();
    return CALL(PMPI_Finalize, ());
}

#ifdef PROF_DLSYM
/* Darshan's LD_PRELOAD build defines the PMPI_ names as aliases of its wrappers. */
int PMPI_File_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *) ALIAS(MPI_File_open);
int PMPI_File_close(MPI_File *) ALIAS(MPI_File_close);
int PMPI_File_set_view(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info)
    ALIAS(MPI_File_set_view);
int PMPI_File_write_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *) ALIAS(MPI_File_write_at);
int PMPI_File_write_at_all(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *)
    ALIAS(MPI_File_write_at_all);
int PMPI_File_write_all(MPI_File, const void *, int, MPI_Datatype, MPI_Status *) ALIAS(MPI_File_write_all);
int PMPI_File_iwrite_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *) ALIAS(MPI_File_iwrite_at);
int PMPI_File_sync(MPI_File) ALIAS(MPI_File_sync);
int PMPI_File_read_at(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *) ALIAS(MPI_File_read_at);
int PMPI_File_read_at_all(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *) ALIAS(MPI_File_read_at_all);
int PMPI_File_read_all(MPI_File, void *, int, MPI_Datatype, MPI_Status *) ALIAS(MPI_File_read_all);
int PMPI_File_get_size(MPI_File, MPI_Offset *) ALIAS(MPI_File_get_size);
int PMPI_Finalize(void) ALIAS(MPI_Finalize);
#endif
