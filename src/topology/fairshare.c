/* Flow-level max-min fair sharing: a completion-time estimate that, unlike
 * the bottleneck floor, lets flows that are limited elsewhere leave
 * bandwidth unused and reallocates it only when flows finish.
 *
 * Each epoch runs weighted progressive filling (a flow of weight w gets w
 * shares) with a priority queue holding each link once, keyed by capacity
 * left per unit of unfrozen weight. Freezing flows only raises other links'
 * keys, so a link popped with an outdated key is requeued at its current
 * one, and a link popped with its current key is the true bottleneck. The epoch ends when the first flows
 * finish; flows finishing within a relative 1e-9 of that end together.
 * Groups of flows that share no link are simulated separately. */
#include "topology/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Links wait in a radix heap: the keys popped never decrease (shares only
 * rise as flows freeze), which lets a push cost O(1) and a pop amortised
 * O(key bits) without the cache misses of a binary heap. Keys are the bit
 * patterns of non-negative doubles, which order like the doubles. */
typedef struct {
  uint64_t key;
  int link;
} rent_t;

typedef struct {
  rent_t *a[65];
  size_t n[65], cap[65];
  uint64_t last;
  size_t size;
} rheap_t;

static inline uint64_t key_of(double x) {
  if (!(x > 0)) return 0;
  uint64_t k;
  memcpy(&k, &x, sizeof k);
  return k;
}

static inline double double_of(uint64_t k) {
  double x;
  memcpy(&x, &k, sizeof x);
  return x;
}

static inline int bucket_of(const rheap_t *h, uint64_t k) {
  return k == h->last ? 0 : 64 - __builtin_clzll(k ^ h->last);
}

static int rh_push(rheap_t *h, uint64_t k, int link) {
  if (k < h->last) k = h->last; /* rounding: never below what was popped */
  int b = bucket_of(h, k);
  if (h->n[b] == h->cap[b]) {
    size_t nc = h->cap[b] ? 2 * h->cap[b] : 256;
    rent_t *na = realloc(h->a[b], nc * sizeof *na);
    if (!na) return -1;
    h->a[b] = na;
    h->cap[b] = nc;
  }
  h->a[b][h->n[b]++] = (rent_t){k, link};
  h->size++;
  return 0;
}

static rent_t rh_pop(rheap_t *h) {
  if (h->n[0] == 0) {
    int b = 1;
    while (h->n[b] == 0) b++;
    uint64_t mn = h->a[b][0].key;
    for (size_t i = 1; i < h->n[b]; i++)
      if (h->a[b][i].key < mn) mn = h->a[b][i].key;
    h->last = mn;
    /* everything in bucket b lands in a lower bucket now */
    size_t cnt = h->n[b];
    h->n[b] = 0;
    h->size -= cnt;
    for (size_t i = 0; i < cnt; i++) rh_push(h, h->a[b][i].key, h->a[b][i].link);
  }
  h->size--;
  return h->a[0][--h->n[0]];
}

static void rh_reset(rheap_t *h) {
  for (int b = 0; b < 65; b++) h->n[b] = 0;
  h->last = 0;
  h->size = 0;
}

static void rh_free(rheap_t *h) {
  for (int b = 0; b < 65; b++) free(h->a[b]);
}

