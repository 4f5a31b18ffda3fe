/* n-D torus/mesh with deterministic dimension-order routing, and the BG/Q
 * presets and bridge placement built on it. */
#include "topology/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TMAXD 6

typedef struct {
  int nd;
  int size[TMAXD], torus[TMAXD], order[TMAXD], stride[TMAXD];
  int tile[TMAXD], off[TMAXD];
  uint8_t *coord;      /* nnodes x nd */
  uint8_t *dd[TMAXD];  /* per-dimension distance tables, size x size */
  uint8_t *gwc;        /* ngw x nd gateway coordinates */
  uint8_t *gdt[TMAXD]; /* per dimension: size x ngw, distance from coordinate
                          x to gateway g in that dimension */
  int ngw;
} torus_t;

static const char LETTERS[] = "ABCDEF";

static void torus_destroy(void *p) {
  torus_t *t = p;
  if (!t) return;
  free(t->coord);
  for (int i = 0; i < TMAXD; i++) free(t->dd[i]);
  free(t->gwc);
  for (int i = 0; i < TMAXD; i++) free(t->gdt[i]);
  free(t);
}

/* One dimension's move from x to y: direction (0 = +, 1 = -) and steps. The
 * half-ring tie goes + from an even coordinate and - from an odd one, as the
 * BG/Q hardware does; the decision is taken where the packet enters the
 * dimension, whose coordinate there is still the source's. */
static inline void dim_move(const torus_t *t, int i, int x, int y, int *dir, int *steps) {
  int s = t->size[i];
  if (t->torus[i]) {
    int fwd = y - x;
    if (fwd < 0) fwd += s;
    if (2 * fwd < s) {
      *dir = 0;
      *steps = fwd;
    } else if (2 * fwd > s) {
      *dir = 1;
      *steps = s - fwd;
    } else {
      *dir = (x % 2 == 0) ? 0 : 1;
      *steps = fwd;
    }
  } else {
    *dir = y > x ? 0 : 1;
    *steps = y > x ? y - x : x - y;
  }
}

static int torus_route(const ferry_topo_machine *m, int a, int b, int *links) {
  const torus_t *t = m->impl;
  const int nd = t->nd, nl = 2 * nd;
  const uint8_t *ca = t->coord + (size_t)a * nd, *cb = t->coord + (size_t)b * nd;
  int cur = a, n = 0;
  for (int k = 0; k < nd; k++) {
    int i = t->order[k];
    int x = ca[i], y = cb[i];
    if (x == y) continue;
    int dir, steps;
    dim_move(t, i, x, y, &dir, &steps);
    int s = t->size[i], st = t->stride[i], c = x;
    for (int h = 0; h < steps; h++) {
      links[n++] = cur * nl + 2 * i + dir;
      if (dir == 0) {
        if (c == s - 1) cur -= (s - 1) * st, c = 0;
        else cur += st, c++;
      } else {
        if (c == 0) cur += (s - 1) * st, c = s - 1;
        else cur -= st, c--;
      }
    }
  }
  return n;
}

static int torus_distance(const ferry_topo_machine *m, int a, int b) {
  const torus_t *t = m->impl;
  const int nd = t->nd;
  const uint8_t *ca = t->coord + (size_t)a * nd, *cb = t->coord + (size_t)b * nd;
  int d = 0;
  for (int i = 0; i < nd; i++) d += t->dd[i][ca[i] * t->size[i] + cb[i]];
  return d;
}

/* Distances to all gateways as a sum of per-dimension rows: a few
 * vectorisable adds per node instead of a table walk per gateway. */
/* restrict: a byte row could alias the output as far as C knows, and the
 * alias check would keep the loop scalar */
static void row_set(uint16_t *restrict out, const uint8_t *restrict r, int n) {
  for (int g = 0; g < n; g++) out[g] = r[g];
}

