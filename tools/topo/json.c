/* JSON lexer and DOM (RFC 8259 subset: \u escapes decode to '?'). */
#include "json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jlex_init(jlex *lx, const char *text, size_t len) {
  lx->p = text;
  lx->end = text + len;
  lx->line = 1;
  lx->err[0] = '\0';
}

static int lex_err(jlex *lx, jtok *t, const char *what) {
  snprintf(lx->err, sizeof lx->err, "line %d: %s", lx->line, what);
  t->type = JT_ERR;
  return JT_ERR;
}

static int word(jlex *lx, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(lx->end - lx->p) >= n && memcmp(lx->p, w, n) == 0) {
    lx->p += n;
    return 1;
  }
  return 0;
}

int jlex_next(jlex *lx, jtok *t) {
  while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
    if (*lx->p == '\n') lx->line++;
    lx->p++;
  }
  t->s = NULL;
  t->slen = 0;
  if (lx->p >= lx->end) return t->type = JT_EOF;
  char c = *lx->p;
  switch (c) {
  case '{': lx->p++; return t->type = JT_LBRACE;
  case '}': lx->p++; return t->type = JT_RBRACE;
  case '[': lx->p++; return t->type = JT_LBRACK;
  case ']': lx->p++; return t->type = JT_RBRACK;
  case ':': lx->p++; return t->type = JT_COLON;
  case ',': lx->p++; return t->type = JT_COMMA;
  case '"': {
    const char *s = ++lx->p;
    while (lx->p < lx->end && *lx->p != '"') {
      if (*lx->p == '\\') lx->p++;
      else if (*lx->p == '\n') return lex_err(lx, t, "newline in string");
      lx->p++;
    }
    if (lx->p >= lx->end) return lex_err(lx, t, "unterminated string");
    t->s = s;
    t->slen = (size_t)(lx->p - s);
    lx->p++;
    return t->type = JT_STR;
  }
  case 't': if (word(lx, "true")) return t->type = JT_TRUE; break;
  case 'f': if (word(lx, "false")) return t->type = JT_FALSE; break;
  case 'n': if (word(lx, "null")) return t->type = JT_NULL; break;
  default:
    if (c == '-' || isdigit((unsigned char)c)) {
      char buf[64];
      size_t n = 0;
      while (lx->p < lx->end && n < sizeof buf - 1 &&
             (isdigit((unsigned char)*lx->p) || strchr("+-.eE", *lx->p)))
        buf[n++] = *lx->p++;
      buf[n] = '\0';
      char *e;
      t->num = strtod(buf, &e);
      if (*e || n == 0) return lex_err(lx, t, "bad number");
      return t->type = JT_NUM;
    }
  }
  return lex_err(lx, t, "unexpected character");
}

int jtok_is(const jtok *t, const char *s) {
  return t->type == JT_STR && t->slen == strlen(s) && memcmp(t->s, s, t->slen) == 0;
}

int jlex_skip_value(jlex *lx, const jtok *t) {
  if (t->type == JT_STR || t->type == JT_NUM || t->type == JT_TRUE || t->type == JT_FALSE || t->type == JT_NULL)
    return 0;
  if (t->type != JT_LBRACE && t->type != JT_LBRACK) {
    if (!lx->err[0]) snprintf(lx->err, sizeof lx->err, "line %d: expected a value", lx->line);
    return -1;
  }
  int depth = 1;
  jtok x;
  while (depth > 0) {
    int ty = jlex_next(lx, &x);
    if (ty == JT_EOF || ty == JT_ERR) {
      if (!lx->err[0]) snprintf(lx->err, sizeof lx->err, "line %d: unterminated value", lx->line);
      return -1;
    }
    if (ty == JT_LBRACE || ty == JT_LBRACK) depth++;
    else if (ty == JT_RBRACE || ty == JT_RBRACK) depth--;
  }
  return 0;
}

static char *unescape(const char *s, size_t n) {
  char *o = malloc(n + 1);
  if (!o) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '\\' && i + 1 < n) {
      c = s[++i];
      switch (c) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u': c = '?'; i += 4; break;
      default: break;
      }
    }
    o[k++] = c;
  }
  o[k] = '\0';
  return o;
}

