/*
 * What the library tells a person on stderr: one line, "ferry: " and the
 * level's word ("warning: ", "note: ", "error: "; none for plain reports)
 * before the text, so every message reads alike and a test or a grep finds
 * it by its prefix.
 */
#ifndef FERRY_CORE_SAY_H
#define FERRY_CORE_SAY_H

typedef enum {
    FERRY_INFO,  /* "ferry: " alone: reports asked for, aborts explained */
    FERRY_NOTE,  /* "ferry: note: " */
    FERRY_WARN,  /* "ferry: warning: " */
    FERRY_ERROR, /* "ferry: error: " */
} ferry_say_level;

/* Prints the line (printf format, no newline of its own) in one piece, so
 * that lines of different ranks and threads do not interleave. */
__attribute__((format(printf, 2, 3))) void ferry_say(ferry_say_level level, const char *fmt, ...);

#endif