static void row_add(uint16_t *restrict out, const uint8_t *restrict r, int n) {
  for (int g = 0; g < n; g++) out[g] = (uint16_t)(out[g] + r[g]);
}

static void torus_gw_distances(const ferry_topo_machine *m, int node, uint16_t *out) {
  const torus_t *t = m->impl;
  const int nd = t->nd, G = t->ngw;
  const uint8_t *c = t->coord + (size_t)node * nd;
  row_set(out, t->gdt[0] + (size_t)c[0] * G, G);
  for (int i = 1; i < nd; i++) row_add(out, t->gdt[i] + (size_t)c[i] * G, G);
}

static int torus_coords(const ferry_topo_machine *m, int node, int *c) {
  const torus_t *t = m->impl;
  for (int i = 0; i < t->nd; i++) c[i] = t->coord[(size_t)node * t->nd + i];
  return t->nd;
}

static int torus_node_at(const ferry_topo_machine *m, const int *c) {
  const torus_t *t = m->impl;
  int v = 0;
  for (int i = 0; i < t->nd; i++) {
    if (c[i] < 0 || c[i] >= t->size[i]) return -1;
    v += c[i] * t->stride[i];
  }
  return v;
}

static int torus_dim_size(const ferry_topo_machine *m, int dim) {
  const torus_t *t = m->impl;
  return t->size[dim];
}

static int torus_link_ends(const ferry_topo_machine *m, int link, int *from, int *to) {
  const torus_t *t = m->impl;
  int nl = 2 * t->nd, node = link / nl, i = (link % nl) / 2, dir = link % 2;
  int s = t->size[i], c = t->coord[(size_t)node * t->nd + i];
  *from = node;
  *to = -1;
  if (s < 2) return 0;
  int nc;
  if (dir == 0) {
    if (c == s - 1 && !t->torus[i]) return 0;
    nc = c == s - 1 ? 0 : c + 1;
  } else {
    if (c == 0 && !t->torus[i]) return 0;
    nc = c == 0 ? s - 1 : c - 1;
  }
  *to = node + (nc - c) * t->stride[i];
  return 1;
}

static void torus_link_name(const ferry_topo_machine *m, int link, char *buf, size_t len) {
  const torus_t *t = m->impl;
  int nl = 2 * t->nd, node = link / nl, i = (link % nl) / 2, dir = link % 2;
  size_t o = 0;
  o += (size_t)snprintf(buf + o, len - o, "(");
  for (int k = 0; k < t->nd && o < len; k++)
    o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? "," : "", t->coord[(size_t)node * t->nd + k]);
  if (o < len) snprintf(buf + o, len - o, ")%c%c", LETTERS[i], dir ? '-' : '+');
}

static const struct ferry_topo_ops torus_ops = FERRY_TOPO_OPS(torus, torus_gw_distances);

/* ---- spec parsing ------------------------------------------------------ */

typedef struct {
  const char *name;
  const char *shape;
  const char *mesh;
} bgq_preset;

/* Shapes for 4096 and up (except Mira) are assumptions: they are built from
 * 4x4x4x4 midplanes laid out inside Mira's 2x3x4x4 midplane grid. ALCF runs
 * the 1024 and 32768 partitions of the default queue as a mesh in one
 * dimension: the dimension that uses part of Mira's midplane ring. */
static const bgq_preset bgq_presets[] = {
    {"32", "2x2x2x2x2", ""},      {"64", "2x2x4x2x2", ""},     {"128", "2x2x4x4x2", ""},
    {"256", "4x2x4x4x2", ""},     {"512", "4x4x4x4x2", ""},    {"1024", "4x4x4x8x2", "D"},
    {"2048", "4x4x8x8x2", ""},    {"4096", "4x8x8x8x2", ""},   {"8192", "4x4x16x16x2", ""},
    {"16384", "4x8x16x16x2", ""}, {"32768", "8x8x16x16x2", "B"}, {"49152", "8x12x16x16x2", ""},
    {"mira", "8x12x16x16x2", ""},
};

