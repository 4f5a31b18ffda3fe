/* Byte spreads: parsing and laying them over a machine's ranks. */
#include "writers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace.h"
#include "util/size.h"

/* "25%" or "25.5%" -> 0.25; the percent sign is required */
static int percent(const char *s, const char *end, double *out) {
  char buf[32];
  size_t n = (size_t)(end - s);
  if (n < 2 || n >= sizeof buf || end[-1] != '%') return -1;
  memcpy(buf, s, n - 1);
  buf[n - 1] = '\0';
  char *e;
  double v = strtod(buf, &e);
  if (e == buf || *e || !(v >= 0) || v > 100) return -1;
  *out = v / 100;
  return 0;
}

#define FORMS "SIZE, SIZE:F%%xK[@P%%] (e.g. 1MiB:25%%x4), trace:FILE or record:FILE"

int writers_parse(const char *text, writers_spec *w, char *err, size_t errlen) {
  memset(w, 0, sizeof *w);
  snprintf(w->text, sizeof w->text, "%s", text);
  if (!strncmp(text, "trace:", 6) || !strncmp(text, "record:", 7)) {
    w->kind = text[0] == 't' ? WR_TRACE : WR_RECORD;
    w->path = strchr(text, ':') + 1;
    if (!*w->path) {
      snprintf(err, errlen, "'%s': name the file", text);
      return -1;
    }
    return 0;
  }
  const char *colon = strchr(text, ':');
  char size[64], why[160];
  size_t sl = colon ? (size_t)(colon - text) : strlen(text);
  if (sl == 0 || sl >= sizeof size) {
    snprintf(err, errlen, "'%s': no size before ':' (want " FORMS ")", text);
    return -1;
  }
  memcpy(size, text, sl);
  size[sl] = '\0';
  int64_t b = 1;
  int bad = ferry_size_parse(size, &b, why, sizeof why);
  if (bad || b <= 0) {
    snprintf(err, errlen, "'%s': size '%s': %s (want " FORMS ")", text, size, bad ? why : "more than 0 bytes");
    return -1;
  }
  w->size = (double)b;
  if (!colon) {
    w->kind = WR_UNIFORM;
    return 0;
  }
  /* F%xK[@P%] */
  const char *f = colon + 1, *x = strchr(f, 'x'), *at = strchr(f, '@');
  if (!x || (at && at < x)) {
    snprintf(err, errlen, "'%s': after the size, F%%xK: the share of nodes, 'x' and the factor (want " FORMS ")",
             text);
    return -1;
  }
  if (percent(f, x, &w->frac)) {
    snprintf(err, errlen, "'%s': F, the share of nodes that write more, is '%.*s': a percentage from 0%% to 100%%",
             text, (int)(x - f), f);
    return -1;
  }
  char *e;
  w->factor = strtod(x + 1, &e);
  if (e == x + 1 || !(w->factor >= 0) || w->factor > 1e6 || (at ? e != at : *e != '\0')) {
    snprintf(err, errlen, "'%s': K, how many times the size they write, is '%.*s': a number from 0 to 1000000",
             text, (int)(at ? at - (x + 1) : (long)strlen(x + 1)), x + 1);
    return -1;
  }
  if (at && percent(at + 1, at + 1 + strlen(at + 1), &w->pos)) {
    snprintf(err, errlen, "'%s': P, where the block of nodes starts, is '%s': a percentage from 0%% to 100%%", text,
             at + 1);
    return -1;
  }
  if (w->frac + w->pos > 1 + 1e-12) {
    snprintf(err, errlen, "'%s': the block runs past the last node (F + P above 100%%)", text);
    return -1;
  }
  w->kind = WR_HEAVY;
  return 0;
}

void writers_free(writers_t *w) {
  free(w->bytes);
  free(w->calls);
  memset(w, 0, sizeof *w);
}

