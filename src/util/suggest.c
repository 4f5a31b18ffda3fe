/* Optimal string alignment distance over two rows and the one before. */
#include "util/suggest.h"

#include <string.h>

enum { LONGEST = 63 };

static int low(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

int ferry_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > LONGEST || lb > LONGEST)
        return 1 << 20;
    int prev2[LONGEST + 1], prev[LONGEST + 1], cur[LONGEST + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int same = low((unsigned char)a[i - 1]) == low((unsigned char)b[j - 1]);
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + !same);
            if (i > 1 && j > 1 && low((unsigned char)a[i - 1]) == low((unsigned char)b[j - 2]) &&
                low((unsigned char)a[i - 2]) == low((unsigned char)b[j - 1]) && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        memcpy(prev2, prev, sizeof prev);
        memcpy(prev, cur, sizeof cur);
    }
    return prev[lb];
}

const char *ferry_suggest(const char *word, const char *const *names, size_t n)
{
    int limit = (int)strlen(word) / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 2)
        limit = 2;
    const char *best = NULL;
    int bestd = limit + 1;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        int d = ferry_edit_distance(word, names[i]);
        if (d == 0)
            return NULL;
        if (d < bestd) {
            bestd = d;
            best = names[i];
        }
    }
    return best;
}
