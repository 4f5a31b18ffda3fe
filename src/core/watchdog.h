/*
 * ferry_io_timeout: a bound on how long one system call on a file may
 * wait. Past it the job ends, with one line that names the rank, the file
 * and the call, rather than hanging every rank behind a file system that
 * neither answers nor fails (docs/reliability.md, "How long a job may
 * hang").
 */
#ifndef FERRY_CORE_WATCHDOG_H
#define FERRY_CORE_WATCHDOG_H

#include "driver/driver.h"

/* fd's system calls are watched with this bound from now on (0: not at
 * all); name must live as long as fd does. */
void ferry_watchdog_watch(ferry_fd *fd, const char *name, int seconds);

#endif