/* a run's per-rank bytes and calls, from its trace writes (or records) */
static int from_run(const writers_spec *w, double **rb, double **rc, long *rn, char *err, size_t errlen) {
  trace_t tr;
  const char *kind = w->kind == WR_RECORD ? "record" : "trace";
  char why[256];
  if (trace_read_file(w->path, &tr, why, sizeof why)) {
    snprintf(err, errlen, "%s:%s", kind, why);
    return -1;
  }
  if (w->kind == WR_RECORD && tr.nrecords == 0) {
    snprintf(err, errlen, "record:%s: no FERRY_STATS_JSON record in it", w->path);
    trace_free(&tr);
    return -1;
  }
  if (w->kind == WR_RECORD) tr.nwrites = 0; /* the records, even beside trace writes */
  if (trace_records_as_writes(&tr, err, errlen)) {
    trace_free(&tr);
    return -1;
  }
  if (tr.nwrites == 0) {
    snprintf(err, errlen, "%s:%s: no writes in it (a FERRY_TRACE of a run that wrote, or a FERRY_STATS_JSON record)",
             kind, w->path);
    trace_free(&tr);
    return -1;
  }
  long n = tr.maxrank + 1;
  *rb = calloc((size_t)n, sizeof **rb);
  *rc = calloc((size_t)n, sizeof **rc);
  if (!*rb || !*rc) {
    free(*rb), free(*rc);
    trace_free(&tr);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < tr.nwrites; i++) {
    (*rb)[tr.writes[i].rank] += tr.writes[i].bytes;
    (*rc)[tr.writes[i].rank] += tr.writes[i].calls;
  }
  *rn = n;
  trace_free(&tr);
  return 0;
}

int writers_build(const writers_spec *w, int nodes, int ppn, double xfer, writers_t *out, char *err,
                  size_t errlen) {
  memset(out, 0, sizeof *out);
  long n = (long)nodes * ppn;
  out->nranks = n;
  out->ppn = ppn;
  out->bytes = calloc((size_t)n, sizeof *out->bytes);
  out->calls = calloc((size_t)n, sizeof *out->calls);
  if (!out->bytes || !out->calls) {
    writers_free(out);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (w->kind == WR_TRACE || w->kind == WR_RECORD) {
    double *rb, *rc;
    long rn;
    if (from_run(w, &rb, &rc, &rn, err, errlen)) {
      writers_free(out);
      return -1;
    }
    if (rn > n) {
      snprintf(err, errlen, "%s: the run has %ld ranks, the machine %ld at %d per node", w->path, rn, n, ppn);
      free(rb), free(rc);
      writers_free(out);
      return -1;
    }
    for (long i = 0; i < n; i++) {
      long r = (long)((double)i * rn / n);
      out->bytes[i] = rb[r];
      out->calls[i] = rc[r];
    }
    out->run_ranks = rn;
    free(rb), free(rc);
  } else {
    if (xfer <= 0) xfer = w->size;
    long lo = 0, hi = 0;
    if (w->kind == WR_HEAVY) {
      lo = (long)floor(w->pos * nodes + 0.5);
      hi = lo + (long)floor(w->frac * nodes + 0.5);
      if (hi > nodes) hi = nodes;
    }
    for (long i = 0; i < n; i++) {
      long k = i / ppn;
      double b = w->size * (k >= lo && k < hi ? w->factor : 1);
      out->bytes[i] = b;
      out->calls[i] = b > 0 ? ceil(b / xfer - 1e-9) : 0;
    }
  }
  for (long i = 0; i < n; i++) out->total += out->bytes[i];
  return 0;
}

double writers_node_bytes(const writers_t *w, int k) {
  double s = 0;
  for (long i = (long)k * w->ppn; i < (long)(k + 1) * w->ppn; i++) s += w->bytes[i];
  return s;
}

double writers_node_calls(const writers_t *w, int k) {
  double s = 0;
  for (long i = (long)k * w->ppn; i < (long)(k + 1) * w->ppn; i++) s += w->calls[i];
  return s;
}
