/*
 * decouple: the decoupled-I/O benchmark calls ferry's own API (data
 * processes, operations), which this MPI-only program cannot; it lives in
 * ferry-decouple-bench, launched by ferry-run and driven by
 * bench/decouple.sh. The name stays here and points there (exit status 2),
 * so scripts written against the full pattern list fail clearly.
 */
#include "bench.h"

const fb_pattern fb_pat_decouple = {
    .name = "decouple",
    .summary = "decoupled I/O: see ferry-decouple-bench",
    .unavailable = "it is its own program: ferry-run -np N -dp M ferry-decouple-bench (bench/decouple.sh, "
                   "docs/decoupled.md)",
};