static int parse_value(jlex *lx, jtok *t, jv *v, int depth);

static int push_item(jv *v, size_t *cap, char *key) {
  if (v->n == *cap) {
    size_t nc = *cap ? *cap * 2 : 4;
    jv *ni = realloc(v->items, nc * sizeof *ni);
    if (!ni) return -1;
    v->items = ni;
    if (v->type == JV_OBJ) {
      char **nk = realloc(v->keys, nc * sizeof *nk);
      if (!nk) return -1;
      v->keys = nk;
    }
    *cap = nc;
  }
  memset(&v->items[v->n], 0, sizeof v->items[0]);
  if (v->type == JV_OBJ) v->keys[v->n] = key;
  v->n++;
  return 0;
}

static int parse_value(jlex *lx, jtok *t, jv *v, int depth) {
  memset(v, 0, sizeof *v);
  if (depth > 64) return -1;
  switch (t->type) {
  case JT_NULL: v->type = JV_NULL; return 0;
  case JT_TRUE: v->type = JV_BOOL; v->num = 1; return 0;
  case JT_FALSE: v->type = JV_BOOL; return 0;
  case JT_NUM: v->type = JV_NUM; v->num = t->num; return 0;
  case JT_STR:
    v->type = JV_STR;
    v->str = unescape(t->s, t->slen);
    return v->str ? 0 : -1;
  case JT_LBRACK: {
    v->type = JV_ARR;
    size_t cap = 0;
    jtok x;
    jlex_next(lx, &x);
    if (x.type == JT_RBRACK) return 0;
    for (;;) {
      if (push_item(v, &cap, NULL)) return -1;
      if (parse_value(lx, &x, &v->items[v->n - 1], depth + 1)) return -1;
      jlex_next(lx, &x);
      if (x.type == JT_RBRACK) return 0;
      if (x.type != JT_COMMA) return -1;
      jlex_next(lx, &x);
    }
  }
  case JT_LBRACE: {
    v->type = JV_OBJ;
    size_t cap = 0;
    jtok x;
    jlex_next(lx, &x);
    if (x.type == JT_RBRACE) return 0;
    for (;;) {
      if (x.type != JT_STR) return -1;
      char *key = unescape(x.s, x.slen);
      if (!key || push_item(v, &cap, key)) {
        free(key);
        return -1;
      }
      if (jlex_next(lx, &x) != JT_COLON) return -1;
      jlex_next(lx, &x);
      if (parse_value(lx, &x, &v->items[v->n - 1], depth + 1)) return -1;
      jlex_next(lx, &x);
      if (x.type == JT_RBRACE) return 0;
      if (x.type != JT_COMMA) return -1;
      jlex_next(lx, &x);
    }
  }
  default: return -1;
  }
}

int json_parse(const char *text, size_t len, jv *out, char *err, size_t errlen) {
  jlex lx;
  jlex_init(&lx, text, len);
  jtok t;
  jlex_next(&lx, &t);
  int rc = parse_value(&lx, &t, out, 0);
  if (rc == 0 && jlex_next(&lx, &t) != JT_EOF) rc = -1;
  if (rc) {
    if (err && errlen) snprintf(err, errlen, "JSON: %s", lx.err[0] ? lx.err : "syntax error");
    json_free(out);
  }
  return rc;
}

void json_free(jv *v) {
  if (!v) return;
  if (v->type == JV_ARR || v->type == JV_OBJ) {
    for (size_t i = 0; i < v->n; i++) {
      json_free(&v->items[i]);
      if (v->type == JV_OBJ) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
  }
  free(v->str);
  memset(v, 0, sizeof *v);
}

const jv *json_get(const jv *obj, const char *key) {
  if (!obj || obj->type != JV_OBJ) return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
  return NULL;
}

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (n < cap) break;
    cap *= 2;
    char *nb = realloc(buf, cap + 1);
    if (!nb) {
      free(buf);
      buf = NULL;
    } else {
      buf = nb;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}
