/*
 * Files installed beside a tool: the build tree and an install lay a build
 * out alike (bin/ beside lib/ and share/ferry/), so a tool finds libferry,
 * ferry-bench or its scripts from where it runs, with no build path compiled in.
 */
#ifndef FERRY_TOOLS_EXE_DIR_H
#define FERRY_TOOLS_EXE_DIR_H

#include <stddef.h>

/* "<directory of the running program>/rel" in buf, or NULL when the
 * program's own path is unknown or buf is too small. */
const char *ferry_beside_exe(const char *rel, char *buf, size_t len);

#endif
