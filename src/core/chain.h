/*
 * ferry inside the MPI profiling interface. A tool (Darshan, mpiP, a site's
 * own) wraps MPI_File_x and calls PMPI_File_x. Preloaded before libferry it
 * needs nothing: its PMPI_File_x call finds ferry's. Preloaded after, the
 * program's MPI_File_x call would find ferry's first and the tool would see
 * nothing: so ferry's MPI_File_x hands the call to the tool's, whose
 * PMPI_File_x call comes back to ferry. Only a tool that calls PMPI_File_x
 * by name gets it back to ferry; one that looks the MPI library up past
 * itself (dlsym RTLD_NEXT, as Darshan does) would leave ferry out, so it is
 * not given the call, and ferry says once how to order the two.
 */
#ifndef FERRY_CORE_CHAIN_H
#define FERRY_CORE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

typedef void (*ferry_fn)(void);

/* One per MPI_ entry point: 0 not looked up yet, FERRY_CHAIN_NONE no tool
 * to hand calls to, else the tool's function. */
typedef struct ferry_chain_slot {
    uintptr_t state;
} ferry_chain_slot;
#define FERRY_CHAIN_NONE ((uintptr_t)1)

/* any_tool 0: only a tool that calls the PMPI_ name by name (an MPI-IO
 * function ferry implements); 1: any tool (MPI_Init, which the MPI library
 * implements: a tool that skips ferry there loses nothing, and Darshan
 * starts in its MPI_Init). */
ferry_fn ferry_chain_resolve(const char *mpi_name, int any_tool, ferry_chain_slot *slot);

/* The common case, one load: known to have no tool after ferry. */
static inline int ferry_chain_none(ferry_chain_slot *slot)
{
    return __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) == FERRY_CHAIN_NONE;
}

static inline ferry_fn ferry_chain_next(const char *mpi_name, ferry_chain_slot *slot)
{
    uintptr_t v = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
    if (v == FERRY_CHAIN_NONE)
        return NULL;
    return v ? (ferry_fn)v : ferry_chain_resolve(mpi_name, 0, slot);
}

/* 1 if the MPI_File_open in progress was made by a profiling tool for
 * itself (its log, written at MPI_Finalize), not for the program: ferry
 * shows no hints, statistics or record for such a file. Looks at the
 * calling code only when such a tool is loaded. */
int ferry_chain_tool_file(void);

#endif
