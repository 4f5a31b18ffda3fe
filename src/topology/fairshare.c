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

/* What the sharing works on. Flow f crosses links dl[ro[f]..ro[f+1]), the
 * links that can be bottlenecks renumbered densely (nd of them); link l's
 * flows are lf[lo[l]..lo[l]+lcnt[l]), the live ones kept first. */
typedef struct {
  size_t nf;
  const double *bytes;
  int nd;
  size_t *ro, *lo, *lf, *lcnt;
  int *dl;
  double *dbw;         /* bandwidth of each kept link */
  double *W, *cap;     /* per link in an epoch: unfrozen weight, capacity left */
  int *touched;        /* the links an epoch touches */
  double *rem, *rate, *w; /* per flow: bytes left, rate in this epoch, weight */
  int *frozen;         /* per flow: the epoch that froze it */
  unsigned char *active;
  size_t *act;         /* the active flows, grouped by component */
  size_t nact;
  int *comp;           /* per flow: its component's root */
  rheap_t h;
} share_t;

/* A link all of whose flows continue onto one same next link, no faster
 * than it, saturates no earlier than that link (its flows are a subset): it
 * can never be a bottleneck and is left out (dense[l] = -2). Routes are
 * simple paths, so "next" chains end in a link that stays. On trees of
 * routes into gateways only the last links remain. */
static int drop_dominated(int nlinks, const double *bw, size_t nf, const size_t *ro, const int *rl,
                          const double *bytes, int *dense) {
  int *nxt = malloc(ferry_topo__sz(nlinks) * sizeof *nxt);
  if (!nxt) return -1;
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
  return 0;
}

/* The routes over the kept links, renumbered densely in first-use order:
 * only links some flow crosses take part, and neighbouring route links sit
 * close in memory. Then each kept link's list of flows. */
