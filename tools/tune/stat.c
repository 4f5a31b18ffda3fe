/*
 * Sample statistics: medians and quartiles of a few timings, and the
 * one-sided Mann-Whitney test the search uses to decide that one
 * configuration is faster than another. Timings on a shared machine have
 * heavy right tails (a neighbour's build steals a core for a second), so
 * the search ranks by medians and tests by ranks, never by means.
 */
#include "search.h"
#include "util/median.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tune_summarize(const double *s, int n, tune_summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0)
        return;
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t)
        return;
    memcpy(t, s, sizeof(double) * (size_t)n);
    out->median = ferry_median(t, n); /* sorts t */
    out->min = t[0];
    out->max = t[n - 1];
    out->q1 = ferry_quantile_sorted(t, n, 0.25);
    out->q3 = ferry_quantile_sorted(t, n, 0.75);
    free(t);
}

double tune_rel_spread(const tune_summary *t)
{
    if (t->n < 2 || t->median <= 0)
        return 0;
    return (t->q3 - t->q1) / t->median;
}

/* P(U <= u) for the Mann-Whitney U of samples of sizes n and m under the
 * null hypothesis, exactly: the number of orderings with U = k is the
 * coefficient of q^k in the Gaussian binomial [n+m choose n], built by
 * c[i][j](k) = c[i-1][j](k - j) + c[i][j-1](k). */
static double mw_exact_cdf(int n, int m, int u)
{
    int nm = n * m;
    if (u < 0)
        return 0;
    if (u >= nm)
        return 1;
    size_t width = (size_t)nm + 1;
    double *prev = calloc((size_t)(m + 1) * width, sizeof(double));
    double *cur = calloc((size_t)(m + 1) * width, sizeof(double));
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return 1;
    }
    for (int j = 0; j <= m; j++)
        prev[(size_t)j * width] = 1; /* i = 0: one ordering, U = 0 */
    for (int i = 1; i <= n; i++) {
        memset(cur, 0, (size_t)(m + 1) * width * sizeof(double));
        cur[0] = 1; /* j = 0 */
        for (int j = 1; j <= m; j++) {
            double *c = cur + (size_t)j * width;
            const double *left = cur + (size_t)(j - 1) * width, *up = prev + (size_t)j * width;
            for (int k = 0; k <= i * j; k++)
                c[k] = left[k] + (k >= j ? up[k - j] : 0);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    const double *f = prev + (size_t)m * width;
    double below = 0, all = 0;
    for (int k = 0; k <= nm; k++) {
        all += f[k];
        if (k <= u)
            below += f[k];
    }
    free(prev);
    free(cur);
    return all > 0 ? below / all : 1;
}

double tune_mw_less(const double *a, int na, const double *b, int nb)
{
    if (na <= 0 || nb <= 0)
        return 1;
    /* U: pairs where a is larger (ties count half); small U = a smaller */
    double u = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    if (na <= 30 && nb <= 30)
        return mw_exact_cdf(na, nb, (int)ceil(u)); /* ties round against the claim */
    double mean = na * (double)nb / 2, sd = sqrt(na * (double)nb * (na + nb + 1) / 12.0);
    double z = (u + 0.5 - mean) / sd;
    return 0.5 * erfc(-z / sqrt(2.0));
}
