/*
 * The slots of driver/watch.h. A thread claims a free one on its first
 * watched call and gives it back when it ends; a slot's start time is 0
 * while its thread is outside a system call. The watchdog reads the name only of a slot whose call
 * has been waiting longer than its bound, so its thread is blocked in
 * the kernel and not writing the slot.
 */
#define _GNU_SOURCE
#include "driver/watch.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define WATCH_SLOTS 256

typedef struct {
    atomic_int taken;
    _Atomic int64_t since_ns; /* 0: not in a watched call */
    _Atomic int seconds;
    const char *_Atomic what;
    char name[256];
} watch_slot;

static watch_slot slots[WATCH_SLOTS];
static atomic_int high; /* slots ever taken: the watchdog looks no further */
static _Thread_local watch_slot *mine;
/* a watched call inside another (the coherence layer's refresh inside a
 * truncate) leaves the outer one's start in place */
static _Thread_local int depth;
static pthread_key_t owner;
static pthread_once_t owner_once = PTHREAD_ONCE_INIT;

static void give_back(void *slot)
{
    watch_slot *s = slot;
    atomic_store(&s->since_ns, 0);
    atomic_store(&s->taken, 0);
}

static void make_owner(void) { pthread_key_create(&owner, give_back); }

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* past 256 threads at once, the rest go unwatched (and look again at
 * their next call) */
static watch_slot *my_slot(void)
{
    if (mine)
        return mine;
    pthread_once(&owner_once, make_owner);
    for (int i = 0; i < WATCH_SLOTS; i++) {
        int free_slot = 0;
        if (!atomic_compare_exchange_strong(&slots[i].taken, &free_slot, 1))
            continue;
        mine = &slots[i];
        pthread_setspecific(owner, mine);
        int h = atomic_load(&high);
        while (h < i + 1 && !atomic_compare_exchange_weak(&high, &h, i + 1))
            ;
        return mine;
    }
    return NULL;
}

void ferry_watch_begin(const ferry_fd *f, const char *what)
{
    if (f->watch_seconds <= 0 || depth++ > 0)
        return;
    int saved = errno; /* a first slot's pthread calls may set it */
    watch_slot *s = my_slot();
    errno = saved;
    if (!s)
        return;
    const char *name = f->watch_name ? f->watch_name : "";
    size_t n = strnlen(name, sizeof s->name - 1);
    memcpy(s->name, name, n);
    s->name[n] = '\0';
    atomic_store(&s->what, what);
    atomic_store(&s->seconds, f->watch_seconds);
    atomic_store(&s->since_ns, now_ns());
}

void ferry_watch_end(const ferry_fd *f)
{
    if (f->watch_seconds <= 0 || --depth > 0)
        return;
    if (mine)
        atomic_store(&mine->since_ns, 0);
}

int ferry_watch_find_overdue(ferry_watch_overdue *out)
{
    int n = atomic_load(&high), found = 0;
    int64_t now = now_ns();
    for (int i = 0; i < n; i++) {
        watch_slot *s = &slots[i];
        int64_t since = atomic_load(&s->since_ns);
        int bound = atomic_load(&s->seconds);
        if (since == 0 || bound <= 0)
            continue;
        double waited = (double)(now - since) / 1e9;
        if (waited <= bound || (found && waited <= out->waited))
            continue;
        memcpy(out->name, s->name, sizeof out->name);
        out->name[sizeof out->name - 1] = '\0';
        out->what = atomic_load(&s->what);
        out->waited = waited;
        out->seconds = bound;
        found = 1;
    }
    return found;
}
