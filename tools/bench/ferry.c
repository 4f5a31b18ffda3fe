/*
 * ferry, when it is there. ferry-bench is linked against MPI only, so ferry
 * is present exactly when it was preloaded (or linked in front of MPI); its
 * public symbol ferry_version tells. ferry writes one JSON record per closed
 * file to $FERRY_STATS_JSON; when the caller did not ask for that, we point
 * it at a temporary file of our own so the record can go into our output.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "bench.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *own_path; /* removed at exit, even on an early exit() */

static void remove_own(void)
{
    if (own_path)
        unlink(own_path);
}

/* Before MPI_Init: ferry reads FERRY_STATS_JSON once, at its first file
 * open, so setting it here is early enough. Every process gets its own file,
 * which keeps records of -F runs (one file per rank) apart. */
void fb_ferry_setup(fb_ctx *c, int records)
{
    const char *(*version)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "ferry_version");
    memcpy(&version, &sym, sizeof sym); /* object to function pointer, without a cast warning */
    if (!version)
        return;
    c->ferry = version();
    const char *env = getenv("FERRY_STATS_JSON");
    if (env && *env) {
        snprintf(c->stats_path, sizeof c->stats_path, "%s", env);
        return;
    }
    if (!records)
        return;
    /* A name of our own, not created here: ferry creates it at the first
     * close, so a run that never closes a file leaves nothing behind. */
    const char *tmp = getenv("TMPDIR");
    snprintf(c->stats_path, sizeof c->stats_path, "%s/ferry-bench-stats.%ld.json", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    unlink(c->stats_path); /* a leftover of a killed run with the same pid */
    setenv("FERRY_STATS_JSON", c->stats_path, 1);
    c->stats_own = 1;
    own_path = strdup(c->stats_path);
    atexit(remove_own);
}

/* Rank 0, after it closed `file`: take ferry's record of that file, the last
 * line naming it (other ranks may append records of their own files when the
 * caller shares one FERRY_STATS_JSON between processes). */
void fb_ferry_capture(fb_ctx *c, const char *file, int is_write)
{
    if (c->rank != 0 || !c->ferry || !c->stats_path[0])
        return;
    FILE *f = fopen(c->stats_path, "r");
    if (!f)
        return;
    /* the records of this run are at the end; 1 MiB holds hundreds of them */
    fseek(f, 0, SEEK_END);
    long size = ftell(f), start = size > (1L << 20) ? size - (1L << 20) : 0;
    char *text = malloc((size_t)(size - start) + 1);
    fseek(f, start, SEEK_SET);
    size_t n = text ? fread(text, 1, (size_t)(size - start), f) : 0;
    fclose(f);
    if (!text)
        return;
    text[n] = '\0';
    json_t *best = NULL, *last = NULL;
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break; /* an incomplete last line is not a record yet */
        *nl = '\0';
        json_t *rec = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
        if (!json_is_object(rec)) {
            json_decref(rec);
            continue;
        }
        const char *name = json_string_value(json_object_get(rec, "file"));
        if (name && !strcmp(name, file)) {
            json_decref(best);
            best = json_incref(rec);
        }
        json_decref(last);
        last = rec;
    }
    json_t **slot = is_write ? &c->rec_w : &c->rec_r;
    json_decref(*slot);
    /* the file's own record, else the last one; each holds its reference */
    *slot = best ? best : last;
    if (best)
        json_decref(last);
    free(text);
}

/* Before MPI_Finalize: once one process exits with an error, the launcher
 * may kill the others before their atexit handlers run. */
void fb_ferry_cleanup(fb_ctx *c)
{
    remove_own();
    json_decref(c->rec_w);
    json_decref(c->rec_r);
    c->rec_w = c->rec_r = NULL;
}
