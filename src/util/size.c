/* The number is read digit by digit into integers, not through strtod, so
 * "1.5m" is exact and the locale's decimal point plays no part. */
#include "util/size.h"

#include <inttypes.h>
#include <stdio.h>

#define UNITS "k, m, g or t, alone or with B or iB; all powers of 1024"

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

static int refuse(char *why, size_t whylen, const char *reason)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", reason);
    return -1;
}

int ferry_size_parse(const char *s, int64_t *out, char *why, size_t whylen)
{
    if (!s || !*s)
        return refuse(why, whylen, "empty");
    const char *p = s;
    if (*p == '-')
        return refuse(why, whylen, "negative");
    unsigned __int128 whole = 0, frac = 0, scale = 1;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        whole = whole * 10 + (unsigned)(*p - '0');
        if (whole > (unsigned __int128)INT64_MAX)
            return refuse(why, whylen, "too large");
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            if (scale < (unsigned __int128)1000000000000000000ull) {
                frac = frac * 10 + (unsigned)(*p - '0');
                scale *= 10;
            }
    }
    if (!digits)
        return refuse(why, whylen, "no number");
    int shift = 0;
    const char *unit = p;
    switch (lower(*p)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if (lower(p[0]) == 'i' && lower(p[1]) == 'b')
            p += 2;
        else if (lower(p[0]) == 'b')
            p++;
    } else if (lower(*p) == 'b') {
        p++;
    }
    if (*p) {
        char reason[128];
        snprintf(reason, sizeof reason, "unknown unit '%.12s' (" UNITS ")", unit);
        return refuse(why, whylen, reason);
    }
    unsigned __int128 mult = (unsigned __int128)1 << shift;
    unsigned __int128 bytes = whole * mult, part = frac * mult;
    if (part % scale)
        return refuse(why, whylen, "not a whole number of bytes");
    bytes += part / scale;
    if (bytes > (unsigned __int128)INT64_MAX)
        return refuse(why, whylen, "too large");
    *out = (int64_t)bytes;
    return 0;
}

/* The largest unit up to TiB that divides bytes, with the unit's name. */
static void exact(double bytes, const char *const *unit, char *buf, size_t len)
{
    int u = 0;
    if (bytes == (double)(int64_t)bytes) {
        int64_t v = (int64_t)bytes;
        while (u < 4 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        snprintf(buf, len, "%" PRId64 "%s", v, unit[u]);
        return;
    }
    snprintf(buf, len, "%.0f", bytes);
}

void ferry_size_format(double bytes, ferry_size_style style, char *buf, size_t len)
{
    static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    static const char *const exact_unit[] = {"", "KiB", "MiB", "GiB", "TiB"};
    static const char *const hint_unit[] = {"", "k", "m", "g", "t"};
    if (style == FERRY_SIZE_EXACT || style == FERRY_SIZE_HINT) {
        exact(bytes, style == FERRY_SIZE_EXACT ? exact_unit : hint_unit, buf, len);
        return;
    }
    double x = bytes;
    int u = 0;
    while ((x >= 1024.0 || x <= -1024.0) && u < 6) {
        x /= 1024.0;
        u++;
    }
    int decimals = 0;
    if (u > 0 && style == FERRY_SIZE_TENTHS)
        decimals = 1;
    else if (u > 0 && style == FERRY_SIZE_3DIGITS)
        decimals = x >= 100 || x <= -100 ? 0 : x >= 10 || x <= -10 ? 1 : 2;
    else if (u > 0 && x != (double)(int64_t)x)
        decimals = 1;
    snprintf(buf, len, "%.*f %s", decimals, x, iec[u]);
}