static int parse_shape(const char *s, int *size, int *nd, char *err, size_t errlen) {
  int n = 0;
  const char *p = s;
  while (*p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 255 || n == TMAXD) {
      ferry_topo__seterr(err, errlen, "shape '%s': want up to %d sizes 1..255 joined by 'x'", s, TMAXD);
      return -EINVAL;
    }
    size[n++] = (int)v;
    p = end;
    if (*p == 'x' || *p == 'X') p++;
    else if (*p) {
      ferry_topo__seterr(err, errlen, "shape '%s': unexpected '%c'", s, *p);
      return -EINVAL;
    }
  }
  if (n == 0) {
    ferry_topo__seterr(err, errlen, "empty shape");
    return -EINVAL;
  }
  *nd = n;
  return 0;
}

static int letter_dim(char c, int nd) {
  if (c >= 'a' && c <= 'f') c = (char)(c - 'a' + 'A');
  const char *p = strchr(LETTERS, c);
  if (!p || c == '\0') return -1;
  int i = (int)(p - LETTERS);
  return i < nd ? i : -1;
}

/* Tiles of gwnodes nodes, one gateway each. Start from a BG/Q node board
 * (2 in every even dimension) and double the dimension with the most tiles
 * left (ties: the highest index) until the tile is big enough; every preset
 * then gets 2x2x2x4x2 tiles: two node boards paired along D. */
static int compute_tile(int nd, const int *size, long nnodes, int gwnodes, int *tile, char *err,
                        size_t errlen) {
  if (nnodes <= gwnodes) {
    for (int i = 0; i < nd; i++) tile[i] = size[i];
    return 0;
  }
  long vol = 1;
  for (int i = 0; i < nd; i++) {
    tile[i] = size[i] % 2 == 0 ? 2 : 1;
    vol *= tile[i];
  }
  if (vol > gwnodes || gwnodes % vol != 0) {
    vol = 1;
    for (int i = 0; i < nd; i++) tile[i] = 1;
  }
  while (vol < gwnodes) {
    int best = -1;
    for (int i = 0; i < nd; i++) {
      if (size[i] % (2 * tile[i]) != 0) continue;
      if (best < 0 || (long)size[i] * tile[best] >= (long)size[best] * tile[i]) best = i;
    }
    if (best < 0) break;
    tile[best] *= 2;
    vol *= 2;
  }
  if (vol != gwnodes) {
    ferry_topo__seterr(err, errlen, "cannot cut the shape into %d-node gateway tiles; give tile=", gwnodes);
    return -EINVAL;
  }
  return 0;
}

/* The pset default: an I/O node's pset is its bridges' tiles; its other
 * nodes, in node order, are dealt in equal contiguous runs to its bridges
 * in index order. Balanced like BG/Q's, but a run crosses tile borders, so
 * nodes do not always get the nearest bridge and some routes cross the
 * other bridge (the seed, section 1). */
static int pset_split(ferry_topo_machine *m) {
  int G = m->ngw, ngroups = m->gw_group[G - 1] + 1;
  int *cnt = calloc((size_t)ngroups, sizeof *cnt), *seen = calloc((size_t)ngroups, sizeof *seen);
  int *first = malloc((size_t)ngroups * sizeof *first), *nbr = calloc((size_t)ngroups, sizeof *nbr);
  unsigned char *isgw = calloc((size_t)m->nnodes, 1);
  if (!cnt || !seen || !first || !nbr || !isgw) {
    free(cnt), free(seen), free(first), free(nbr), free(isgw);
    return -ENOMEM;
  }
  for (int g = 0; g < G; g++) isgw[m->gw_node[g]] = 1;
  for (int g = G - 1; g >= 0; g--) first[m->gw_group[g]] = g, nbr[m->gw_group[g]]++;
  for (int v = 0; v < m->nnodes; v++)
    if (m->default_gw[v] >= 0 && !isgw[v]) cnt[m->gw_group[m->default_gw[v]]]++;
  for (int v = 0; v < m->nnodes; v++) {
    if (m->default_gw[v] < 0 || isgw[v]) continue;
    int q = m->gw_group[m->default_gw[v]];
    m->default_gw[v] = first[q] + (int)((long long)seen[q]++ * nbr[q] / cnt[q]);
  }
  free(cnt), free(seen), free(first), free(nbr), free(isgw);
  return 0;
}

