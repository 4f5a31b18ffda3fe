/* FNV-1a, 64 bit: ranks compare texts and facts by exchanging these. */
#ifndef FERRY_UTIL_FNV_H
#define FERRY_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FERRY_FNV_INIT 14695981039346656037ULL

static inline uint64_t ferry_fnv(uint64_t hash, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        hash = (hash ^ c[i]) * 1099511628211ULL;
    return hash;
}

/* of a C string; NULL hashes as the empty one */
static inline uint64_t ferry_fnv_str(const char *s)
{
    uint64_t hash = FERRY_FNV_INIT;
    for (; s && *s; s++)
        hash = (hash ^ (unsigned char)*s) * 1099511628211ULL;
    return hash;
}

#endif
