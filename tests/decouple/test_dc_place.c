/* Placement of data processes and the choice of each compute process's
 * data process: pure functions, checked by hand-worked cases. */
#include "decouple/decouple.h"

#include <stdio.h>
#include <string.h>

static int fails;

static void expect(const char *what, int wsize, const int *node_of, int ndata, const int *want_data,
                   int want_whole, const int *want_home)
{
    int is_data[64], home[64];
    int whole = dc_place(wsize, node_of, ndata, is_data);
    dc_homes(wsize, node_of, is_data, home);
    int ok = whole == want_whole;
    for (int r = 0; r < wsize; r++) {
        ok &= is_data[r] == want_data[r];
        ok &= home[r] == want_home[r];
    }
    if (!ok) {
        fails++;
        printf("FAIL %s: whole %d (want %d)\n  data:", what, whole, want_whole);
        for (int r = 0; r < wsize; r++)
            printf(" %d/%d", is_data[r], want_data[r]);
        printf("\n  home:");
        for (int r = 0; r < wsize; r++)
            printf(" %d/%d", home[r], want_home[r]);
        printf("\n");
    }
}

int main(void)
{
    int one4[4] = {0}, one5[5] = {0};
    expect("one node, 1 of 4", 4, one4, 1, (int[]){0, 0, 0, 1}, 0, (int[]){0, 0, 0, -1});
    expect("one node, 2 of 5", 5, one5, 2, (int[]){0, 0, 0, 1, 1}, 0, (int[]){0, 0, 1, -1, -1});
    expect("no data processes", 4, one4, 0, (int[]){0, 0, 0, 0}, 0, (int[]){-1, -1, -1, -1});

    /* two nodes of 4, M = 4: the second node is the data node; its
     * clients, having no data process beside them, take one each */
    int two4[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    expect("whole node", 8, two4, 4, (int[]){0, 0, 0, 0, 1, 1, 1, 1}, 1, (int[]){0, 1, 2, 3, -1, -1, -1, -1});

    /* four nodes of 4, M = 4: the last node; blocks of three neighbours */
    int four4[16];
    for (int r = 0; r < 16; r++)
        four4[r] = r / 4;
    int d16[16] = {0}, h16[16];
    for (int r = 12; r < 16; r++)
        d16[r] = 1;
    for (int r = 0; r < 16; r++)
        h16[r] = r < 12 ? r * 4 / 12 : -1;
    expect("whole last node of four", 16, four4, 4, d16, 1, h16);

    /* four nodes of 4, M = 2: spread over nodes 0 and 1 (their highest
     * ranks); nodes 2 and 3 have none and share both in blocks */
    int s16[16] = {0};
    s16[3] = s16[7] = 1;
    int sh16[16];
    for (int r = 0, c = 0; r < 16; r++) {
        if (s16[r]) {
            sh16[r] = -1;
            continue;
        }
        sh16[r] = r < 4 ? 0 : r < 8 ? 1 : (int)((int64_t)c * 2 / 14);
        c++;
    }
    expect("spread 2 over four nodes", 16, four4, 2, s16, 0, sh16);

    /* ranks dealt round-robin to two nodes (--map-by node): node 0 holds
     * 0,2,4,6 and node 1 holds 1,3,5,7; each gives its highest rank, and
     * each compute process is served on its own node */
    int rr[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    expect("round-robin mapping", 8, rr, 2, (int[]){0, 0, 0, 0, 0, 0, 1, 1}, 0,
           (int[]){0, 1, 0, 1, 0, 1, -1, -1});

    /* uneven nodes (3 ranks, 2 then 1): the last node's one rank is M,
     * a data node */
    int uneven[3] = {0, 0, 1};
    expect("uneven nodes, the last one whole", 3, uneven, 1, (int[]){0, 0, 1}, 1, (int[]){0, 0, -1});
    /* uneven nodes where no tail adds up to M: spread, node 0 first */
    int uneven2[5] = {0, 0, 1, 1, 1};
    expect("uneven nodes, spread", 5, uneven2, 2, (int[]){0, 1, 0, 0, 1}, 0, (int[]){0, -1, 1, 1, -1});
    /* compute nodes of 2 and two data nodes of 1 listed last (a hostfile of
     * compute nodes, then I/O nodes): the I/O nodes serve, in blocks */
    int ion[10] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 5};
    expect("I/O nodes last", 10, ion, 2, (int[]){0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, 1,
           (int[]){0, 0, 0, 0, 1, 1, 1, 1, -1, -1});
    /* one rank per node: whole nodes of one */
    int single[3] = {0, 1, 2};
    expect("one rank per node", 3, single, 1, (int[]){0, 0, 1}, 1, (int[]){0, 0, -1});

    printf("test_dc_place: %s\n", fails ? "FAILED" : "passed");
    return fails != 0;
}
