/* util/size.c: what every hint, variable and tool accepts as a size. */
#include "unit/check.h"
#include "util/size.h"

#include <stdint.h>

static void good(const char *s, int64_t want)
{
    int64_t v = -1;
    char why[200] = "";
    int rc = ferry_size_parse(s, &v, why, sizeof why);
    CHECK_MSG(rc == 0 && v == want, "'%s' gave rc %d, %lld (%s), want %lld", s, rc, (long long)v, why,
              (long long)want);
}

/* refused, with a reason that contains `says` */
static void bad(const char *s, const char *says)
{
    int64_t v = 12345;
    char why[200] = "";
    int rc = ferry_size_parse(s, &v, why, sizeof why);
    CHECK_MSG(rc == -1 && v == 12345, "'%s' accepted as %lld", s ? s : "(null)", (long long)v);
    CHECK_MSG(strstr(why, says) != NULL, "'%s': reason '%s' lacks '%s'", s ? s : "(null)", why, says);
}

int main(void)
{
    /* plain bytes */
    good("0", 0);
    good("1", 1);
    good("4096", 4096);
    good("512B", 512);
    good("512b", 512);
    good("9223372036854775807", INT64_MAX);
    /* every spelling of a unit is a power of 1024: MB is MiB */
    const char *mega[] = {"1m", "1M", "1mb", "1MB", "1Mb", "1MiB", "1mib", "1MIB"};
    for (size_t i = 0; i < sizeof mega / sizeof *mega; i++)
        good(mega[i], (int64_t)1 << 20);
    good("64k", 64 << 10);
    good("64KiB", 64 << 10);
    good("64KB", 64 << 10);
    good("2g", (int64_t)2 << 30);
    good("2GB", (int64_t)2 << 30);
    good("1t", (int64_t)1 << 40);
    good("1TiB", (int64_t)1 << 40);
    good("8388607t", (int64_t)8388607 << 40); /* the largest whole number of TiB */
    /* decimals, exact to the byte */
    good("1.5m", 1572864);
    good("1.5MiB", 1572864);
    good("0.5k", 512);
    good("2.25g", (int64_t)9 << 28);
    good("1.0", 1);
    good("3.", 3);
    good(".5k", 512);
    good("0.0009765625k", 1);
    good("007k", 7 << 10);
    /* errors, each saying why */
    bad("", "empty");
    bad(NULL, "empty");
    bad("-1", "negative");
    bad("-4m", "negative");
    bad("+5", "no number");
    bad("abc", "no number");
    bad(" 4k", "no number");
    bad(".", "no number");
    bad("k", "no number");
    bad("1.5", "not a whole number of bytes");
    bad("0.3k", "not a whole number of bytes");
    bad("12x", "unknown unit 'x'");
    bad("16q", "unknown unit 'q'");
    bad("4 m", "unknown unit ' m'");
    bad("4k ", "unknown unit 'k '");
    bad("1e6", "unknown unit 'e6'");
    bad("0x10", "unknown unit 'x10'");
    bad("1kk", "unknown unit 'kk'");
    bad("1iB", "unknown unit 'iB'");
    bad("1KiBs", "unknown unit 'KiBs'");
    bad("1.5.2m", "unknown unit '.2m'");
    bad("8388608t", "too large");
    bad("9223372036854775808", "too large");
    bad("100000000000000000000", "too large");
    bad("9223372036854775807k", "too large");
    /* every refusal names the units */
    char why[200];
    int64_t v;
    CHECK(ferry_size_parse("3 parsecs", &v, why, sizeof why) == -1 && strstr(why, "powers of 1024"));
    CHECK(ferry_size_parse("12x", &v, NULL, 0) == -1); /* no reason wanted */
    /* and the formatter, in each of its styles */
    char h[32];
    ferry_size_format(100, FERRY_SIZE_SHORT, h, sizeof h);
    CHECK_STR(h, "100 B");
    ferry_size_format(4 << 20, FERRY_SIZE_SHORT, h, sizeof h);
    CHECK_STR(h, "4 MiB");
    ferry_size_format(1572864, FERRY_SIZE_SHORT, h, sizeof h);
    CHECK_STR(h, "1.5 MiB");
    ferry_size_format(4 << 20, FERRY_SIZE_TENTHS, h, sizeof h);
    CHECK_STR(h, "4.0 MiB");
    ferry_size_format(512, FERRY_SIZE_TENTHS, h, sizeof h);
    CHECK_STR(h, "512 B");
    ferry_size_format(1.5 * (1 << 30), FERRY_SIZE_3DIGITS, h, sizeof h);
    CHECK_STR(h, "1.50 GiB");
    ferry_size_format(17.5 * 1024, FERRY_SIZE_3DIGITS, h, sizeof h);
    CHECK_STR(h, "17.5 KiB");
    ferry_size_format(512 << 20, FERRY_SIZE_3DIGITS, h, sizeof h);
    CHECK_STR(h, "512 MiB");
    ferry_size_format(1 << 20, FERRY_SIZE_EXACT, h, sizeof h);
    CHECK_STR(h, "1MiB");
    ferry_size_format(1536 * 1024, FERRY_SIZE_EXACT, h, sizeof h);
    CHECK_STR(h, "1536KiB");
    ferry_size_format(100, FERRY_SIZE_EXACT, h, sizeof h);
    CHECK_STR(h, "100");
    ferry_size_format(4 << 20, FERRY_SIZE_HINT, h, sizeof h);
    CHECK_STR(h, "4m");
    ferry_size_format(0, FERRY_SIZE_HINT, h, sizeof h);
    CHECK_STR(h, "0");
    /* what EXACT and HINT write, the parser reads back */
    int64_t back = 0;
    ferry_size_format(3 << 10, FERRY_SIZE_HINT, h, sizeof h);
    CHECK(ferry_size_parse(h, &back, NULL, 0) == 0 && back == 3 << 10);
    ferry_size_format((double)((int64_t)5 << 40), FERRY_SIZE_EXACT, h, sizeof h);
    CHECK(ferry_size_parse(h, &back, NULL, 0) == 0 && back == (int64_t)5 << 40);
    return check_failures ? 1 : 0;
}
