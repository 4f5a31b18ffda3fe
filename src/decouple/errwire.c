/*
 * Errors cross processes as a class plus text: codes made by
 * MPI_Add_error_code exist only in the process that made them. The compute
 * side turns each distinct text into one code of its own, so the caller's
 * MPI_Error_string still says what went wrong over there.
 */
#include "core/errors.h"
#include "decouple/decouple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dc_err_text(int code, char *buf, int cap)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        len = 0;
    const char *p = text;
    if (len >= 7 && !strncmp(p, "ferry: ", 7)) {
        p += 7;
        len -= 7;
    }
    if (len > cap - 1)
        len = cap - 1;
    memcpy(buf, p, (size_t)len);
    buf[len] = 0;
    return len;
}

#define MAX_TEXTS 64

int dc_err_remote(int cls, const char *text, int len)
{
    static char *texts[MAX_TEXTS];
    static int n;
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    char buf[MPI_MAX_ERROR_STRING + 32];
    int body = len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1;
    snprintf(buf, sizeof buf, "data process: %.*s", body > 0 ? body : 0, text ? text : "");
    if (body <= 0)
        snprintf(buf, sizeof buf, "a data process reported an error");
    for (int i = 0; i < n; i++)
        if (!strcmp(texts[i], buf))
            return ferry_err(cls, texts[i]);
    if (n == MAX_TEXTS)
        return ferry_err(cls, "a data process reported an error");
    texts[n] = strdup(buf); /* at most MAX_TEXTS codes for texts from elsewhere */
    if (!texts[n])
        return cls;
    return ferry_err(cls, texts[n++]);
}