static int link_lists(share_t *s, int nlinks, const double *bw, const size_t *ro, const int *rl, int *dense) {
  size_t nf = s->nf, kept = 0;
  s->ro = malloc((nf + 1) * sizeof *s->ro);
  if (!s->ro) return -1;
  for (size_t f = 0; f < nf; f++) {
    s->ro[f] = kept;
    for (size_t k = ro[f]; k < ro[f + 1]; k++) {
      int l = rl[k];
      if (dense[l] == -2) continue;
      if (dense[l] < 0) dense[l] = s->nd++;
      s->dl[kept++] = dense[l];
    }
  }
  s->ro[nf] = kept;
  int nd = s->nd;
  s->lo = calloc((size_t)nd + 1, sizeof *s->lo);
  s->lf = malloc(ferry_topo__sz((long)kept) * sizeof *s->lf);
  s->W = calloc(ferry_topo__sz(nd), sizeof *s->W);
  s->cap = malloc(ferry_topo__sz(nd) * sizeof *s->cap);
  s->dbw = malloc(ferry_topo__sz(nd) * sizeof *s->dbw);
  s->touched = malloc(ferry_topo__sz(nd) * sizeof *s->touched);
  s->lcnt = malloc(ferry_topo__sz(nd) * sizeof *s->lcnt);
  if (!s->lo || !s->lf || !s->W || !s->cap || !s->dbw || !s->touched || !s->lcnt) return -1;
  for (int l = 0; l < nlinks; l++)
    if (dense[l] >= 0) s->dbw[dense[l]] = bw[l];
  for (size_t k = 0; k < kept; k++) s->lo[s->dl[k] + 1]++;
  for (int l = 0; l < nd; l++) s->lo[l + 1] += s->lo[l];
  for (int l = 0; l < nd; l++) s->lcnt[l] = s->lo[l + 1] - s->lo[l];
  size_t *fill = malloc(((size_t)nd + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, s->lo, ((size_t)nd + 1) * sizeof *fill);
  for (size_t f = 0; f < nf; f++)
    for (size_t k = s->ro[f]; k < s->ro[f + 1]; k++) s->lf[fill[s->dl[k]]++] = f;
  free(fill);
  return 0;
}

/* Flows that share no link, directly or through other flows, do not affect
 * each other: each connected group runs its own epochs, so a finishing flow
 * only triggers a recomputation of its own group. The active flows, grouped
 * by component, go to s->act. */
static int group_flows(share_t *s, const double *weight) {
  size_t nf = s->nf;
  const size_t *ro = s->ro;
  s->comp = malloc(ferry_topo__sz((long)nf) * sizeof *s->comp);
  int *owner = malloc(ferry_topo__sz(s->nd) * sizeof *owner);
  if (!s->comp || !owner) {
    free(owner);
    return -1;
  }
  int *comp = s->comp;
  for (int l = 0; l < s->nd; l++) owner[l] = -1;
  for (size_t f = 0; f < nf; f++) {
    s->rem[f] = s->bytes[f];
    s->w[f] = weight[f] > 0 ? weight[f] : 1.0;
    comp[f] = (int)f;
    if (s->bytes[f] > 0 && ro[f + 1] > ro[f]) s->active[f] = 1, s->nact++;
  }
  for (size_t f = 0; f < nf; f++) {
    if (!s->active[f]) continue;
    for (size_t k = ro[f]; k < ro[f + 1]; k++) {
      int l = s->dl[k];
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
  size_t *start = calloc(nf + 1, sizeof *start);
  if (!start) return -1;
  for (size_t f = 0; f < nf; f++) {
    if (!s->active[f]) continue;
    int x = (int)f;
    while (comp[x] != x) x = comp[x];
    comp[f] = x;
    start[x + 1]++;
  }
  for (size_t f = 0; f < nf; f++) start[f + 1] += start[f];
  for (size_t f = 0; f < nf; f++)
    if (s->active[f]) s->act[start[comp[f]]++] = f;
  free(start);
  return 0;
}

/* One epoch's progressive filling over the na flows of cact: each gets its
 * rate (s->rate). ep marks the flows it freezes. */
static int fill(share_t *s, const size_t *cact, size_t na, int ep) {
  const size_t *ro = s->ro;
  double *W = s->W, *cap = s->cap;
  int nt = 0;
  for (size_t q = 0; q < na; q++) {
    size_t f = cact[q];
    for (size_t k = ro[f]; k < ro[f + 1]; k++) {
      int l = s->dl[k];
      if (W[l] == 0) s->touched[nt++] = l;
      W[l] += s->w[f];
    }
  }
  rh_reset(&s->h);
  for (int q = 0; q < nt; q++) {
    int l = s->touched[q];
    cap[l] = s->dbw[l];
    if (rh_push(&s->h, key_of(cap[l] / W[l]), l)) return -1;
  }
  size_t unfrozen = na;
  while (s->h.size && unfrozen) {
    rent_t e = rh_pop(&s->h);
    int l = e.link;
    if (W[l] <= 1e-9) continue; /* every flow on it is frozen */
    double cur = cap[l] / W[l];
    /* risen since it was queued: requeue (a key that only rounding
     * moved is taken as current) */
    if (key_of(cur) > e.key && cur > double_of(e.key) * (1 + 1e-12)) {
      if (rh_push(&s->h, key_of(cur), l)) return -1;
      continue;
    }
    double share = cur > 0 ? cur : 0;
    /* finished flows are dropped from the link's list as it is scanned */
    size_t keep = s->lo[l];
    for (size_t k = s->lo[l]; k < s->lo[l] + s->lcnt[l]; k++) {
      size_t f = s->lf[k];
      if (!s->active[f]) continue;
      s->lf[keep++] = f;
      if (s->frozen[f] == ep) continue;
      s->frozen[f] = ep;
      unfrozen--;
      s->rate[f] = share * s->w[f];
      for (size_t j = ro[f]; j < ro[f + 1]; j++) {
        int l2 = s->dl[j];
        cap[l2] -= s->rate[f];
        W[l2] -= s->w[f];
        if (W[l2] <= 1e-9) W[l2] = 0;
      }
    }
    s->lcnt[l] = keep - s->lo[l];
    W[l] = 0;
  }
  for (int q = 0; q < nt; q++) W[s->touched[q]] = 0;
  return 0;
}

/* The epochs of one group of na flows (cact): its completion time, or -1.
 * *ep counts every epoch; a group stops after max_epochs (> 0). */
static double run_group(share_t *s, size_t *cact, size_t na, int max_epochs, int *ep) {
  double tc = 0;
  int cep = 0;
  while (na > 0) {
    (*ep)++;
    cep++;
    if (fill(s, cact, na, *ep)) return -1;
    double dt = -1;
    for (size_t q = 0; q < na; q++) {
      size_t f = cact[q];
      if (s->rate[f] <= 0) continue;
      double x = s->rem[f] / s->rate[f];
      if (dt < 0 || x < dt) dt = x;
    }
    if (dt < 0) return -1; /* nothing can move: zero-bandwidth links */
    if (max_epochs > 0 && cep >= max_epochs) {
      /* out of budget: let every flow run out at its current rate */
      double last = 0;
      for (size_t q = 0; q < na; q++) {
        size_t f = cact[q];
        double x = s->rate[f] > 0 ? s->rem[f] / s->rate[f] : 0;
        if (x > last) last = x;
        s->active[f] = 0;
      }
      return tc + last;
    }
    tc += dt;
    size_t nn = 0;
    for (size_t q = 0; q < na; q++) {
      size_t f = cact[q];
      double x = s->rate[f] > 0 ? s->rem[f] / s->rate[f] : 0;
      s->rem[f] -= s->rate[f] * dt;
      if (x <= dt * (1 + 1e-9) || s->rem[f] <= s->bytes[f] * 1e-12) s->active[f] = 0;
      else cact[nn++] = f;
    }
    na = nn;
  }
  return tc;
}

static void share_free(share_t *s) {
  free(s->ro);
  free(s->dl);
  free(s->lo);
  free(s->lf);
  free(s->lcnt);
  free(s->dbw);
  free(s->W);
  free(s->cap);
  free(s->touched);
  free(s->rem);
  free(s->rate);
  free(s->w);
  free(s->frozen);
  free(s->active);
  free(s->act);
  free(s->comp);
  rh_free(&s->h);
}

double ferry_topo__fair_share(int nlinks, const double *bw, size_t nf, const size_t *ro, const int *rl,
                              const double *bytes, const double *weight, int max_epochs, int *epochs) {
  double t = -1;
  int ep = 0;
  share_t s;
  memset(&s, 0, sizeof s);
  s.nf = nf;
  s.bytes = bytes;
  int *dense = malloc(ferry_topo__sz(nlinks) * sizeof *dense);
  s.dl = malloc(ferry_topo__sz((long)ro[nf]) * sizeof *s.dl);
  s.rem = malloc(ferry_topo__sz((long)nf) * sizeof *s.rem);
  s.rate = malloc(ferry_topo__sz((long)nf) * sizeof *s.rate);
  s.w = malloc(ferry_topo__sz((long)nf) * sizeof *s.w);
  s.frozen = calloc(ferry_topo__sz((long)nf), sizeof *s.frozen);
  s.active = calloc(ferry_topo__sz((long)nf), 1);
  s.act = malloc(ferry_topo__sz((long)nf) * sizeof *s.act);
  if (!dense || !s.dl || !s.rem || !s.rate || !s.w || !s.frozen || !s.active || !s.act) goto out;
  for (int l = 0; l < nlinks; l++) dense[l] = -1;
  if (drop_dominated(nlinks, bw, nf, ro, rl, bytes, dense) || link_lists(&s, nlinks, bw, ro, rl, dense) ||
      group_flows(&s, weight))
    goto out;
  t = 0;
  for (size_t c0 = 0; c0 < s.nact;) {
    size_t c1 = c0;
    while (c1 < s.nact && s.comp[s.act[c1]] == s.comp[s.act[c0]]) c1++;
    double tc = run_group(&s, s.act + c0, c1 - c0, max_epochs, &ep);
    c0 = c1;
    if (tc < 0) {
      t = -1;
      break;
    }
    if (tc > t) t = tc;
  }
out:
  if (epochs) *epochs = ep;
  free(dense);
  share_free(&s);
  return t;
}
