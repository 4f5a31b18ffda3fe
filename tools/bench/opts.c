/*
 * Command-line options. The common options live in a table built here; each
 * pattern brings its own table. One parser reads both, so `-t 64k`,
 * `--mode=pervar` and `--mode pervar` behave the same everywhere.
 */
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Sizes: a decimal integer with an optional k/m/g suffix (powers of 2), also
 * written KiB/MiB/GiB or KB/MB/GB, as IOR users type them. */
int fb_parse_size(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': shift = 10; end++; break;
    case 'm': shift = 20; end++; break;
    case 'g': shift = 30; end++; break;
    default: return -1;
    }
    if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
        end += strlen(end);
    if (*end || v > (1ULL << 50) >> shift)
        return -1;
    *out = (int64_t)(v << shift);
    return 0;
}

void fb_format_size(char *buf, size_t n, double bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    if (u == 0 || bytes == (double)(int64_t)bytes)
        snprintf(buf, n, "%.0f %s", bytes, unit[u]);
    else
        snprintf(buf, n, "%.1f %s", bytes, unit[u]);
}

static const fb_opt *find(const fb_opt *t, const char *flag, size_t len)
{
    for (; t && t->flag; t++)
        if (strlen(t->flag) == len && !strncmp(t->flag, flag, len))
            return t;
    return NULL;
}

static int set_value(const fb_opt *o, const char *val)
{
    switch (o->kind) {
    case FB_SIZE:
        return fb_parse_size(val, (int64_t *)o->ptr);
    case FB_INT: {
        char *end;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || end == val || *end || v < 0 || v > 1000000000)
            return -1;
        *(int *)o->ptr = (int)v;
        return 0;
    }
    case FB_STR:
        *(const char **)o->ptr = val;
        return 0;
    case FB_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (!strcasecmp(o->choices[i], val)) {
                *(int *)o->ptr = i;
                return 0;
            }
        return -1;
    case FB_FLAG:
        break;
    }
    return -1;
}

/* The options every pattern takes. Built per call: the pointers are into c. */
static void common_opts(fb_ctx *c, fb_opt *t)
{
    const fb_opt o[] = {
        {"-o", "file", FB_STR, &c->path, "test file (file-name prefix with -F)", NULL},
        {"-i", "reps", FB_INT, &c->reps, "repetitions, each a full write and read-back", NULL},
        {"-k", "keep", FB_FLAG, &c->keep, "keep the file(s) after the run", NULL},
        {"--keep", "keep", FB_FLAG, &c->keep, "same as -k", NULL},
        {"--json", "json", FB_FLAG, &c->json, "one JSON object per repetition on stdout", NULL},
        {"--label", "label", FB_STR, &c->label, "free text copied into the JSON record", NULL},
        {"--corrupt-after-write", "corrupt", FB_FLAG, &c->corrupt,
         "debug: rank 0 flips one byte of the file between write and read (the run must fail)", NULL},
        {"-h", "help", FB_FLAG, &c->help, "this text", NULL},
        {"--help", "help", FB_FLAG, &c->help, "same as -h", NULL},
        {0},
    };
    memcpy(t, o, sizeof o);
}
#define FB_NCOMMON 10

int fb_parse_args(fb_ctx *c, const fb_opt *pat_opts, int argc, char **argv)
{
    fb_opt common[FB_NCOMMON];
    common_opts(c, common);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = NULL, *val = NULL;
        size_t len = strlen(a);
        if (!strncmp(a, "--", 2) && (eq = strchr(a, '=')) != NULL)
            len = (size_t)(eq - a);
        const fb_opt *o = find(common, a, len);
        if (!o)
            o = find(pat_opts, a, len);
        if (!o) {
            if (c->rank == 0)
                fprintf(stderr, "ferry-bench %s: unknown option '%s' (see --help)\n", c->pat->name, a);
            return -1;
        }
        if (o->kind == FB_FLAG) {
            if (eq) {
                if (c->rank == 0)
                    fprintf(stderr, "ferry-bench %s: %.*s takes no value\n", c->pat->name, (int)len, a);
                return -1;
            }
            *(int *)o->ptr = 1;
            continue;
        }
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        if (!val || set_value(o, val) != 0) {
            if (c->rank == 0)
                fprintf(stderr, "ferry-bench %s: bad or missing value for %s%s%s\n", c->pat->name, o->flag,
                        val ? ": " : "", val ? val : "");
            return -1;
        }
    }
    if (c->reps < 1) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench %s: -i must be at least 1\n", c->pat->name);
        return -1;
    }
    return 0;
}

static void print_opts(FILE *f, const fb_opt *t)
{
    for (; t->flag; t++) {
        char arg[64] = "";
        if (t->kind == FB_SIZE)
            snprintf(arg, sizeof arg, " SIZE");
        else if (t->kind == FB_INT)
            snprintf(arg, sizeof arg, " N");
        else if (t->kind == FB_STR)
            snprintf(arg, sizeof arg, " TEXT");
        else if (t->kind == FB_CHOICE) {
            size_t n = 1;
            arg[0] = ' ';
            for (int i = 0; t->choices[i] && n < sizeof arg - 1; i++)
                n += (size_t)snprintf(arg + n, sizeof arg - n, "%s%s", i ? "|" : "", t->choices[i]);
        }
        char head[96];
        snprintf(head, sizeof head, "%s%s", t->flag, arg);
        fprintf(f, "    %-28s %s\n", head, t->help);
    }
}

void fb_usage(FILE *f, const fb_pattern *const *pats, int npats)
{
    fb_ctx dummy = {0};
    fb_opt common[FB_NCOMMON];
    common_opts(&dummy, common);
    fprintf(f, "usage: ferry-bench PATTERN [options] [--then PATTERN [options]]...\n"
               "  Runs an I/O benchmark pattern through MPI-IO, verifies every byte read back\n"
               "  (exit status 1 on a mismatch) and reports open/write/read/close times.\n"
               "  --then runs further patterns in the same job (MPI starts once).\n"
               "  Sizes take k, m, g suffixes (powers of 2).\n\n  common options (per pattern):\n");
    print_opts(f, common);
    for (int i = 0; i < npats; i++) {
        fprintf(f, "\n  %s: %s%s\n", pats[i]->name, pats[i]->summary,
                pats[i]->unavailable ? " [not available in this build]" : "");
        if (pats[i]->opts)
            print_opts(f, pats[i]->opts);
    }
}
