/*
 * Command-line options. The common options live in a table built here; each
 * pattern brings its own table. One parser reads both, so `-t 64k`,
 * `--mode=pervar` and `--mode pervar` behave the same everywhere.
 */
#include "bench.h"

#include "util/size.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int set_value(const fb_opt *o, const char *val, char *why, size_t whylen)
{
    switch (o->kind) {
    case FB_SIZE:
        return ferry_size_parse(val, (int64_t *)o->ptr, why, whylen);
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
    case FB_CHOICE: {
        size_t n = 0;
        for (int i = 0; o->choices[i]; i++) {
            if (!strcasecmp(o->choices[i], val)) {
                *(int *)o->ptr = i;
                return 0;
            }
            n += (size_t)snprintf(why + n, n < whylen ? whylen - n : 0, "%s%s", i ? ", " : "one of ", o->choices[i]);
        }
        return -1;
    }
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

/* getopt_long over the common table and the pattern's: short flags ("-t")
 * make the option string, long ones ("--mode") the option array, and each
 * answer leads back to its table entry. */
int fb_parse_args(fb_ctx *c, const fb_opt *pat_opts, int argc, char **argv)
{
    fb_opt common[FB_NCOMMON];
    common_opts(c, common);
    const fb_opt *all[64];
    int n = 0;
    for (const fb_opt *t = common; t->flag && n < 64; t++)
        all[n++] = t;
    for (const fb_opt *t = pat_opts; t && t->flag && n < 64; t++)
        all[n++] = t;
    char shorts[3 * 64 + 3] = "+:";
    struct option longs[65];
    int ns = 2, nl = 0;
    for (int i = 0; i < n; i++) {
        int arg = all[i]->kind != FB_FLAG;
        if (all[i]->flag[1] != '-') {
            shorts[ns++] = all[i]->flag[1];
            if (arg)
                shorts[ns++] = ':';
        } else {
            longs[nl++] = (struct option){all[i]->flag + 2, arg ? required_argument : no_argument, NULL, 256 + i};
        }
    }
    shorts[ns] = '\0';
    longs[nl] = (struct option){0};
    /* getopt wants the program name first */
    char **args = malloc(((size_t)argc + 2) * sizeof *args);
    if (!args)
        return -1;
    args[0] = "ferry-bench";
    memcpy(args + 1, argv, (size_t)argc * sizeof *args);
    args[argc + 1] = NULL;
    const char *pat = c->pat->name;
    char msg[512] = "";
    int ch;
    optind = 0; /* glibc: start afresh (a --then segment parses again) */
    opterr = 0;
    while (!msg[0] && (ch = getopt_long(argc + 1, args, shorts, longs, NULL)) != -1) {
        const fb_opt *o = NULL;
        if (ch >= 256)
            o = all[ch - 256];
        for (int i = 0; i < n && !o && ch != '?' && ch != ':'; i++)
            if (all[i]->flag[1] == ch && all[i]->flag[2] == '\0')
                o = all[i];
        char why[200] = "";
        const char *bad = args[optind - 1];
        const char *eq = strchr(bad, '=');
        if (ch == '?' && eq && !strncmp(bad, "--", 2))
            snprintf(msg, sizeof msg, "%.*s takes no value", (int)(eq - bad), bad);
        else if (ch == '?')
            snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", bad);
        else if (ch == ':')
            snprintf(msg, sizeof msg, "%s needs a value", bad);
        else if (o->kind == FB_FLAG)
            *(int *)o->ptr = 1;
        else if (set_value(o, optarg, why, sizeof why) != 0)
            snprintf(msg, sizeof msg, "bad value for %s: '%s'%s%s", o->flag, optarg, why[0] ? ": " : "", why);
    }
    if (!msg[0] && optind <= argc)
        snprintf(msg, sizeof msg, "unexpected argument '%s' (see --help)", args[optind]);
    free(args);
    if (msg[0]) {
        if (c->rank == 0)
            fprintf(stderr, "ferry-bench %s: %s\n", pat, msg);
        return -1;
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
               "  Sizes: a number of bytes with an optional k, m, g or t, alone or with B or iB,\n"
               "  all powers of 1024 (64k, 1MB = 1MiB = 1048576, 1.5m).\n"
               "  --version prints the version; --help (after a pattern) its options.\n\n"
               "  common options (per pattern):\n");
    print_opts(f, common);
    for (int i = 0; i < npats; i++) {
        if (pats[i]->elsewhere)
            fprintf(f, "\n  %s: %s: its own program, %s\n", pats[i]->name, pats[i]->summary, pats[i]->elsewhere);
        else
            fprintf(f, "\n  %s: %s%s\n", pats[i]->name, pats[i]->summary,
                    pats[i]->unavailable ? " [not available in this build]" : "");
        if (pats[i]->opts)
            print_opts(f, pats[i]->opts);
    }
}
