/* The JSON reader: recursive descent, depth-limited. */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *p, *end;
    char *err;
    size_t errlen;
} parser;

static int fail(parser *ps, const char *what)
{
    if (ps->err && ps->errlen)
        snprintf(ps->err, ps->errlen, "%s at offset %ld", what, (long)(ps->end - ps->p));
    return -1;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int lit(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
        return 0;
    ps->p += n;
    return 1;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t utf8(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* At the opening quote; the decoded string (malloc'd) or NULL. */
static char *string(parser *ps)
{
    ps->p++;
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += *q == '\\' ? 2 : 1;
    if (q >= ps->end) {
        fail(ps, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(q - ps->p) + 1), *o = out; /* decoding never grows a string */
    if (!out)
        return NULL;
    while (ps->p < q) {
        char c = *ps->p++;
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp;
            if (q - ps->p < 4 || hex4(ps->p, &cp)) {
                free(out);
                fail(ps, "bad \\u escape");
                return NULL;
            }
            ps->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && q - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                unsigned lo;
                if (!hex4(ps->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    ps->p += 6;
                }
            }
            o += utf8(cp, o); /* \uXXXX is 6 bytes, its UTF-8 at most 4 */
            break;
        }
        default: *o++ = c; break; /* \" \\ \/ */
        }
    }
    *o = '\0';
    ps->p = q + 1;
    return out;
}

static int value(parser *ps, tj *v, int depth);

static int add_member(tj *v, tj *item, char *key)
{
    tj *it = realloc(v->item, sizeof *it * (size_t)(v->n + 1));
    if (!it)
        return -1;
    v->item = it;
    if (v->type == TJ_OBJ) {
        char **k = realloc(v->key, sizeof *k * (size_t)(v->n + 1));
        if (!k)
            return -1;
        v->key = k;
        k[v->n] = key;
    }
    it[v->n++] = *item;
    return 0;
}

static int container(parser *ps, tj *v, int depth, char close)
{
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (close == '}') {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected a member name");
            if (!(key = string(ps)))
                return -1;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                return fail(ps, "expected ':'");
            }
            ps->p++;
        }
        tj item;
        if (value(ps, &item, depth + 1) || add_member(v, &item, key)) {
            free(key);
            return -1;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        return fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int value(parser *ps, tj *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > MAX_DEPTH)
        return fail(ps, "nesting too deep");
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end");
    char c = *ps->p;
    if (c == '{') {
        v->type = TJ_OBJ;
        return container(ps, v, depth, '}');
    }
    if (c == '[') {
        v->type = TJ_ARR;
        return container(ps, v, depth, ']');
    }
    if (c == '"') {
        v->type = TJ_STR;
        return (v->str = string(ps)) ? 0 : -1;
    }
    if (lit(ps, "true")) {
        v->type = TJ_BOOL, v->num = 1;
        return 0;
    }
    if (lit(ps, "false")) {
        v->type = TJ_BOOL;
        return 0;
    }
    if (lit(ps, "null"))
        return 0;
    if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t n = 0;
        while (ps->p + n < ps->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", ps->p[n]))
            n++;
        memcpy(buf, ps->p, n);
        buf[n] = '\0';
        char *e;
        errno = 0;
        v->num = strtod(buf, &e);
        if (e == buf || *e)
            return fail(ps, "bad number");
        v->type = TJ_NUM;
        ps->p += n;
        return 0;
    }
    return fail(ps, "unexpected character");
}

int tj_parse(const char *text, size_t len, tj *out, char *err, size_t errlen)
{
    parser ps = {text, text + len, err, errlen};
    if (value(&ps, out, 0)) {
        tj_free(out);
        return -1;
    }
    skip_ws(&ps);
    if (ps.p != ps.end) {
        tj_free(out);
        return fail(&ps, "text after the value");
    }
    return 0;
}

void tj_free(tj *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++) {
        tj_free(&v->item[i]);
        if (v->key)
            free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const tj *tj_at(const tj *v, const char *path)
{
    while (v && path && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        const tj *next = NULL;
        if (v->type == TJ_OBJ)
            for (int i = 0; i < v->n && !next; i++)
                if (strlen(v->key[i]) == n && !memcmp(v->key[i], path, n))
                    next = &v->item[i];
        v = next;
        path = dot ? dot + 1 : NULL;
    }
    return v;
}

double tj_num(const tj *v, const char *path, double def)
{
    const tj *x = tj_at(v, path);
    return x && (x->type == TJ_NUM || x->type == TJ_BOOL) ? x->num : def;
}

const char *tj_str(const tj *v, const char *path, const char *def)
{
    const tj *x = tj_at(v, path);
    return x && x->type == TJ_STR ? x->str : def;
}

char *tj_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b, cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
