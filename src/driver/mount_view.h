/*
 * Which mount table a process sees files through. Processes of one kernel
 * and one mount namespace reach a mount point through the same client, so
 * its page cache and sizes are theirs in common; processes of other hosts,
 * or of other namespaces of this host (the emulated cluster's nodes), have
 * their own clients.
 */
#ifndef FERRY_DRIVER_MOUNT_VIEW_H
#define FERRY_DRIVER_MOUNT_VIEW_H

#include <stdint.h>

/* The kernel's boot id and the mount namespace, as one number: equal for
 * processes that see one mount table. 0 when either cannot be read. */
uint64_t ferry_mount_view_id(void);

#endif
