/* Minimal checks for the topology tests: count failures, keep going. */
#ifndef FERRY_TOPO_TCHECK_H
#define FERRY_TOPO_TCHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topology/topology.h"

static int tc_failures;

#define CHECK(c)                                                                \
  do {                                                                          \
    if (!(c)) {                                                                 \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);    \
      tc_failures++;                                                            \
    }                                                                           \
  } while (0)

#define CHECK_INT(a, b)                                                         \
  do {                                                                          \
    long long _a = (long long)(a), _b = (long long)(b);                         \
    if (_a != _b) {                                                             \
      fprintf(stderr, "%s:%d: %s == %lld, want %s == %lld\n", __FILE__, __LINE__, \
              #a, _a, #b, _b);                                                  \
      tc_failures++;                                                            \
    }                                                                           \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                   \
  do {                                                                          \
    double _a = (a), _b = (b);                                                  \
    if (!(fabs(_a - _b) <= (tol))) {                                            \
      fprintf(stderr, "%s:%d: %s == %.12g, want %.12g (tol %g)\n", __FILE__,    \
              __LINE__, #a, _a, _b, (double)(tol));                             \
      tc_failures++;                                                            \
    }                                                                           \
  } while (0)

static inline ferry_topo_machine *tc_machine(const char *spec) {
  ferry_topo_machine *m = NULL;
  char err[256];
  if (ferry_topo_create(spec, &m, err, sizeof err)) {
    fprintf(stderr, "cannot build %s: %s\n", spec, err);
    exit(2);
  }
  return m;
}

/* The route a -> b equals want[0..n-1]. */
static inline int tc_route_is(const ferry_topo_machine *m, int a, int b, const int *want, int n) {
  int links[FERRY_TOPO_MAX_ROUTE];
  int k = ferry_topo_route(m, a, b, links);
  int ok = k == n;
  for (int i = 0; ok && i < n; i++) ok = links[i] == want[i];
  if (!ok) {
    fprintf(stderr, "  route %d -> %d:", a, b);
    for (int i = 0; i < k; i++) fprintf(stderr, " %d", links[i]);
    fprintf(stderr, "  (want");
    for (int i = 0; i < n; i++) fprintf(stderr, " %d", want[i]);
    fprintf(stderr, ")\n");
  }
  return ok;
}

#define CHECK_ROUTE(m, a, b, ...)                                               \
  do {                                                                          \
    static const int _w[] = {__VA_ARGS__};                                      \
    CHECK(tc_route_is(m, a, b, _w, (int)(sizeof _w / sizeof _w[0])));           \
  } while (0)

/* Every route is a chain of existing links from a to b, its length is the
 * distance, and it is destination-based: after its first link it is the
 * route from that link's head. Returns the number of violations. */
static inline int tc_route_invariants(const ferry_topo_machine *m, int a, int b) {
  int links[FERRY_TOPO_MAX_ROUTE], rest[FERRY_TOPO_MAX_ROUTE];
  int bad = 0;
  int k = ferry_topo_route(m, a, b, links);
  if (k != ferry_topo_distance(m, a, b)) bad++;
  if ((a == b) != (k == 0)) bad++;
  if (k > 0 && ferry_topo_kind_of(m) == FERRY_TOPO_TORUS) {
    int cur = a;
    for (int i = 0; i < k; i++) {
      int f, t;
      if (ferry_topo_link_ends(m, links[i], &f, &t) != 1 || f != cur) {
        bad++;
        break;
      }
      cur = t;
    }
    if (cur != b) bad++;
    int f, t;
    ferry_topo_link_ends(m, links[0], &f, &t);
    int r = ferry_topo_route(m, t, b, rest);
    if (r != k - 1) bad++;
    for (int i = 0; i < r && i + 1 < k; i++) bad += rest[i] != links[i + 1];
  }
  return bad;
}

static inline int tc_done(const char *name) {
  if (tc_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, tc_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

#endif