/* default=map:FILE: a per-node bridge map dumped from a machine, one line
 * per node in node order (ABCDE, E fastest): the bridge's node id, or its
 * coordinates separated by spaces or dots. '#' starts a comment. */
static int load_bridge_map(ferry_topo_machine *m, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    ferry_topo__seterr(err, errlen, "default=map:%s: cannot open it: %s", path, strerror(errno));
    return -ENOENT;
  }
  char line[512];
  int v = 0, lineno = 0, rc = 0, nd = m->ndims;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    long x[TMAXD];
    int n = 0;
    char *p = line, *e;
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '.' || *p == ',' || *p == '\n' || *p == '\r') p++;
      if (!*p) break;
      if (n == nd) { n = -1; break; }
      x[n] = strtol(p, &e, 10);
      if (e == p) { n = -1; break; }
      n++, p = e;
    }
    if (n == 0) continue;
    int b = -1;
    if (n == 1 && x[0] >= 0 && x[0] < m->nnodes) b = (int)x[0];
    else if (n == nd) {
      int c[TMAXD];
      for (int i = 0; i < nd; i++) c[i] = (int)x[i];
      b = torus_node_at(m, c);
    }
    int g = -1;
    for (int k = 0; b >= 0 && k < m->ngw; k++)
      if (m->gw_node[k] == b) g = k;
    if (v >= m->nnodes) {
      ferry_topo__seterr(err, errlen, "default=map:%s: more lines than the %d nodes", path, m->nnodes);
      rc = -EINVAL;
    } else if (g < 0) {
      ferry_topo__seterr(err, errlen, "default=map:%s:%d: not one of the machine's bridges", path, lineno);
      rc = -EINVAL;
    } else {
      m->default_gw[v++] = g;
    }
  }
  fclose(f);
  if (rc == 0 && v != m->nnodes) {
    ferry_topo__seterr(err, errlen, "default=map:%s: %d lines for %d nodes", path, v, m->nnodes);
    rc = -EINVAL;
  }
  return rc;
}

/* The shape: a BG/Q preset's or the one given, its size and node count.
 * *mesh is the preset's mesh dimensions, if any. */
static int torus_shape(ferry_topo_machine *m, torus_t *t, ferry_topo_optlist *ol, int bgq, const char **mesh,
                       const char **provenance, char *err, size_t errlen) {
  const char *shape = ol->pos;
  *provenance = "custom shape";
  if (bgq) {
    for (size_t k = 0; k < sizeof bgq_presets / sizeof bgq_presets[0]; k++)
      if (strcmp(ol->pos, bgq_presets[k].name) == 0) {
        shape = bgq_presets[k].shape;
        *mesh = bgq_presets[k].mesh;
        *provenance = "preset";
      }
    if (!strchr(shape, 'x')) {
      ferry_topo__seterr(err, errlen, "bgq:%s: not a preset size (32..32768 powers of two, 49152, mira) or AxBxCxDxE",
                         ol->pos);
      return -EINVAL;
    }
  }
  int rc = parse_shape(shape, t->size, &t->nd, err, errlen);
  if (rc) return rc;
  if (bgq && t->nd != 5) {
    ferry_topo__seterr(err, errlen, "bgq shapes have 5 dimensions (AxBxCxDxE)");
    return -EINVAL;
  }
  long nn = 1;
  for (int i = 0; i < t->nd; i++) nn *= t->size[i];
  if (nn > (1L << 24)) {
    ferry_topo__seterr(err, errlen, "torus too large (%ld nodes)", nn);
    return -EINVAL;
  }
  m->nnodes = (int)nn;
  m->ndims = t->nd;
  return 0;
}

