/*
 * "Did you mean": the known name closest to a misspelled one, by edit
 * distance, for messages about hint keys, variables and options.
 */
#ifndef FERRY_UTIL_SUGGEST_H
#define FERRY_UTIL_SUGGEST_H

#include <stddef.h>

/* Edits (insert, delete, replace, swap two neighbours; case ignored) that
 * turn a into b. Names longer than 63 characters count as far apart. */
int ferry_edit_distance(const char *a, const char *b);

/* The name in names[0..n) closest to word, if it is close enough to be a
 * slip (at most two edits and one per three characters, at least one),
 * else NULL.
 * An exact match is not a suggestion (NULL). */
const char *ferry_suggest(const char *word, const char *const *names, size_t n);

#endif
