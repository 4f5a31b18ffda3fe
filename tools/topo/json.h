/* A small JSON reader: a lexer for streaming readers (the trace) and a DOM
 * for small documents (tests read ferry-topo's own --json output). */
#ifndef FERRY_TOPO_JSON_H
#define FERRY_TOPO_JSON_H

#include <stddef.h>

enum {
  JT_EOF = 0, JT_LBRACE, JT_RBRACE, JT_LBRACK, JT_RBRACK, JT_COLON, JT_COMMA,
  JT_STR, JT_NUM, JT_TRUE, JT_FALSE, JT_NULL, JT_ERR
};

typedef struct {
  const char *p, *end;
  int line;
  char err[160];
} jlex;

typedef struct {
  int type;
  double num;
  const char *s;  /* JT_STR: raw contents between the quotes */
  size_t slen;
} jtok;

void jlex_init(jlex *lx, const char *text, size_t len);
int jlex_next(jlex *lx, jtok *t);
/* Skips one complete value whose first token is t. */
int jlex_skip_value(jlex *lx, const jtok *t);
int jtok_is(const jtok *t, const char *s); /* string token equal to s */

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jvtype;

typedef struct jv {
  jvtype type;
  double num;       /* JV_NUM, JV_BOOL (0/1) */
  char *str;        /* JV_STR */
  size_t n;         /* JV_ARR, JV_OBJ: items */
  struct jv *items;
  char **keys;      /* JV_OBJ */
} jv;

int json_parse(const char *text, size_t len, jv *out, char *err, size_t errlen);
void json_free(jv *v);
const jv *json_get(const jv *obj, const char *key);

/* Reads a whole file; *len excludes the NUL terminator added. */
char *read_file(const char *path, size_t *len);

#endif
