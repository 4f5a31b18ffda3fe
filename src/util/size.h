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

/* How ferry_size_format writes a size. Units are powers of 1024. */
typedef enum {
    FERRY_SIZE_SHORT,   /* "4 MiB", "1.5 MiB", "100 B": one decimal where the unit does not divide */
    FERRY_SIZE_TENTHS,  /* "4.0 MiB", "100 B": one decimal past bytes, as table columns show it */
    FERRY_SIZE_3DIGITS, /* "1.50 GiB", "17.5 KiB", "512 MiB": three significant digits */
    FERRY_SIZE_EXACT,   /* "4MiB", "1536KiB", "100": the largest unit up to TiB that divides */
    FERRY_SIZE_HINT,    /* "4m", "1536k", "100": the same as a hint's value */
} ferry_size_style;

/* The one size formatter of the library and the tools: bytes as text in
 * the given style (the last two read back through ferry_size_parse). */
void ferry_size_format(double bytes, ferry_size_style style, char *buf, size_t len);

#endif
