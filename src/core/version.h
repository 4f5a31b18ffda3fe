/*
 * The version, from CMake's project(VERSION), and the MPI this build is for.
 * One source for the library (ferry_version() in ferry.h), its displays and
 * records, and the tools (the ferry_version object library, which tools
 * that do not link libferry compile in).
 */
#ifndef FERRY_CORE_VERSION_H
#define FERRY_CORE_VERSION_H

/* "0.1.0" */
const char *ferry_version_number(void);
/* "openmpi" or "mpich": the MPI ABI this build targets */
const char *ferry_version_flavor(void);

#endif
