/*
 * JSON records as the library and the tools write them: built as jansson
 * values, dumped by jansson. What jansson leaves to its caller is here once:
 * text that is not valid UTF-8 (a file name is bytes), numbers printed to a
 * chosen precision, and a failed allocation anywhere in a record failing the
 * whole record rather than dropping one member.
 */
#ifndef FERRY_UTIL_JSON_H
#define FERRY_UTIL_JSON_H

#include <jansson.h>
#include <stdio.h>

/* A JSON string of s: bytes that are not valid UTF-8 become U+FFFD, NULL is
 * "". NULL only when memory runs out. */
json_t *ferry_json_str(const char *s);

/* A JSON number of x at `digits` significant digits (as printf's "%.*g"),
 * 0 where x is not finite. */
json_t *ferry_json_real(double x, int digits);

/* A JSON number of x at `decimals` places (as printf's "%.*f"); with 0
 * places, an integer. 0 where x is not finite. */
json_t *ferry_json_fixed(double x, int decimals);

/* obj[key] = v, taking v. Any failure (obj or v NULL, no memory) clears
 * *ok, so a record is checked once when it is complete. */
void ferry_json_set(json_t *obj, const char *key, json_t *v, int *ok);
/* arr += v, taking v; failures as ferry_json_set. */
void ferry_json_push(json_t *arr, json_t *v, int *ok);

/* The compact text of v with a newline: one record, one line (JSON Lines).
 * The caller frees it; NULL when memory runs out. */
char *ferry_json_line(const json_t *v);

/* ferry_json_line written to out; 0, or -1 when memory runs out or out
 * fails. */
int ferry_json_print(const json_t *v, FILE *out);

#endif
