/*
 * Checks members of ferry's statistics records (FERRY_STATS_JSON, one
 * record per line) or of a store of learned choices, by dotted path (a
 * number names an array's element: learning.coll_write.tried.0.calls):
 *
 *   learn_check FILE [-r N] [-f SUBSTRING] PATH OP VALUE ...
 *
 * -r N takes the N-th record (1-based; negative from the end, default -1),
 * -f the last record whose "file" contains SUBSTRING. OP is one of == != <=
 * >= < > (numbers; true/false count as 1/0), ~ or !~ (the string contains
 * VALUE, or not) or absent (no such member; VALUE is ignored). Prints each check; exit status 1 if any fails.
 */
#include "jpath.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: learn_check FILE [-r N] [-f SUBSTRING] PATH OP VALUE ...\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    int a = 2, want = -1;
    const char *sub = NULL;
    if (a + 1 < argc && !strcmp(argv[a], "-r"))
        want = atoi(argv[a + 1]), a += 2;
    if (a + 1 < argc && !strcmp(argv[a], "-f"))
        sub = argv[a + 1], a += 2;
    /* the records, one per line (a store is one document over many lines) */
    char *text = NULL;
    size_t cap = 0, len = 0;
    char line[1 << 16];
    json_t *recs[1024];
    int n = 0;
    while (fgets(line, sizeof line, in)) {
        size_t l = strlen(line);
        if (len + l + 1 > cap) {
            cap = (len + l + 1) * 2;
            text = realloc(text, cap);
        }
        memcpy(text + len, line, l + 1);
        len += l;
    }
    fclose(in);
    json_t *whole = text ? tj_parse(text, len, NULL, 0) : NULL;
    if (whole) {
        recs[n++] = whole;
    } else {
        for (char *p = text, *nl; p && *p && n < 1024; p = nl ? nl + 1 : NULL) {
            nl = strchr(p, '\n');
            json_t *r = tj_parse(p, nl ? (size_t)(nl - p) : strlen(p), NULL, 0);
            if (r && (!sub || (json_is_string(tj_at(r, "file")) && strstr(json_string_value(tj_at(r, "file")), sub))))
                recs[n++] = r;
            else
                json_decref(r);
        }
    }
    int idx = want < 0 ? n + want : want - 1;
    if (idx < 0 || idx >= n) {
        fprintf(stderr, "learn_check: %s: no record %d of %d\n", argv[1], want, n);
        return 1;
    }
    json_t *r = recs[idx];
    int fails = 0;
    for (; a + 2 < argc; a += 3) {
        const char *path = argv[a], *op = argv[a + 1], *val = argv[a + 2];
        const json_t *v = tj_at(r, path);
        int ok;
        char shown[256];
        if (!strcmp(op, "absent")) {
            ok = v == NULL;
            snprintf(shown, sizeof shown, "%s", v ? "present" : "absent");
        } else if (!strcmp(op, "~") || !strcmp(op, "!~")) {
            ok = json_is_string(v) && !strstr(json_string_value(v), val) == !strcmp(op, "!~");
            snprintf(shown, sizeof shown, "%s", json_is_string(v) ? json_string_value(v) : "(not a string)");
        } else {
            double x = tj_num(r, path, NAN), y = !strcmp(val, "true") ? 1 : !strcmp(val, "false") ? 0 : atof(val);
            ok = !strcmp(op, "==") ? x == y : !strcmp(op, "!=") ? x != y : !strcmp(op, "<=") ? x <= y
               : !strcmp(op, ">=") ? x >= y : !strcmp(op, "<") ? x < y : !strcmp(op, ">") ? x > y : 0;
            snprintf(shown, sizeof shown, "%g", x);
        }
        printf("%s: %s %s %s (is %s)\n", ok ? "ok" : "FAIL", path, op, val, shown);
        fails += !ok;
    }
    for (int i = 0; i < n; i++)
        json_decref(recs[i]);
    free(text);
    return fails ? 1 : 0;
}
