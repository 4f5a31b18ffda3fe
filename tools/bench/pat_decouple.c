/*
 * decouple: the decoupled-I/O benchmark calls ferry's own API (data
 * processes, operations), which this MPI-only program cannot; it lives in
 * ferry-decouple-bench, launched by ferry-run and driven by
 * bench/decouple.sh. The name stays here and points there (exit status 2),
 * so scripts written against the full pattern list fail clearly; it is
 * built beside ferry-bench, so it is no pattern "not available".
 */
#include "bench.h"

const fb_pattern fb_pat_decouple = {
    .name = "decouple",
    .summary = "decoupled I/O",
    .elsewhere = "ferry-decouple-bench, launched with ferry-run -np N -dp M (bench/decouple.sh, docs/decoupled.md)",
};
