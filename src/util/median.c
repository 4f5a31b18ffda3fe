#include "util/median.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double ferry_quantile_sorted(const double *s, int n, double q)
{
    double at = q * (n - 1);
    int lo = (int)at;
    if (lo >= n - 1)
        return s[n - 1];
    return s[lo] + (at - lo) * (s[lo + 1] - s[lo]);
}

double ferry_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return ferry_quantile_sorted(v, n, 0.5);
}
