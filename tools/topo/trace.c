/* Trace reader on jansson. A file holds one object, an array of objects or
 * JSON lines; jansson decodes one top-level value at a time (no EOF check),
 * so the three layouts are one loop. Each value is a document in memory
 * while its records are copied into the arrays (about 0.3 KB per message
 * record at the peak, freed before the next value). */
#include "trace.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_free(trace_t *t) {
  free(t->msgs);
  free(t->writes);
  free(t->records);
  free(t->node_of);
  memset(t, 0, sizeof *t);
}

static int fail(int line, char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "value at line %d: %s", line, what);
  return -1;
}

/* An integer-valued number >= lo (JSON numbers may be written 1e6). */
static int want_int(const json_t *v, double lo, double hi, double *out) {
  if (!json_is_number(v)) return 0;
  double x = json_number_value(v);
  if (!(x >= lo) || x != floor(x) || x > hi) return 0;
  *out = x;
  return 1;
}

/* One record's wanted fields (NaN when absent); unknown keys are ignored. */
static int read_record(const json_t *rec, const char *const *keys, int nk, double *vals) {
  if (!json_is_object(rec)) return -1;
  for (int i = 0; i < nk; i++) {
    json_t *v = json_object_get(rec, keys[i]);
    vals[i] = NAN;
    if (v && !want_int(v, 0, 9e15, &vals[i])) return -1;
  }
  return 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : first;
  void *q = realloc(*p, nc * elem);
  if (!q) return -1;
  *p = q;
  *cap = nc;
  return 0;
}

static int read_array(const json_t *arr, trace_t *tr, int writes, int line, char *err, size_t errlen) {
  static const char *const mk[] = {"src", "dst", "bytes"};
  static const char *const wk[] = {"rank", "bytes", "calls"};
  if (!json_is_array(arr)) return fail(line, err, errlen, writes ? "\"writes\" must be an array" : "\"messages\" must be an array");
  size_t i;
  json_t *rec;
  json_array_foreach(arr, i, rec) {
    double v[3];
    if (read_record(rec, writes ? wk : mk, 3, v))
      return fail(line, err, errlen, "records are objects whose fields are integers >= 0");
    if (writes) {
      if (isnan(v[0]) || isnan(v[1])) return fail(line, err, errlen, "a write needs rank and bytes");
      if (grow((void **)&tr->writes, &tr->capwrites, tr->nwrites, sizeof *tr->writes, 256))
        return fail(line, err, errlen, "out of memory");
      tr->writes[tr->nwrites++] = (trace_write){(long)v[0], v[1], isnan(v[2]) ? 1 : v[2]};
      if ((long)v[0] > tr->maxrank) tr->maxrank = (long)v[0];
    } else {
      if (isnan(v[0]) || isnan(v[1]) || isnan(v[2])) return fail(line, err, errlen, "a message needs src, dst and bytes");
      if (grow((void **)&tr->msgs, &tr->capmsgs, tr->nmsgs, sizeof *tr->msgs, 1024))
        return fail(line, err, errlen, "out of memory");
      tr->msgs[tr->nmsgs++] = (trace_msg){(long)v[0], (long)v[1], v[2]};
      long hi = (long)(v[0] > v[1] ? v[0] : v[1]);
      if (hi > tr->maxrank) tr->maxrank = hi;
    }
  }
  return 0;
}

/* An object's "rank" and "node": where that rank ran on the traced machine. */
static int note_node(trace_t *tr, double rank, double node, int line, char *err, size_t errlen) {
  if (isnan(rank) && isnan(node)) return 0;
  if (isnan(rank) || isnan(node)) return fail(line, err, errlen, "\"rank\" and \"node\" go together");
  long r = (long)rank;
  if (r >= tr->capnodes) {
    long nc = tr->capnodes ? tr->capnodes : 64;
    while (nc <= r) nc *= 2;
    long *n = realloc(tr->node_of, (size_t)nc * sizeof *n);
    if (!n) return fail(line, err, errlen, "out of memory");
    for (long i = tr->capnodes; i < nc; i++) n[i] = -1;
    tr->node_of = n;
    tr->capnodes = nc;
  }
  if (tr->node_of[r] >= 0 && tr->node_of[r] != (long)node)
    return fail(line, err, errlen, "objects disagree on a rank's node");
  tr->node_of[r] = (long)node;
  if (r > tr->maxrank) tr->maxrank = r;
  return 0;
}

/* A FERRY_STATS_JSON record (it has "counters"): its totals. */
static int read_stats(const json_t *obj, trace_t *tr, int line, char *err, size_t errlen) {
  static const char *const ck[] = {"bytes_written", "ind_writes", "coll_writes"};
  double c[3], ranks, nodes = 0;
  if (read_record(json_object_get(obj, "counters"), ck, 3, c) || isnan(c[0]))
    return fail(line, err, errlen, "a record's counters need bytes_written (integers >= 0)");
  json_t *x = json_object_get(obj, "ranks");
  if (!x || !want_int(x, 1, 9e15, &ranks)) return fail(line, err, errlen, "a record needs ranks >= 1");
  if ((x = json_object_get(obj, "nodes")) && !want_int(x, 1, 9e15, &nodes))
    return fail(line, err, errlen, "a record's nodes must be an integer >= 1");
  if (grow((void **)&tr->records, &tr->caprecords, tr->nrecords, sizeof *tr->records, 16))
    return fail(line, err, errlen, "out of memory");
  double calls = (isnan(c[1]) ? 0 : c[1]) + (isnan(c[2]) ? 0 : c[2]);
  tr->records[tr->nrecords++] = (trace_record){(long)ranks, (long)nodes, c[0], calls};
  return 0;
}

