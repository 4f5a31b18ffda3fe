/*
 * flash without parallel HDF5: this build found no HDF5 for its MPI, so the
 * pattern is listed but says why it cannot run (exit status 2).
 */
#include "bench.h"

#ifndef FB_MPI_FLAVOR
#define FB_MPI_FLAVOR "this MPI"
#endif

const fb_pattern fb_pat_flash = {
    .name = "flash",
    .summary = "FLASH-IO checkpoint through parallel HDF5",
    .unavailable = "this ferry-bench was built without parallel HDF5 for " FB_MPI_FLAVOR
                   " (install libhdf5-" FB_MPI_FLAVOR "-dev and reconfigure)",
};
