/*
 * The watchdog behind ferry_io_timeout. One thread per process, started by
 * the first file that asks for a bound, looks every second for a system
 * call that has waited past its descriptor's bound (driver/watch.h). A
 * server that stops answering without failing (a storage process stopped,
 * a link gone quiet, shorter than the file system's own timeout or with
 * none) holds the rank in the kernel and every other rank in the next
 * collective that needs it. The thread cannot call MPI (the program may run
 * at MPI_THREAD_SINGLE), so it says why and ends the process, and the
 * launcher ends the rest of the job as it does for any rank that dies.
 */
#define _GNU_SOURCE
#include "core/watchdog.h"
#include "core/say.h"
#include "driver/watch.h"

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* the exit status of a process the watchdog ends (EX_TEMPFAIL: the job may
 * succeed when run again) */
#define WATCHDOG_EXIT 75

static int world_rank = -1;
static pthread_once_t started = PTHREAD_ONCE_INIT;

static void *watch_loop(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec second = {1, 0};
        nanosleep(&second, NULL);
        ferry_watch_overdue o;
        if (!ferry_watch_find_overdue(&o))
            continue;
        ferry_say(FERRY_ERROR,
                  "rank %d: a %s system call on \"%s\" has not returned after %.0f s (ferry_io_timeout=%d): "
                  "the file system neither answers nor fails; ending the job",
                  world_rank, o.what ? o.what : "file", o.name, o.waited, o.seconds);
        _exit(WATCHDOG_EXIT);
    }
    return NULL;
}

static void start(void)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (inited)
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    /* the program's signals go to its own threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (pthread_create(&t, &attr, watch_loop, NULL) != 0)
        ferry_say(FERRY_WARN, "ferry_io_timeout: cannot start the watchdog thread; system calls are not bounded");
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ferry_watchdog_watch(ferry_fd *fd, const char *name, int seconds)
{
    fd->watch_name = name;
    fd->watch_seconds = seconds > 0 ? seconds : 0;
    if (seconds > 0)
        pthread_once(&started, start);
}
