#include "core/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void ferry_say(ferry_say_level level, const char *fmt, ...)
{
    static const char *const word[] = {"", "note: ", "warning: ", "error: "};
    char line[1024], *text = line;
    int head = snprintf(line, sizeof line, "ferry: %s", word[level]);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + head, sizeof line - (size_t)head - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)head + (size_t)n;
    if (len + 2 > sizeof line) {
        /* a long text (a path, a list) is still printed whole */
        text = malloc(len + 2);
        if (!text) {
            text = line;
            len = sizeof line - 2;
        } else {
            snprintf(text, len + 1, "ferry: %s", word[level]);
            va_start(ap, fmt);
            vsnprintf(text + head, len + 1 - (size_t)head, fmt, ap);
            va_end(ap);
        }
    }
    text[len] = '\n';
    text[len + 1] = '\0';
    fputs(text, stderr); /* stderr is unbuffered: one write */
    if (text != line)
        free(text);
}
