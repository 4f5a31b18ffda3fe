/*
 * The thread level to ask of MPI at initialisation: forwarders' serving
 * threads call MPI beside the program, so a run whose environment asks for
 * forwarding needs MPI_THREAD_MULTIPLE (MPI_Init and MPI_Init_thread are
 * intercepted in src/decouple/init_hook.c). Hints given only through
 * MPI_Info come too late for this; such files fall back (see forward.c).
 */
#include "strategy/forward.h"
#include "core/hints.h"

int ferry_forward_thread_level(int required)
{
    int fwd = ferry_hints_env_may_forward();
    return fwd && required < MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
}
