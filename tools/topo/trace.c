/* Streaming trace reader: traces can hold millions of messages, so records
 * go straight into arrays without building a document. */
#include "trace.h"

#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_free(trace_t *t) {
  free(t->msgs);
  free(t->writes);
  free(t->node_of);
  memset(t, 0, sizeof *t);
}

static int fail(jlex *lx, char *err, size_t errlen, const char *what) {
  if (lx->err[0]) snprintf(err, errlen, "trace: %s", lx->err);
  else snprintf(err, errlen, "trace: line %d: %s", lx->line, what);
  return -1;
}

static int want_int(const jtok *t, double lo, double *out) {
  if (t->type != JT_NUM || t->num < lo || t->num != floor(t->num) || t->num > 9e15) return 0;
  *out = t->num;
  return 1;
}

/* One record {k: number, ...}; keys[] name the fields wanted, vals[] gets
 * them, NaN when absent. */
static int read_record(jlex *lx, const char *const *keys, int nk, double *vals, char *err, size_t errlen) {
  jtok t;
  for (int i = 0; i < nk; i++) vals[i] = NAN;
  if (jlex_next(lx, &t) != JT_LBRACE) return fail(lx, err, errlen, "expected a record object");
  jlex_next(lx, &t);
  if (t.type == JT_RBRACE) return 0;
  for (;;) {
    if (t.type != JT_STR) return fail(lx, err, errlen, "expected a key");
    int which = -1;
    for (int i = 0; i < nk; i++)
      if (jtok_is(&t, keys[i])) which = i;
    if (jlex_next(lx, &t) != JT_COLON) return fail(lx, err, errlen, "expected ':'");
    jlex_next(lx, &t);
    if (which >= 0) {
      if (!want_int(&t, 0, &vals[which])) return fail(lx, err, errlen, "record fields must be integers >= 0");
    } else if (jlex_skip_value(lx, &t)) {
      return fail(lx, err, errlen, "bad value");
    }
    jlex_next(lx, &t);
    if (t.type == JT_RBRACE) return 0;
    if (t.type != JT_COMMA) return fail(lx, err, errlen, "expected ',' or '}'");
    jlex_next(lx, &t);
  }
}

static int read_array(jlex *lx, trace_t *tr, int writes, char *err, size_t errlen) {
  static const char *const mk[] = {"src", "dst", "bytes"};
  static const char *const wk[] = {"rank", "bytes"};
  jtok t;
  if (jlex_next(lx, &t) != JT_LBRACK) return fail(lx, err, errlen, "expected '['");
  /* peek for an empty array */
  jlex save = *lx;
  if (jlex_next(lx, &t) == JT_RBRACK) return 0;
  *lx = save;
  for (;;) {
    double v[3];
    if (read_record(lx, writes ? wk : mk, writes ? 2 : 3, v, err, errlen)) return -1;
    if (writes) {
      if (isnan(v[0]) || isnan(v[1])) return fail(lx, err, errlen, "a write needs rank and bytes");
      if (tr->nwrites == tr->capwrites) {
        size_t nc = tr->capwrites ? tr->capwrites * 2 : 256;
        trace_write *n = realloc(tr->writes, nc * sizeof *n);
        if (!n) return fail(lx, err, errlen, "out of memory");
        tr->writes = n;
        tr->capwrites = nc;
      }
      tr->writes[tr->nwrites++] = (trace_write){(long)v[0], v[1]};
      if ((long)v[0] > tr->maxrank) tr->maxrank = (long)v[0];
    } else {
      if (isnan(v[0]) || isnan(v[1]) || isnan(v[2])) return fail(lx, err, errlen, "a message needs src, dst and bytes");
      if (tr->nmsgs == tr->capmsgs) {
        size_t nc = tr->capmsgs ? tr->capmsgs * 2 : 1024;
        trace_msg *n = realloc(tr->msgs, nc * sizeof *n);
        if (!n) return fail(lx, err, errlen, "out of memory");
        tr->msgs = n;
        tr->capmsgs = nc;
      }
      tr->msgs[tr->nmsgs++] = (trace_msg){(long)v[0], (long)v[1], v[2]};
      long hi = (long)(v[0] > v[1] ? v[0] : v[1]);
      if (hi > tr->maxrank) tr->maxrank = hi;
    }
    jlex_next(lx, &t);
    if (t.type == JT_RBRACK) return 0;
    if (t.type != JT_COMMA) return fail(lx, err, errlen, "expected ',' or ']'");
  }
}

