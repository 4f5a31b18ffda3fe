/*
 * The binding: one thin function per MPI_File_* entry point. Each checks its
 * arguments, turns the handle into ferry's file object, calls the core, and
 * sends any error through the file's error handler.
 *
 * Every entry point is defined under its PMPI_ name and again under its
 * MPI_ name, so profilers that call PMPI_ and Fortran bindings that call
 * either both reach ferry. The MPI_ name first hands the call to a
 * profiling tool preloaded after ferry, if there is one that will call
 * ferry's PMPI_ name back (core/chain.h).
 */
#ifndef FERRY_BINDING_BIND_H
#define FERRY_BINDING_BIND_H

#include <mpi.h>

#include "core/chain.h"
#include "core/async.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/io.h"

#define FERRY_PUBLIC __attribute__((visibility("default")))

/* FERRY_BIND(ret, MPI_File_x, (params), (args)) { body }: args names the
 * params in order, for handing the call on. */
#define FERRY_BIND(ret, name, params, args)                                          \
    static ret ferry_impl_##name params;                                             \
    FERRY_PUBLIC ret P##name params                                                  \
    {                                                                                \
        return ferry_impl_##name args;                                               \
    }                                                                                \
    static ferry_chain_slot ferry_slot_##name;                                       \
    static __attribute__((noinline, cold)) ret ferry_chain_##name params             \
    {                                                                                \
        ret(*tool_) params = (ret(*) params)ferry_chain_next(#name, &ferry_slot_##name); \
        return tool_ ? tool_ args : ferry_impl_##name args;                          \
    }                                                                                \
    FERRY_PUBLIC __attribute__((weak)) ret name params                               \
    {                                                                                \
        if (__builtin_expect(ferry_chain_none(&ferry_slot_##name), 1))              \
            return ferry_impl_##name args;                                           \
        return ferry_chain_##name args;                                              \
    }                                                                                \
    static ret ferry_impl_##name params

/* mpi.h declares the large-count (_c) forms only from MPI-4 on. */
#if MPI_VERSION >= 4
#define FERRY_HAVE_C 1
#else
#define FERRY_HAVE_C 0
#endif

/* Resolve a handle or return MPI_ERR_FILE through the MPI_FILE_NULL handler. */
#define FERRY_FILE(fh, f, fname)                                                         \
    ferry_file *f = NULL;                                                                \
    do {                                                                                 \
        if (!ferry_handles_valid(fh))                                                    \
            return ferry_raise(NULL, ferry_err(MPI_ERR_FILE, "invalid file handle"), fname); \
        f = ferry_file_of(fh);                                                           \
    } while (0)

/* The same, after the file's queued nonblocking and split collectives have
 * completed: for every call that is collective or changes the file. */
#define FERRY_FILE_SETTLED(fh, f, fname)                                                 \
    FERRY_FILE(fh, f, fname);                                                            \
    ferry_async_drain(f)

/* The same, and MPI_ERR_ARG unless the pointer argument out is set: for
 * the calls that answer through it. what names out in the error. */
#define FERRY_FILE_OUT(fh, f, out, what, fname)                                                                        \
    FERRY_FILE(fh, f, fname);                                                                                          \
    do {                                                                                                               \
        if (!(out))                                                                                                    \
            return ferry_raise(f, ferry_err(MPI_ERR_ARG, what " pointer is NULL"), fname);                             \
    } while (0)

/* The entry points that only hand the call to the core, whose handle is
 * named fh and whose core call (an expression) may use f, the file.
 * FERRY_BIND_SETTLED_CALL: a call that is collective or changes the file.
 * FERRY_BIND_GET: a query that answers through its pointer argument out. */
#define FERRY_BIND_SETTLED_CALL(name, params, args, call)                                                              \
    FERRY_BIND(int, name, params, args)                                                                                \
    {                                                                                                                  \
        FERRY_FILE_SETTLED(fh, f, #name);                                                                              \
        return ferry_raise(f, call, #name);                                                                            \
    }
#define FERRY_BIND_GET(name, params, args, out, what, call)                                                            \
    FERRY_BIND(int, name, params, args)                                                                                \
    {                                                                                                                  \
        FERRY_FILE_OUT(fh, f, out, what, #name);                                                                       \
        return ferry_raise(f, call, #name);                                                                            \
    }

/* The shared argument checks of every data call (on this rank only). */
int ferry_bind_check_data(ferry_file *f, const void *buf, MPI_Count count, MPI_Datatype type,
                          int is_write, ferry_where where, MPI_Offset offset);

/* Blocking, nonblocking and split forms of a data call, after the handle check. */
int ferry_bind_io(MPI_File fh, ferry_call *c, MPI_Status *status, const char *fname);
int ferry_bind_iio(MPI_File fh, ferry_call *c, MPI_Request *req, const char *fname);
int ferry_bind_begin(MPI_File fh, ferry_call *c, const char *fname);
int ferry_bind_end(MPI_File fh, int is_write, MPI_Status *status, const char *fname);

#endif
