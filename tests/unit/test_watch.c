/* The driver's watch on system calls (driver/watch.h), which the watchdog
 * of ferry_io_timeout reads: a call past its bound is found with its file
 * and kind, one within it or outside any call is not, descriptors without
 * a bound are not watched, a call inside another leaves the outer one
 * watched, and threads give their slots back. */
#include "driver/watch.h"
#include "unit/check.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

static void pause_for(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void *begin_end(void *arg)
{
    ferry_fd *f = arg;
    ferry_watch_begin(f, "write");
    ferry_watch_end(f);
    return NULL;
}

static void *stuck(void *arg)
{
    ferry_fd *f = arg;
    ferry_watch_begin(f, "fsync");
    pause_for(1.3);
    return NULL; /* ends inside the call: its slot goes back all the same */
}

int main(void)
{
    ferry_fd f = {.fd = -1, .watch_seconds = 1, .watch_name = "/mnt/x/checkpoint.h5"};
    ferry_fd plain = {.fd = -1, .watch_seconds = 0, .watch_name = "/mnt/x/other"};
    ferry_watch_overdue o;

    CHECK(!ferry_watch_find_overdue(&o));
    ferry_watch_begin(&f, "write");
    CHECK(!ferry_watch_find_overdue(&o)); /* within its bound */
    pause_for(1.2);
    CHECK(ferry_watch_find_overdue(&o));
    CHECK_STR(o.name, "/mnt/x/checkpoint.h5");
    CHECK_STR(o.what, "write");
    CHECK(o.seconds == 1);
    CHECK(o.waited > 1.0 && o.waited < 60.0);
    ferry_watch_end(&f);
    CHECK(!ferry_watch_find_overdue(&o));

    /* a watched call inside another (a refresh inside a truncate): the
     * outer call stays watched after the inner one ends */
    ferry_watch_begin(&f, "ftruncate");
    ferry_watch_begin(&f, "statx");
    ferry_watch_end(&f);
    pause_for(1.2);
    CHECK(ferry_watch_find_overdue(&o));
    CHECK_STR(o.what, "ftruncate");
    ferry_watch_end(&f);
    CHECK(!ferry_watch_find_overdue(&o));

    /* no bound, not watched however long */
    ferry_watch_begin(&plain, "read");
    pause_for(1.1);
    CHECK(!ferry_watch_find_overdue(&o));
    ferry_watch_end(&plain);

    /* many threads one after the other: each gives its slot back, so a
     * later thread past the slots' number is still watched */
    for (int i = 0; i < 300; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, begin_end, &f) == 0);
        pthread_join(t, NULL);
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, stuck, &f) == 0);
    pause_for(1.15);
    CHECK(ferry_watch_find_overdue(&o));
    CHECK_STR(o.what, "fsync");
    pthread_join(t, NULL);
    CHECK(!ferry_watch_find_overdue(&o));

    /* a long name is cut, not overrun */
    char longname[600];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ferry_fd lf = {.fd = -1, .watch_seconds = 1, .watch_name = longname};
    ferry_watch_begin(&lf, "read");
    pause_for(1.1);
    CHECK(ferry_watch_find_overdue(&o));
    CHECK(strlen(o.name) == sizeof o.name - 1);
    ferry_watch_end(&lf);
    if (!check_failures)
        printf("test_watch: passed\n");
    return check_failures ? 1 : 0;
}
