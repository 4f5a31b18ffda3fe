/* Medians and quantiles of a few timings: the one implementation the
 * library's tools share (ferry-tune's summaries, ferry-decouple-bench). */
#ifndef FERRY_UTIL_MEDIAN_H
#define FERRY_UTIL_MEDIAN_H

/* Quantile q (0..1) of sorted s[0..n-1], n > 0, linear between order
 * statistics: q = 0.5 of an even count is the mean of the middle two. */
double ferry_quantile_sorted(const double *s, int n, double q);

/* The median of v[0..n-1], n > 0; sorts v. */
double ferry_median(double *v, int n);

#endif
