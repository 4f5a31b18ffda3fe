/*
 * The watchdog behind ferry_io_timeout. One thread per process, started by
 * the first file that asks for a bound, looks every second for a system
 * call that has waited past its descriptor's bound (driver/watch.h). A
 * server that stops answering without failing (a storage process stopped,
 * a link gone quiet, shorter than the file system's own timeout or with
 * none) holds the rank in the kernel and every other rank in the next
 * collective that needs it. The thread says why and aborts the job: the
 * other ranks wait in MPI, not in the file system, and a launcher does
 * not always end them when one rank merely exits (MPICH's hydra across
 * nodes left them waiting). MPI_Abort from this thread is outside what
 * MPI_THREAD_SINGLE allows, but the rank's own thread is held in a system
 * call, not in MPI; should the abort not return nor end the process, a
 * guard ends it a few seconds later.
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

/* how long the abort may take before the process ends itself */
#define ABORT_GRACE_S 5

/* how long the line saying why stays with the launcher before the abort:
 * hydra's proxy, told to abort, ends the job without reading what is left
 * in the rank's standard error (1 run in 27 lost the line) */
#define SAY_GRACE_MS 500

static int world_rank = -1;

static void *guard(void *arg)
{
    (void)arg;
    struct timespec grace = {ABORT_GRACE_S, 0};
    nanosleep(&grace, NULL);
    _exit(WATCHDOG_EXIT);
    return NULL;
}

/* Ends the job from the watchdog's thread (the process at least). */
static void end_job(void)
{
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    struct timespec say = {0, SAY_GRACE_MS * 1000000L};
    nanosleep(&say, NULL);
    pthread_t t;
    if (inited && !finalized && pthread_create(&t, NULL, guard, NULL) == 0)
        MPI_Abort(MPI_COMM_WORLD, WATCHDOG_EXIT);
    _exit(WATCHDOG_EXIT);
}
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
        end_job();
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