double ferry_topo__fair_share(int nlinks, const double *bw, size_t nf, const size_t *ro_in, const int *rl,
                              const double *bytes, const double *weight, int max_epochs, int *epochs) {
  const size_t *ro = ro_in;
  double t = 0;
  int ep = 0;
  size_t ninc = ro[nf];
  /* Links renumbered densely in first-use order: only links some flow
   * crosses take part, and neighbouring route links sit close in memory. */
  int *dense = malloc(ferry_topo__sz(nlinks) * sizeof *dense);
  int *dl = malloc(ferry_topo__sz((long)ninc) * sizeof *dl);
  size_t *lo = NULL, *lf = NULL;
  double *W = NULL, *cap = NULL, *dbw = NULL;
  double *rem = malloc(ferry_topo__sz((long)nf) * sizeof *rem), *rate = malloc(ferry_topo__sz((long)nf) * sizeof *rate);
  double *w = malloc(ferry_topo__sz((long)nf) * sizeof *w);
  int *frozen = calloc(ferry_topo__sz((long)nf), sizeof *frozen);
  unsigned char *active = calloc(ferry_topo__sz((long)nf), 1);
  size_t *act = malloc(ferry_topo__sz((long)nf) * sizeof *act);
  int *touched = NULL, *comp = NULL;
  size_t *lcnt = NULL; /* live entries of each link's flow list */
  rheap_t h;
  memset(&h, 0, sizeof h);
  if (!dense || !dl || !rem || !rate || !w || !frozen || !active || !act) goto fail;
  for (int l = 0; l < nlinks; l++) dense[l] = -1;
  /* A link all of whose flows continue onto one same next link, no faster
   * than it, saturates no earlier than that link (its flows are a subset):
   * it can never be a bottleneck and is left out. Routes are simple paths,
   * so "next" chains end in a link that stays. On trees of routes into
   * gateways only the last links remain. */
  {
    int *nxt = malloc(ferry_topo__sz(nlinks) * sizeof *nxt);
    if (!nxt) goto fail;
    for (int l = 0; l < nlinks; l++) nxt[l] = -2;
    for (size_t f = 0; f < nf; f++) {
      if (!(bytes[f] > 0)) continue;
      for (size_t k = ro[f]; k < ro[f + 1]; k++) {
        int l = rl[k], n = k + 1 < ro[f + 1] ? rl[k + 1] : -1;
        nxt[l] = (nxt[l] == -2 || nxt[l] == n) ? n : -1;
      }
    }
    for (int l = 0; l < nlinks; l++)
      if (nxt[l] >= 0 && bw[l] >= bw[nxt[l]]) dense[l] = -2; /* dominated */
    free(nxt);
  }
  int nd = 0;
  size_t kept = 0;
  size_t *ro2 = malloc((nf + 1) * sizeof *ro2);
  if (!ro2) goto fail;
  for (size_t f = 0; f < nf; f++) {
    ro2[f] = kept;
    for (size_t k = ro[f]; k < ro[f + 1]; k++) {
      int l = rl[k];
      if (dense[l] == -2) continue;
      if (dense[l] < 0) dense[l] = nd++;
      dl[kept++] = dense[l];
    }
  }
  ro2[nf] = kept;
  ro = ro2;
  ninc = kept;
  lo = calloc((size_t)nd + 1, sizeof *lo);
  lf = malloc(ferry_topo__sz((long)ninc) * sizeof *lf);
  W = calloc(ferry_topo__sz(nd), sizeof *W);
  cap = malloc(ferry_topo__sz(nd) * sizeof *cap);
  dbw = malloc(ferry_topo__sz(nd) * sizeof *dbw);
  touched = malloc(ferry_topo__sz(nd) * sizeof *touched);
  lcnt = malloc(ferry_topo__sz(nd) * sizeof *lcnt);
  if (!lo || !lf || !W || !cap || !dbw || !touched || !lcnt) goto fail;
  for (int l = 0; l < nlinks; l++)
    if (dense[l] >= 0) dbw[dense[l]] = bw[l];
  for (size_t k = 0; k < ninc; k++) lo[dl[k] + 1]++;
  for (int l = 0; l < nd; l++) lo[l + 1] += lo[l];
  for (int l = 0; l < nd; l++) lcnt[l] = lo[l + 1] - lo[l];
  {
    size_t *fill = malloc(((size_t)nd + 1) * sizeof *fill);
    if (!fill) goto fail;
    memcpy(fill, lo, ((size_t)nd + 1) * sizeof *fill);
    for (size_t f = 0; f < nf; f++)
      for (size_t k = ro[f]; k < ro[f + 1]; k++) lf[fill[dl[k]]++] = f;
    free(fill);
  }
  /* Flows that share no link, directly or through other flows, do not
   * affect each other: each connected group runs its own epochs, so a
   * finishing flow only triggers a recomputation of its own group. */
  size_t nact = 0;
  comp = malloc(ferry_topo__sz((long)nf) * sizeof *comp);
  int *owner = malloc(ferry_topo__sz(nd) * sizeof *owner);
  if (!comp || !owner) {
    free(owner);
    goto fail;
  }
  for (int l = 0; l < nd; l++) owner[l] = -1;
  for (size_t f = 0; f < nf; f++) {
    rem[f] = bytes[f];
    w[f] = weight[f] > 0 ? weight[f] : 1.0;
    comp[f] = (int)f;
    if (bytes[f] > 0 && ro[f + 1] > ro[f]) active[f] = 1, nact++;
  }
  for (size_t f = 0; f < nf; f++) {
    if (!active[f]) continue;
    for (size_t k = ro[f]; k < ro[f + 1]; k++) {
      int l = dl[k];
      if (owner[l] < 0) {
        owner[l] = (int)f;
        continue;
      }
      int x = (int)f, y = owner[l];
      while (comp[x] != x) x = comp[x] = comp[comp[x]];
      while (comp[y] != y) y = comp[y] = comp[comp[y]];
      if (x != y) comp[x > y ? x : y] = x < y ? x : y;
    }
  }
  free(owner);
  /* group active flows by component root: counting sort */
  {
    size_t *start = calloc(nf + 1, sizeof *start);
    if (!start) goto fail;
    for (size_t f = 0; f < nf; f++) {
      if (!active[f]) continue;
      int x = (int)f;
      while (comp[x] != x) x = comp[x];
      comp[f] = x;
      start[x + 1]++;
    }
    for (size_t f = 0; f < nf; f++) start[f + 1] += start[f];
    for (size_t f = 0; f < nf; f++)
      if (active[f]) act[start[comp[f]]++] = f;
    free(start);
  }
  for (size_t c0 = 0; c0 < nact;) {
    size_t c1 = c0;
    while (c1 < nact && comp[act[c1]] == comp[act[c0]]) c1++;
    double tc = 0;
    int cep = 0;
    size_t *cact = act + c0, na = c1 - c0;
    c0 = c1;
    while (na > 0) {
      ep++;
      cep++;
      int nt = 0;
      for (size_t q = 0; q < na; q++) {
        size_t f = cact[q];
        for (size_t k = ro[f]; k < ro[f + 1]; k++) {
          int l = dl[k];
          if (W[l] == 0) touched[nt++] = l;
          W[l] += w[f];
        }
      }
      rh_reset(&h);
      for (int q = 0; q < nt; q++) {
        int l = touched[q];
        cap[l] = dbw[l];
        if (rh_push(&h, key_of(cap[l] / W[l]), l)) goto fail;
      }
      size_t unfrozen = na;
      while (h.size && unfrozen) {
        rent_t e = rh_pop(&h);
        int l = e.link;
        if (W[l] <= 1e-9) continue; /* every flow on it is frozen */
        double cur = cap[l] / W[l];
        /* risen since it was queued: requeue (a key that only rounding
         * moved is taken as current) */
        if (key_of(cur) > e.key && cur > double_of(e.key) * (1 + 1e-12)) {
          if (rh_push(&h, key_of(cur), l)) goto fail;
          continue;
        }
        double s = cur > 0 ? cur : 0;
        /* finished flows are dropped from the link's list as it is scanned */
        size_t keep = lo[l];
        for (size_t k = lo[l]; k < lo[l] + lcnt[l]; k++) {
          size_t f = lf[k];
          if (!active[f]) continue;
          lf[keep++] = f;
          if (frozen[f] == ep) continue;
          frozen[f] = ep;
          unfrozen--;
          rate[f] = s * w[f];
          for (size_t j = ro[f]; j < ro[f + 1]; j++) {
            int l2 = dl[j];
            cap[l2] -= rate[f];
            W[l2] -= w[f];
            if (W[l2] <= 1e-9) W[l2] = 0;
          }
        }
        lcnt[l] = keep - lo[l];
        W[l] = 0;
      }
      for (int q = 0; q < nt; q++) W[touched[q]] = 0;
      double dt = -1;
      for (size_t q = 0; q < na; q++) {
        size_t f = cact[q];
        if (rate[f] <= 0) continue;
        double x = rem[f] / rate[f];
        if (dt < 0 || x < dt) dt = x;
      }
      if (dt < 0) goto fail; /* nothing can move: zero-bandwidth links */
      if (max_epochs > 0 && cep >= max_epochs) {
        /* out of budget: let every flow run out at its current rate */
        double last = 0;
        for (size_t q = 0; q < na; q++) {
          size_t f = cact[q];
          double x = rate[f] > 0 ? rem[f] / rate[f] : 0;
          if (x > last) last = x;
          active[f] = 0;
        }
        tc += last;
        break;
      }
      tc += dt;
      size_t nn = 0;
      for (size_t q = 0; q < na; q++) {
        size_t f = cact[q];
        double x = rate[f] > 0 ? rem[f] / rate[f] : 0;
        rem[f] -= rate[f] * dt;
        if (x <= dt * (1 + 1e-9) || rem[f] <= bytes[f] * 1e-12) active[f] = 0;
        else cact[nn++] = f;
      }
      na = nn;
    }
    if (tc > t) t = tc;
  }
  goto out;
fail:
  t = -1;
out:
  if (epochs) *epochs = ep;
  free(dense);
  free(dl);
  if (ro != ro_in) free((void *)ro);
  free(lo);
  free(lf);
  free(W);
  free(cap);
  free(dbw);
  free(rem);
  free(rate);
  free(w);
  free(frozen);
  free(active);
  free(act);
  free(touched);
  free(comp);
  free(lcnt);
  rh_free(&h);
  return t;
}
