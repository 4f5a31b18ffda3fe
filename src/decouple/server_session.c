/*
 * Files a data process holds open for its clients. A session is one
 * client's open of one file, opened through the core on MPI_COMM_SELF: the
 * client's view and pointer are the client's alone, so nothing is shared
 * with the other sessions. Helpers keep read-only shadows of sessions whose
 * reads they share, a bounded number, least recently used first out.
 */
#include "core/errors.h"
#include "core/say.h"
#include "decouple/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHADOWS 64

dc_session *dc_session_find(dc_server *S, int client, int64_t sid, int shadow)
{
    for (dc_session *s = S->sessions; s; s = s->next)
        if (s->client == client && s->sid == sid && s->shadow == shadow)
            return s;
    return NULL;
}

static void unlink_session(dc_server *S, dc_session *s)
{
    for (dc_session **p = &S->sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

static void drop(dc_session *s)
{
    free(s->path);
    free(s->view);
    free(s);
}

static void evict_shadow(dc_server *S)
{
    dc_session *old = NULL;
    for (dc_session *s = S->sessions; s; s = s->next)
        if (s->shadow && !s->inuse && (!old || s->used < old->used))
            old = s;
    if (old)
        dc_session_close(S, old);
}

int dc_session_open(dc_server *S, int client, int64_t sid, const char *path, int amode, MPI_Info info, int shadow,
                    dc_session **out)
{
    *out = NULL;
    if (!shadow && dc_session_find(S, client, sid, 0))
        return ferry_err(MPI_ERR_INTERN, "a decoupled file was opened twice");
    if (shadow && S->nshadows >= MAX_SHADOWS)
        evict_shadow(S);
    dc_session *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory opening a file next to the data");
    }
    int rc = ferry_file_open(MPI_COMM_SELF, path, amode, info, MPI_SUCCESS, 0, &s->f);
    if (rc != MPI_SUCCESS) {
        drop(s);
        return rc;
    }
    /* one session per client writes its part: none knows the file's size */
    s->f->no_size_fixup = 1;
    s->client = client;
    s->sid = sid;
    s->amode = amode;
    s->shadow = shadow;
    s->used = dc_now();
    s->next = S->sessions;
    S->sessions = s;
    S->nshadows += shadow;
    *out = s;
    return MPI_SUCCESS;
}

int dc_session_close(dc_server *S, dc_session *s)
{
    unlink_session(S, s);
    S->nshadows -= s->shadow;
    int rc = ferry_file_close(s->f);
    int code = s->werr != MPI_SUCCESS ? s->werr : rc;
    drop(s);
    return code;
}

void dc_session_close_client(dc_server *S, int client)
{
    for (dc_session *s = S->sessions, *next; s; s = next) {
        next = s->next;
        if (s->client != client || s->shadow)
            continue;
        int rc = dc_session_close(S, s);
        if (rc != MPI_SUCCESS) {
            /* the client left without closing: nobody else can hear it */
            char text[MPI_MAX_ERROR_STRING];
            dc_err_text(rc, text, sizeof text);
            ferry_say(FERRY_INFO, "data process %d: a file left open by compute process %d: %s", dc_w.wrank, client,
                      text);
        }
    }
}

void dc_session_close_all(dc_server *S)
{
    while (S->sessions)
        dc_session_close(S, S->sessions);
}
