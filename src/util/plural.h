/* Counts in messages: "1 node", "2 nodes" ("%d node%s", n, ferry_s(n)). */
#ifndef FERRY_UTIL_PLURAL_H
#define FERRY_UTIL_PLURAL_H

static inline const char *ferry_s(long long n) { return n == 1 ? "" : "s"; }

#endif
