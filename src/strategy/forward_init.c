/*
 * The thread level to ask of MPI at initialisation: forwarders' serving
 * threads call MPI beside the program, so a run whose environment asks for
 * forwarding needs MPI_THREAD_MULTIPLE (MPI_Init and MPI_Init_thread are
 * intercepted in src/decouple/init_hook.c). Hints given only through
 * MPI_Info come too late for this; such files fall back (see forward.c).
 */
#include "strategy/forward.h"

#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if text sets ferry_ind_{write,read}_strategy to forward, with '=' (the
 * FERRY_HINTS form) or blanks (the hints-file form) between key and value. */
static int asks_forward(const char *text)
{
    static const char *keys[] = {"ferry_ind_write_strategy", "ferry_ind_read_strategy"};
    for (int k = 0; k < 2; k++)
        for (const char *p = strstr(text, keys[k]); p; p = strstr(p + 1, keys[k])) {
            const char *v = p + strlen(keys[k]);
            while (*v == '=' || *v == ' ' || *v == '\t')
                v++;
            if (strncmp(v, "forward", 7) == 0 && !isalnum((unsigned char)v[7]))
                return 1;
        }
    return 0;
}

static int file_asks_forward(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[1024];
    int yes = 0;
    while (!yes && fgets(line, sizeof line, fp))
        yes = asks_forward(line);
    fclose(fp);
    return yes;
}

int ferry_forward_thread_level(int required)
{
    const char *h = getenv("FERRY_HINTS"), *file = getenv("FERRY_HINTS_FILE");
    int fwd = (h && asks_forward(h)) || (file && *file && file_asks_forward(file));
    return fwd && required < MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
}
