/* Dotted-path lookups over jansson documents, and reading a whole file. */
#include "jpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *tj_parse(const char *text, size_t len, char *err, size_t errlen)
{
    json_error_t e;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
    if (!v && err && errlen)
        snprintf(err, errlen, "%s at offset %d", e.text, e.position);
    return v;
}

const json_t *tj_at(const json_t *v, const char *path)
{
    while (v && path && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        char key[256];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        char *end;
        unsigned long i = strtoul(key, &end, 10);
        if (json_is_array(v) && n && !*end) /* "tried.0.best_seconds": an element */
            v = json_array_get(v, i);
        else
            v = json_is_object(v) ? json_object_get(v, key) : NULL;
        path = dot ? dot + 1 : NULL;
    }
    return v;
}

double tj_num(const json_t *v, const char *path, double def)
{
    const json_t *x = tj_at(v, path);
    if (json_is_number(x))
        return json_number_value(x);
    return json_is_boolean(x) ? (json_is_true(x) ? 1 : 0) : def;
}

const char *tj_str(const json_t *v, const char *path, const char *def)
{
    const json_t *x = tj_at(v, path);
    return json_is_string(x) ? json_string_value(x) : def;
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
