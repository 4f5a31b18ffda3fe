/*
 * Where ferry-tune finds the ferry-bench it launches and the libferry it
 * preloads: beside itself (bin/ferry-bench, lib/libferry.so), as the build
 * tree and an install both lay them out, unless the build was configured with
 * fixed paths (FERRY_TUNE_BENCH, FERRY_TUNE_LIBFERRY) or the command line
 * gives them (--bench, --libferry).
 */
#include <stdio.h>
#include <unistd.h>

#include "exe_dir.h"
#include "tune.h"

#ifndef TUNE_BENCH
#define TUNE_BENCH ""
#endif
#ifndef TUNE_LIBFERRY
#define TUNE_LIBFERRY ""
#endif

void tune_paths_default(tune_run_cfg *c)
{
    static char bench[4096], lib[4096];
    c->bench = TUNE_BENCH[0] ? TUNE_BENCH : ferry_beside_exe("ferry-bench", bench, sizeof bench);
    c->libferry = TUNE_LIBFERRY[0] ? TUNE_LIBFERRY : ferry_beside_exe("../lib/libferry.so", lib, sizeof lib);
    if (!c->bench)
        c->bench = "ferry-bench"; /* no /proc: the one on PATH */
    if (!c->libferry)
        c->libferry = "libferry.so";
}

int tune_paths_check(const tune_run_cfg *c, FILE *err)
{
    int bad = 0;
    if (access(c->bench, X_OK) != 0) {
        fprintf(err, "ferry-tune: cannot run ferry-bench at %s (ferry-tune looks beside itself); give --bench PATH\n",
                c->bench);
        bad = 1;
    }
    if (access(c->libferry, R_OK) != 0) {
        fprintf(err, "ferry-tune: no libferry at %s (ferry-tune looks in ../lib beside itself); give --libferry PATH\n",
                c->libferry);
        bad = 1;
    }
    return bad ? -1 : 0;
}
