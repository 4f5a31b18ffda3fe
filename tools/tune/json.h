/*
 * A small JSON reader for ferry-tune: it parses one document (a ferry-bench
 * --json line, a FERRY_STATS_JSON record) into a tree and looks members up
 * by dotted path. Strings are decoded to UTF-8; numbers are doubles, which
 * hold every counter ferry writes exactly up to 2^53.
 */
#ifndef FERRY_TUNE_JSON_H
#define FERRY_TUNE_JSON_H

#include <stddef.h>

typedef enum { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } tj_type;

typedef struct tj {
    tj_type type;
    double num;        /* TJ_NUM; TJ_BOOL: 0 or 1 */
    char *str;         /* TJ_STR */
    int n;             /* TJ_ARR, TJ_OBJ: members */
    struct tj *item;
    char **key;        /* TJ_OBJ */
} tj;

/* Parses text[0..len); 0, or -1 with a message in err. *out is freed with tj_free. */
int tj_parse(const char *text, size_t len, tj *out, char *err, size_t errlen);
void tj_free(tj *v);
/* Member by dotted path ("ferry_stats.write.counters.bytes_written"), or NULL. */
const tj *tj_at(const tj *v, const char *path);
/* The number at path, or def when it is missing or not a number (true = 1). */
double tj_num(const tj *v, const char *path, double def);
/* The string at path, or def. */
const char *tj_str(const tj *v, const char *path, const char *def);
/* A whole file, NUL-terminated; NULL on error. */
char *tj_read_file(const char *path, size_t *len);

#endif