/* Which dimensions wrap around (torus) and which do not (mesh=...). */
static int torus_wrap(torus_t *t, ferry_topo_optlist *ol, const char *mesh, char *err, size_t errlen) {
  int nd = t->nd;
  for (int i = 0; i < nd; i++) t->torus[i] = 1;
  const char *mo = ferry_topo__opt(ol, "mesh");
  if (mo) mesh = mo;
  if (mesh && strcmp(mesh, "none") != 0)
    for (const char *p = mesh; *p; p++) {
      int i = letter_dim(*p, nd);
      if (i < 0) {
        ferry_topo__seterr(err, errlen, "mesh=%s: unknown dimension '%c'", mesh, *p);
        return -EINVAL;
      }
      t->torus[i] = 0;
    }
  /* a ring of 2 or less has no wrap-around to speak of; keep the flag as
   * given, routing handles it either way */
  return 0;
}

/* The order routes take the dimensions in (order=). */
static int torus_order(torus_t *t, ferry_topo_optlist *ol, char *err, size_t errlen) {
  int nd = t->nd;
  const char *order = ferry_topo__opt(ol, "order");
  if (!order) {
    for (int i = 0; i < nd; i++) t->order[i] = i;
  } else if (strcmp(order, "longest") == 0) {
    /* the unverified firmware guess: longest first, ties A<B<C<D<E */
    int used[TMAXD] = {0};
    for (int k = 0; k < nd; k++) {
      int best = -1;
      for (int i = 0; i < nd; i++)
        if (!used[i] && (best < 0 || t->size[i] > t->size[best])) best = i;
      used[best] = 1;
      t->order[k] = best;
    }
  } else {
    int used[TMAXD] = {0};
    if ((int)strlen(order) != nd) {
      ferry_topo__seterr(err, errlen, "order=%s: name each of the %d dimensions once", order, nd);
      return -EINVAL;
    }
    for (int k = 0; k < nd; k++) {
      int i = letter_dim(order[k], nd);
      if (i < 0 || used[i]) {
        ferry_topo__seterr(err, errlen, "order=%s: name each of the %d dimensions once", order, nd);
        return -EINVAL;
      }
      used[i] = 1;
      t->order[k] = i;
    }
  }
  return 0;
}

/* Every node's coordinates (last dimension fastest: BG/Q's ABCDE(T)
 * order) and each dimension's distance table. */
static int torus_tables(const ferry_topo_machine *m, torus_t *t, char *err, size_t errlen) {
  int nd = t->nd;
  long nn = m->nnodes;
  t->stride[nd - 1] = 1;
  for (int i = nd - 2; i >= 0; i--) t->stride[i] = t->stride[i + 1] * t->size[i + 1];
  t->coord = malloc((size_t)nn * nd);
  if (!t->coord) return -ENOMEM;
  for (long v = 0; v < nn; v++)
    for (int i = 0; i < nd; i++) t->coord[v * nd + i] = (uint8_t)((v / t->stride[i]) % t->size[i]);
  int maxroute = 0;
  for (int i = 0; i < nd; i++) {
    int s = t->size[i];
    t->dd[i] = malloc((size_t)s * s);
    if (!t->dd[i]) return -ENOMEM;
    for (int x = 0; x < s; x++)
      for (int y = 0; y < s; y++) {
        int d = x > y ? x - y : y - x;
        if (t->torus[i] && s - d < d) d = s - d;
        t->dd[i][x * s + y] = (uint8_t)d;
      }
    maxroute += t->torus[i] ? s / 2 : s - 1;
  }
  if (maxroute > FERRY_TOPO_MAX_ROUTE) {
    ferry_topo__seterr(err, errlen, "routes up to %d links exceed the %d supported", maxroute, FERRY_TOPO_MAX_ROUTE);
    return -EINVAL;
  }
  return 0;
}

