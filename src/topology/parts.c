/* The parts every machine model builds with: errors, the options of a spec,
 * node and link arrays, the default gateway blocks. */
#include "topology/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ferry_topo__seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int ferry_topo__parse_opts(const char *args, ferry_topo_optlist *ol, char *err, size_t errlen) {
  memset(ol, 0, sizeof *ol);
  if (!args) return 0;
  const char *p = args;
  int first = 1;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0) {
      const char *eq = memchr(p, '=', len);
      if (!eq) {
        if (!first) {
          ferry_topo__seterr(err, errlen, "option '%.*s' needs key=value", (int)len, p);
          return -EINVAL;
        }
        if (len >= sizeof ol->pos) {
          ferry_topo__seterr(err, errlen, "spec item too long");
          return -EINVAL;
        }
        memcpy(ol->pos, p, len);
        ol->pos[len] = '\0';
      } else {
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        if (ol->nopts == FERRY_TOPO_MAX_OPTS || kl == 0 || kl >= sizeof ol->opts[0].key ||
            vl >= sizeof ol->opts[0].val) {
          ferry_topo__seterr(err, errlen, "bad option '%.*s'", (int)len, p);
          return -EINVAL;
        }
        ferry_topo_opt *o = &ol->opts[ol->nopts++];
        memcpy(o->key, p, kl);
        o->key[kl] = '\0';
        memcpy(o->val, eq + 1, vl);
        o->val[vl] = '\0';
      }
    }
    first = 0;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

const char *ferry_topo__opt(ferry_topo_optlist *ol, const char *key) {
  const char *v = NULL;
  for (int i = 0; i < ol->nopts; i++)
    if (strcmp(ol->opts[i].key, key) == 0) {
      ol->opts[i].used = 1;
      v = ol->opts[i].val; /* the last one given wins */
    }
  return v;
}

int ferry_topo__opt_int(ferry_topo_optlist *ol, const char *key, int def, int lo, int hi, int *out,
                        char *err, size_t errlen) {
  const char *v = ferry_topo__opt(ol, key);
  if (!v) {
    *out = def;
    return 0;
  }
  char *end;
  long x = strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || x < lo || x > hi) {
    ferry_topo__seterr(err, errlen, "option %s=%s: want an integer in [%d, %d]", key, v, lo, hi);
    return -EINVAL;
  }
  *out = (int)x;
  return 0;
}

int ferry_topo__opt_double(ferry_topo_optlist *ol, const char *key, double def, int *out_set,
                           double *out, char *err, size_t errlen) {
  const char *v = ferry_topo__opt(ol, key);
  if (out_set) *out_set = v != NULL;
  if (!v) {
    *out = def;
    return 0;
  }
  char *end;
  double x = strtod(v, &end);
  if (*v == '\0' || *end != '\0' || !(x > 0)) {
    ferry_topo__seterr(err, errlen, "option %s=%s: want a positive number", key, v);
    return -EINVAL;
  }
  *out = x;
  return 0;
}

int ferry_topo__opts_all_used(const ferry_topo_optlist *ol, char *err, size_t errlen) {
  for (int i = 0; i < ol->nopts; i++)
    if (!ol->opts[i].used) {
      ferry_topo__seterr(err, errlen, "unknown option '%s'", ol->opts[i].key);
      return -EINVAL;
    }
  return 0;
}

int ferry_topo__start(ferry_topo_machine *m, ferry_topo_kind kind, const struct ferry_topo_ops *ops,
                      size_t impl_size, const char *args, ferry_topo_optlist *ol, char *err, size_t errlen) {
  int rc = ferry_topo__parse_opts(args, ol, err, errlen);
  if (rc) return rc;
  void *impl = calloc(1, impl_size);
  if (!impl) return -ENOMEM;
  m->impl = impl;
  m->ops = ops;
  m->kind = kind;
  return 0;
}

int ferry_topo__alloc_gateways(ferry_topo_machine *m, int ngw) {
  m->ngw = ngw;
  m->gw_node = malloc((size_t)ngw * sizeof *m->gw_node);
  m->gw_group = malloc((size_t)ngw * sizeof *m->gw_group);
  return m->gw_node && m->gw_group ? 0 : -ENOMEM;
}

int ferry_topo__alloc_nodes(ferry_topo_machine *m) {
  m->service = calloc((size_t)m->nnodes, 1);
  m->default_gw = malloc((size_t)m->nnodes * sizeof *m->default_gw);
  if (!m->service || !m->default_gw) return -ENOMEM;
  for (int i = 0; i < m->nnodes; i++) m->default_gw[i] = -1;
  return 0;
}

int ferry_topo__alloc_links(ferry_topo_machine *m) {
  m->nlinks = m->nnet + m->ngw;
  m->link_bw = malloc((size_t)m->nlinks * sizeof *m->link_bw);
  if (!m->link_bw) return -ENOMEM;
  for (int g = 0; g < m->ngw; g++) m->link_bw[m->nnet + g] = m->exit_bw;
  return 0;
}

void ferry_topo__default_blocks(ferry_topo_machine *m) {
  int k = 0, nc = 0;
  for (int v = 0; v < m->nnodes; v++) nc += !m->service[v];
  for (int v = 0; v < m->nnodes; v++) {
    if (m->service[v]) continue;
    m->default_gw[v] = (int)((long long)k * m->ngw / nc);
    k++;
  }
}
