/*
 * ferry-tune reads ferry-bench --json lines and FERRY_STATS_JSON records with
 * jansson; these look members up by dotted path with a default, which is how
 * every reader of a record asks. Numbers are read as doubles (the record's
 * counters are exact up to 2^53), true as 1.
 */
#ifndef FERRY_TUNE_JPATH_H
#define FERRY_TUNE_JPATH_H

#include <jansson.h>
#include <stddef.h>

/* Parses text[0..len) into a new reference (json_decref), or NULL with a
 * message in err. */
json_t *tj_parse(const char *text, size_t len, char *err, size_t errlen);
/* Member by dotted path ("ferry_stats.write.counters.bytes_written"; a number
 * names an element of an array: "tried.0.calls"), or NULL. */
const json_t *tj_at(const json_t *v, const char *path);
/* The number at path, or def when it is missing or not a number (true = 1). */
double tj_num(const json_t *v, const char *path, double def);
/* The string at path, or def. */
const char *tj_str(const json_t *v, const char *path, const char *def);
/* A whole file, NUL-terminated; NULL on error. */
char *tj_read_file(const char *path, size_t *len);

#endif