static int read_object(const json_t *obj, trace_t *tr, int line, char *err, size_t errlen) {
  if (!json_is_object(obj)) return fail(line, err, errlen, "expected a trace object");
  tr->nobjects++;
  if (json_object_get(obj, "counters")) return read_stats(obj, tr, line, err, errlen);
  double orank = NAN, onode = NAN, v;
  json_t *x;
  if ((x = json_object_get(obj, "messages")) && read_array(x, tr, 0, line, err, errlen)) return -1;
  if ((x = json_object_get(obj, "writes")) && read_array(x, tr, 1, line, err, errlen)) return -1;
  if ((x = json_object_get(obj, "ranks"))) {
    if (!want_int(x, 1, 9e15, &v)) return fail(line, err, errlen, "ranks must be an integer >= 1");
    if ((long)v > tr->declared) tr->declared = (long)v;
  }
  if ((x = json_object_get(obj, "ranks_per_node"))) {
    if (!want_int(x, 1, 1e6, &v)) return fail(line, err, errlen, "ranks_per_node must be an integer >= 1");
    if (tr->ranks_per_node && tr->ranks_per_node != (int)v)
      return fail(line, err, errlen, "objects disagree on ranks_per_node");
    tr->ranks_per_node = (int)v;
  }
  if ((x = json_object_get(obj, "rank")) && !want_int(x, 0, 1e9, &orank))
    return fail(line, err, errlen, "rank and node must be integers >= 0");
  if ((x = json_object_get(obj, "node")) && !want_int(x, 0, 1e9, &onode))
    return fail(line, err, errlen, "rank and node must be integers >= 0");
  return note_node(tr, orank, onode, line, err, errlen);
}

static size_t skip_space(const char *t, size_t pos, size_t len, int *line) {
  while (pos < len && (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\r' || t[pos] == '\n')) {
    if (t[pos] == '\n') (*line)++;
    pos++;
  }
  return pos;
}

int trace_read(const char *text, size_t len, trace_t *tr, char *err, size_t errlen) {
  memset(tr, 0, sizeof *tr);
  tr->maxrank = -1;
  size_t pos = 0;
  int line = 1, rc = 0;
  while (rc == 0 && (pos = skip_space(text, pos, len, &line)) < len) {
    json_error_t je;
    json_t *doc = json_loadb(text + pos, len - pos, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &je);
    if (!doc) {
      snprintf(err, errlen, "line %d: %s (not JSON)", line + je.line - 1, je.text);
      rc = -1;
      break;
    }
    if (json_is_array(doc)) {
      size_t i;
      json_t *o;
      json_array_foreach(doc, i, o) if ((rc = read_object(o, tr, line, err, errlen))) break;
    } else {
      rc = read_object(doc, tr, line, err, errlen);
    }
    json_decref(doc);
    for (size_t e = pos + je.position; pos < e; pos++) line += text[pos] == '\n';
  }
  if (rc == 0 && tr->nobjects == 0) {
    snprintf(err, errlen, "no JSON object in it");
    rc = -1;
  }
  if (rc == 0 && tr->declared && tr->maxrank >= tr->declared) {
    snprintf(err, errlen, "rank %ld used but ranks is %ld", tr->maxrank, tr->declared);
    rc = -1;
  }
  if (rc) {
    trace_free(tr);
    return -1;
  }
  tr->ranks = tr->declared ? tr->declared : tr->maxrank + 1;
  return 0;
}

int trace_records_as_writes(trace_t *tr, char *err, size_t errlen) {
  if (tr->nwrites || !tr->nrecords) return 0;
  long ranks = 0, nodes = -1;
  for (size_t i = 0; i < tr->nrecords; i++) {
    const trace_record *r = &tr->records[i];
    if (r->ranks > ranks) ranks = r->ranks;
    long rn = r->nodes > 0 && r->ranks % r->nodes == 0 ? r->nodes : 0;
    nodes = nodes < 0 || nodes == rn ? rn : 0;
  }
  if (ranks > 100000000L) {
    snprintf(err, errlen, "a record of %ld ranks is more than this reader spreads", ranks);
    return -1;
  }
  for (size_t i = 0; i < tr->nrecords; i++) {
    const trace_record *r = &tr->records[i];
    if (r->bytes <= 0) continue;
    double calls = r->calls / r->ranks;
    for (long k = 0; k < r->ranks; k++) {
      if (grow((void **)&tr->writes, &tr->capwrites, tr->nwrites, sizeof *tr->writes, 256)) {
        snprintf(err, errlen, "out of memory");
        return -1;
      }
      tr->writes[tr->nwrites++] = (trace_write){k, r->bytes / r->ranks, calls > 1 ? calls : 1};
    }
  }
  if (ranks > tr->ranks) tr->ranks = ranks;
  if (ranks - 1 > tr->maxrank) tr->maxrank = ranks - 1;
  if (!tr->ranks_per_node && nodes > 0) tr->ranks_per_node = (int)(ranks / nodes);
  return 0;
}

int trace_read_file(const char *path, trace_t *tr, char *err, size_t errlen) {
  memset(tr, 0, sizeof *tr);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 1 << 16, n = 0, r;
  char *text = malloc(cap);
  while (text && (r = fread(text + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *t2 = realloc(text, cap *= 2);
      if (!t2) free(text);
      text = t2;
    }
  }
  int bad = ferror(f) ? errno : !text ? ENOMEM : 0;
  fclose(f);
  if (bad) {
    free(text);
    snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(bad));
    return -1;
  }
  char why[256];
  int rc = trace_read(text, n, tr, why, sizeof why);
  free(text);
  if (rc) snprintf(err, errlen, "%s: %s", path, why);
  return rc;
}
