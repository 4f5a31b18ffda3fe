#ifndef FERRY_CORE_FINALIZE_H
#define FERRY_CORE_FINALIZE_H

/* Caches that live until MPI_Finalize (node layouts, shared-pointer windows)
 * register their release here. MPI_Finalize deletes the attributes of
 * MPI_COMM_SELF first, while MPI is still usable; one attribute runs every
 * release, newest first, so a cache built on another comes down before it. */
void ferry_at_finalize(void (*release)(void));
/* Functions that run at MPI_Finalize before every release, while the caches
 * are still there, newest first: forwarding's stop of its serving threads,
 * then the close of the files left open. */
void ferry_at_finalize_first(void (*fn)(void));

#endif