/* the object's '{' has been read */
/* An object's "rank" and "node": where that rank ran on the traced machine. */
static int note_node(jlex *lx, trace_t *tr, double rank, double node, char *err, size_t errlen) {
  if (isnan(rank) && isnan(node)) return 0;
  if (isnan(rank) || isnan(node)) return fail(lx, err, errlen, "\"rank\" and \"node\" go together");
  long r = (long)rank;
  if (r >= tr->capnodes) {
    long nc = tr->capnodes ? tr->capnodes : 64;
    while (nc <= r) nc *= 2;
    long *n = realloc(tr->node_of, (size_t)nc * sizeof *n);
    if (!n) return fail(lx, err, errlen, "out of memory");
    for (long i = tr->capnodes; i < nc; i++) n[i] = -1;
    tr->node_of = n;
    tr->capnodes = nc;
  }
  if (tr->node_of[r] >= 0 && tr->node_of[r] != (long)node)
    return fail(lx, err, errlen, "objects disagree on a rank's node");
  tr->node_of[r] = (long)node;
  if (r > tr->maxrank) tr->maxrank = r;
  return 0;
}

static int read_object(jlex *lx, trace_t *tr, char *err, size_t errlen) {
  jtok t;
  jlex_next(lx, &t);
  tr->nobjects++;
  double orank = NAN, onode = NAN;
  if (t.type == JT_RBRACE) return 0;
  for (;;) {
    if (t.type != JT_STR) return fail(lx, err, errlen, "expected a key");
    jtok key = t;
    if (jlex_next(lx, &t) != JT_COLON) return fail(lx, err, errlen, "expected ':'");
    if (jtok_is(&key, "messages") || jtok_is(&key, "writes")) {
      if (read_array(lx, tr, jtok_is(&key, "writes"), err, errlen)) return -1;
    } else {
      jlex_next(lx, &t);
      double v;
      if (jtok_is(&key, "ranks")) {
        if (!want_int(&t, 1, &v)) return fail(lx, err, errlen, "ranks must be an integer >= 1");
        if ((long)v > tr->declared) tr->declared = (long)v;
      } else if (jtok_is(&key, "ranks_per_node")) {
        if (!want_int(&t, 1, &v) || v > 1e6) return fail(lx, err, errlen, "ranks_per_node must be an integer >= 1");
        if (tr->ranks_per_node && tr->ranks_per_node != (int)v)
          return fail(lx, err, errlen, "objects disagree on ranks_per_node");
        tr->ranks_per_node = (int)v;
      } else if (jtok_is(&key, "rank") || jtok_is(&key, "node")) {
        if (!want_int(&t, 0, &v) || v > 1e9) return fail(lx, err, errlen, "rank and node must be integers >= 0");
        *(jtok_is(&key, "rank") ? &orank : &onode) = v;
      } else if (jlex_skip_value(lx, &t)) {
        return fail(lx, err, errlen, "bad value");
      }
    }
    jlex_next(lx, &t);
    if (t.type == JT_RBRACE) return note_node(lx, tr, orank, onode, err, errlen);
    if (t.type != JT_COMMA) return fail(lx, err, errlen, "expected ',' or '}'");
    jlex_next(lx, &t);
  }
}

int trace_read(const char *text, size_t len, trace_t *tr, char *err, size_t errlen) {
  memset(tr, 0, sizeof *tr);
  tr->maxrank = -1;
  jlex lx;
  jlex_init(&lx, text, len);
  jtok t;
  int in_array = 0;
  for (;;) {
    int ty = jlex_next(&lx, &t);
    if (ty == JT_EOF) break;
    if (ty == JT_LBRACK && !in_array && tr->nobjects == 0) {
      in_array = 1;
      continue;
    }
    if (in_array && (ty == JT_COMMA)) continue;
    if (in_array && ty == JT_RBRACK) {
      in_array = 0;
      continue;
    }
    if (ty != JT_LBRACE) {
      fail(&lx, err, errlen, "expected a trace object");
      trace_free(tr);
      return -1;
    }
    if (read_object(&lx, tr, err, errlen)) {
      trace_free(tr);
      return -1;
    }
  }
  if (tr->nobjects == 0) {
    snprintf(err, errlen, "trace: no object");
    return -1;
  }
  if (tr->declared && tr->maxrank >= tr->declared) {
    snprintf(err, errlen, "trace: rank %ld used but ranks is %ld", tr->maxrank, tr->declared);
    trace_free(tr);
    return -1;
  }
  tr->ranks = tr->declared ? tr->declared : tr->maxrank + 1;
  return 0;
}

int trace_read_file(const char *path, trace_t *tr, char *err, size_t errlen) {
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    snprintf(err, errlen, "cannot read %s", path);
    memset(tr, 0, sizeof *tr);
    return -1;
  }
  int rc = trace_read(text, len, tr, err, errlen);
  free(text);
  return rc;
}
