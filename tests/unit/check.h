/* Minimal assertions for ferry's unit tests: count failures, keep going. */
#ifndef FERRY_TESTS_UNIT_CHECK_H
#define FERRY_TESTS_UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

#define CHECK_MSG(cond, ...)                                                           \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

#define CHECK_STR(a, b)                                                                \
    do {                                                                               \
        const char *a_ = (a), *b_ = (b);                                               \
        if (strcmp(a_, b_) != 0) {                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: \"%s\" != \"%s\"\n", __FILE__,       \
                    __LINE__, a_, b_);                                                 \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

#endif
