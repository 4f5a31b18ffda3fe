#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

json_t *ferry_json_str(const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)u), bad = 0;
    for (size_t i = 0; i < len;) {
        int n = utf8_len(u + i);
        bad += n == 0;
        i += n ? (size_t)n : 1;
    }
    if (!bad)
        return json_stringn((const char *)u, len);
    /* each invalid byte becomes U+FFFD, three bytes */
    char *fixed = malloc(len + 2 * bad + 1);
    if (!fixed)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        int n = utf8_len(u + i);
        if (n == 0) {
            memcpy(fixed + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else {
            memcpy(fixed + o, u + i, (size_t)n);
            o += (size_t)n;
            i += (size_t)n;
        }
    }
    json_t *j = json_stringn(fixed, o);
    free(fixed);
    return j;
}

/* x rounded as printf prints it with fmt and one precision: the number a
 * reader of that text gets, so the dump shows no more digits than fmt. */
static double as_printed(const char *fmt, int prec, double x)
{
    char text[400];
    snprintf(text, sizeof text, fmt, prec, x);
    return strtod(text, NULL);
}

json_t *ferry_json_real(double x, int digits) { return json_real(isfinite(x) ? as_printed("%.*g", digits, x) : 0.0); }

json_t *ferry_json_fixed(double x, int decimals)
{
    if (!isfinite(x))
        x = 0.0;
    if (decimals <= 0 && fabs(x) < 9e18)
        return json_integer((json_int_t)llround(x));
    return json_real(as_printed("%.*f", decimals, x));
}

void ferry_json_set(json_t *obj, const char *key, json_t *v, int *ok)
{
    /* jansson takes v also when it fails, and ignores NULLs */
    if (!v || json_object_set_new(obj, key, v) != 0)
        *ok = 0;
}

void ferry_json_push(json_t *arr, json_t *v, int *ok)
{
    if (!v || json_array_append_new(arr, v) != 0)
        *ok = 0;
}

/* 15 significant digits: every number made by ferry_json_real or
 * ferry_json_fixed prints as its rounded text, not as the double nearest
 * it ("0.1", never "0.10000000000000001") */
#define FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

char *ferry_json_line(const json_t *v)
{
    if (!v)
        return NULL;
    size_t need = json_dumpb(v, NULL, 0, FLAGS);
    if (need == 0)
        return NULL;
    char *out = malloc(need + 2);
    if (!out)
        return NULL;
    if (json_dumpb(v, out, need, FLAGS) != need) {
        free(out);
        return NULL;
    }
    out[need] = '\n';
    out[need + 1] = '\0';
    return out;
}

int ferry_json_print(const json_t *v, FILE *out)
{
    char *line = ferry_json_line(v);
    if (!line)
        return -1;
    int rc = fputs(line, out) < 0 ? -1 : 0;
    free(line);
    return rc;
}
