/*
 * decouple: the decoupled-I/O benchmark. It belongs to a later issue; until
 * then the name is reserved and says so (exit status 2), so scripts written
 * against the full pattern list fail clearly instead of silently.
 */
#include "bench.h"

const fb_pattern fb_pat_decouple = {
    .name = "decouple",
    .summary = "decoupled I/O (not built yet)",
    .unavailable = "not built yet: the decoupled-I/O benchmark comes with its own issue",
};
