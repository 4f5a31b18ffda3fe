/*
 * The process's kept buffers (src/strategy/buffers.c): page-aligned, given
 * again to the next caller instead of made anew, their making measured
 * once, three at once, and what does not fit the pool freed on return.
 */
#include "check.h"
#include "strategy/buffers.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static int on_page(const char *p) { return ((uintptr_t)p % (uintptr_t)sysconf(_SC_PAGESIZE)) == 0; }

int main(void)
{
    const int64_t mib = 1 << 20;
    double fresh = 0;
    char *a = ferry_buffer_get(4 * mib, &fresh);
    CHECK(a && on_page(a));
    CHECK_MSG(fresh > 0, "making a kept buffer took %g s", fresh);
    a[4 * mib - 1] = 1;
    ferry_buffer_put(a);

    /* the same buffer again, for as much or less, and nothing made */
    fresh = 0;
    char *b = ferry_buffer_get(2 * mib, &fresh);
    CHECK(b == a && fresh == 0);

    /* three at once: two more are made (two-phase's pair and a sieve window) */
    char *c = ferry_buffer_get(4 * mib, &fresh), *d = ferry_buffer_get(mib, NULL);
    CHECK(c && d && c != b && d != b && d != c && on_page(c) && on_page(d));
    CHECK(fresh > 0);

    /* a fourth is the caller's own, page-aligned too, freed when given back */
    fresh = 0;
    char *e = ferry_buffer_get(mib, &fresh);
    CHECK(e && e != b && e != c && e != d && on_page(e) && fresh == 0);
    ferry_buffer_put(e);
    ferry_buffer_put(d);
    ferry_buffer_put(c);
    ferry_buffer_put(b);

    /* a larger request replaces a kept one too small; later ones reuse it */
    char *g = ferry_buffer_get(8 * mib, &fresh);
    CHECK(g && on_page(g) && fresh > 0);
    g[8 * mib - 1] = 2;
    ferry_buffer_put(g);
    fresh = 0;
    CHECK(ferry_buffer_get(8 * mib, &fresh) == g && fresh == 0);
    ferry_buffer_put(g);

    /* above the cap: never kept, and never charged as once per process */
    fresh = 0;
    char *h = ferry_buffer_get(FERRY_BUFFER_KEEP_MAX + 1, &fresh);
    CHECK(h && fresh == 0);
    ferry_buffer_put(h);
    char *i = ferry_buffer_get(FERRY_BUFFER_KEEP_MAX + 1, NULL);
    CHECK(i && i != g);
    ferry_buffer_put(i);

    ferry_buffer_put(NULL);
    return check_failures ? 1 : 0;
}