/* Links, bandwidth, latency: BG/Q links are 2 GB/s raw per direction, about
 * 1.8 GB/s of payload (IBM Redbook, BG/Q hardware overview), the bridge ->
 * I/O node link alike; ~40 ns per hop. Generic tori keep 2 GB/s. *bw is
 * every network link's. */
static int torus_links(ferry_topo_machine *m, const torus_t *t, ferry_topo_optlist *ol, int bgq, double *bw,
                       char *err, size_t errlen) {
  double iobw, lat, bw0 = bgq ? 1.8e9 : 2e9;
  int rc;
  if ((rc = ferry_topo__opt_double(ol, "bw", bw0, NULL, bw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(ol, "iobw", bw0, NULL, &iobw, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_double(ol, "lat", 40e-9, NULL, &lat, err, errlen))) return rc;
  long nn = m->nnodes;
  if (nn * 2 * t->nd > 0x7fffffffL) return -EINVAL;
  m->nnet = (int)(nn * 2 * t->nd);
  m->exit_bw = iobw;
  m->hop_latency = lat;
  return 0;
}

/* The tiles, one gateway each, and the gateway's offset in its tile: BG/Q
 * has one I/O node per 128 nodes (*ion) and two bridges per I/O node.
 * *gwnodes becomes the nodes of a tile. */
static int torus_tiles(const ferry_topo_machine *m, torus_t *t, ferry_topo_optlist *ol, int bgq, int *ion,
                       int *gwnodes, char *err, size_t errlen) {
  int nd = t->nd, rc;
  if ((rc = ferry_topo__opt_int(ol, "ion", 128, 2, 1 << 24, ion, err, errlen))) return rc;
  if ((rc = ferry_topo__opt_int(ol, "gwnodes", bgq ? *ion / 2 : 64, 1, 1 << 24, gwnodes, err, errlen))) return rc;
  const char *tile = ferry_topo__opt(ol, "tile");
  if (tile) {
    int tn;
    if ((rc = parse_shape(tile, t->tile, &tn, err, errlen))) return rc;
    if (tn != nd) {
      ferry_topo__seterr(err, errlen, "tile=%s: want %d sizes", tile, nd);
      return -EINVAL;
    }
    for (int i = 0; i < nd; i++)
      if (t->size[i] % t->tile[i]) {
        ferry_topo__seterr(err, errlen, "tile=%s does not divide the shape", tile);
        return -EINVAL;
      }
  } else if ((rc = compute_tile(nd, t->size, m->nnodes, *gwnodes, t->tile, err, errlen))) {
    return rc;
  }
  /* In-tile bridge offset. BG/Q default (0,1,0,1,0): bridge 98 of the seed's
   * 512-node figure sits at (0,3,0,1,0), i.e. there in its 2x2x2x4x2 tile;
   * cabling puts all bridges alike, so every tile uses that offset. */
  const char *br = ferry_topo__opt(ol, "bridge");
  for (int i = 0; i < nd; i++) t->off[i] = 0;
  if (bgq && !br) {
    t->off[1] = 1;
    t->off[3] = 1;
  }
  if (br) {
    const char *p = br;
    for (int i = 0; i < nd; i++) {
      char *end;
      long v = strtol(p, &end, 10);
      if (end == p || v < 0 || v >= t->tile[i] || (i < nd - 1 && *end != '.') || (i == nd - 1 && *end)) {
        ferry_topo__seterr(err, errlen, "bridge=%s: want %d in-tile offsets joined by '.'", br, nd);
        return -EINVAL;
      }
      t->off[i] = (int)v;
      p = end + 1;
    }
  }
  for (int i = 0; i < nd; i++)
    if (t->off[i] >= t->tile[i]) t->off[i] = t->tile[i] - 1;
  long tvol = 1;
  for (int i = 0; i < nd; i++) tvol *= t->tile[i];
  *gwnodes = (int)tvol; /* a partition smaller than one tile is one tile */
  return 0;
}

/* The gateways, one per tile at the tile's offset, their groups (I/O
 * nodes) and distance tables; then the machine's nodes and links. */
static int torus_gateways(ferry_topo_machine *m, torus_t *t, int bgq, int ion, int gwnodes, double bw) {
  int nd = t->nd, rc;
  int ntiles = m->nnodes / gwnodes;
  if ((rc = ferry_topo__alloc_gateways(m, ntiles))) return rc;
  t->gwc = malloc((size_t)ntiles * nd);
  t->ngw = ntiles;
  if (!t->gwc) return -ENOMEM;
  /* Tile origins enumerate in node order, and the same offset inside each
   * tile keeps that order, so gateways come out ascending. */
  int tc[TMAXD] = {0}, k = 0, c[TMAXD];
  for (;;) {
    for (int i = 0; i < nd; i++) c[i] = tc[i] * t->tile[i] + t->off[i];
    m->gw_node[k++] = torus_node_at(m, c);
    int i = nd - 1;
    while (i >= 0 && ++tc[i] == t->size[i] / t->tile[i]) tc[i--] = 0;
    if (i < 0) break;
  }
  if (bgq) m->gw_noun = "bridge", m->group_noun = "I/O node";
  int per_ion = bgq ? ion / gwnodes : 1;
  if (per_ion < 1) per_ion = 1;
  for (int g = 0; g < ntiles; g++) {
    m->gw_group[g] = g / per_ion;
    for (int i = 0; i < nd; i++) t->gwc[(size_t)g * nd + i] = t->coord[(size_t)m->gw_node[g] * nd + i];
  }
  for (int i = 0; i < nd; i++) {
    int s = t->size[i];
    t->gdt[i] = malloc((size_t)s * ntiles);
    if (!t->gdt[i]) return -ENOMEM;
    for (int x = 0; x < s; x++)
      for (int g = 0; g < ntiles; g++) t->gdt[i][(size_t)x * ntiles + g] = t->dd[i][x * s + t->gwc[(size_t)g * nd + i]];
  }
  if ((rc = ferry_topo__alloc_nodes(m))) return rc;
  if ((rc = ferry_topo__alloc_links(m))) return rc;
  for (int l = 0; l < m->nnet; l++) m->link_bw[l] = bw;
  return 0;
}

/* The default assignment (default=). BG/Q's is of the seed's kind (pset):
 * balanced by contiguous blocks of the ABCDE node order, so not always the
 * nearest bridge, and some routes cross another bridge (docs/topology.md).
 * Plain tori keep the nearest-tile default. *def is the one taken. */
static int torus_default(ferry_topo_machine *m, const torus_t *t, ferry_topo_optlist *ol, int bgq,
                         const char **def, char *err, size_t errlen) {
  int nd = t->nd, ntiles = m->ngw, rc;
  *def = ferry_topo__opt(ol, "default");
  if (!*def) *def = bgq ? "pset" : "tile";
  if (strncmp(*def, "map:", 4) == 0) {
    if ((rc = load_bridge_map(m, *def + 4, err, errlen))) return rc;
  } else if (strcmp(*def, "tile") == 0 || strcmp(*def, "pset") == 0) {
    int tstride[TMAXD];
    tstride[nd - 1] = 1;
    for (int i = nd - 2; i >= 0; i--) tstride[i] = tstride[i + 1] * (t->size[i + 1] / t->tile[i + 1]);
    for (int v = 0; v < m->nnodes; v++) {
      int ti = 0;
      for (int i = 0; i < nd; i++) ti += (t->coord[(size_t)v * nd + i] / t->tile[i]) * tstride[i];
      m->default_gw[v] = ti;
    }
    if (strcmp(*def, "pset") == 0 && (rc = pset_split(m))) return rc;
  } else if (strcmp(*def, "nearest") == 0) {
    uint16_t *d = malloc((size_t)ntiles * sizeof *d);
    if (!d) return -ENOMEM;
    for (int v = 0; v < m->nnodes; v++) {
      torus_gw_distances(m, v, d);
      int best = 0;
      for (int g = 1; g < ntiles; g++)
        if (d[g] < d[best]) best = g;
      m->default_gw[v] = best;
    }
    free(d);
  } else {
    ferry_topo__seterr(err, errlen, "default=%s: want pset, tile, nearest or map:FILE", *def);
    return -EINVAL;
  }
  return 0;
}

/* The machine in one line (m->desc). */
static void torus_describe(ferry_topo_machine *m, const torus_t *t, int bgq, int gwnodes, const char *def,
                           const char *provenance) {
  int nd = t->nd, ntiles = m->ngw;
  char sh[64] = "", ms[16] = "", od[16] = "", tl[64] = "", of[32] = "";
  size_t o = 0, o2 = 0, o3 = 0;
  for (int i = 0; i < nd; i++) {
    o += (size_t)snprintf(sh + o, sizeof sh - o, "%s%d", i ? "x" : "", t->size[i]);
    o2 += (size_t)snprintf(tl + o2, sizeof tl - o2, "%s%d", i ? "x" : "", t->tile[i]);
    o3 += (size_t)snprintf(of + o3, sizeof of - o3, "%s%d", i ? "." : "", t->off[i]);
    od[i] = LETTERS[t->order[i]];
  }
  int nm = 0;
  for (int i = 0; i < nd; i++)
    if (!t->torus[i]) ms[nm++] = LETTERS[i];
  snprintf(m->desc, sizeof m->desc,
           "%s %s %s%s, order %s, %d nodes, %d %s%s (%d nodes each, tile %s, offset %s, default %s) [%s]",
           bgq ? "bgq" : "torus", sh, nm ? "mesh " : "torus", ms, od, m->nnodes, ntiles,
           bgq ? "bridge" : "gateway", ntiles == 1 ? "" : "s", gwnodes, tl, of, def, provenance);
}

int ferry_topo__build_torus(ferry_topo_machine *m, const char *args, int bgq, char *err, size_t errlen) {
  ferry_topo_optlist ol;
  int rc = ferry_topo__start(m, FERRY_TOPO_TORUS, &torus_ops, sizeof(torus_t), args, &ol, err, errlen);
  if (rc) return rc;
  torus_t *t = m->impl;

  const char *mesh = NULL, *provenance, *def;
  int ion = 128, gwnodes;
  double bw;
  if ((rc = torus_shape(m, t, &ol, bgq, &mesh, &provenance, err, errlen))) return rc;
  if ((rc = torus_wrap(t, &ol, mesh, err, errlen))) return rc;
  if ((rc = torus_order(t, &ol, err, errlen))) return rc;
  if ((rc = torus_tables(m, t, err, errlen))) return rc;
  if ((rc = torus_links(m, t, &ol, bgq, &bw, err, errlen))) return rc;
  if ((rc = torus_tiles(m, t, &ol, bgq, &ion, &gwnodes, err, errlen))) return rc;
  if ((rc = torus_gateways(m, t, bgq, ion, gwnodes, bw))) return rc;
  if ((rc = torus_default(m, t, &ol, bgq, &def, err, errlen))) return rc;
  if ((rc = ferry_topo__opts_all_used(&ol, err, errlen))) return rc;
  torus_describe(m, t, bgq, gwnodes, def, provenance);
  return 0;
}
