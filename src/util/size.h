/*
 * Sizes as people type them, the same in every hint, variable and tool: a
 * whole or decimal number of bytes with an optional unit k, m, g or t (any
 * case), alone or followed by B or iB. Every unit is a power of 1024: "1m",
 * "1M", "1MB" and "1MiB" all mean 1048576 bytes, as ROMIO's hints, IOR and
 * most HPC tools read them. "1.5m" is 1572864; a number that comes to a
 * fraction of a byte ("0.3k", "1.5") is refused.
 */
#ifndef FERRY_UTIL_SIZE_H
#define FERRY_UTIL_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* 0 and *out set, or -1 with why (if given) saying what is wrong ("unknown
 * unit 'x' (k, m, g or t, ...)", "not a whole number of bytes"); the caller
 * names the text and where it came from. */
int ferry_size_parse(const char *s, int64_t *out, char *why, size_t whylen);

/* For people: "4 MiB", "1.5 MiB", "100 B" (one decimal where the unit
 * does not divide). */
void ferry_size_human(double bytes, char *buf, size_t len);

#endif
