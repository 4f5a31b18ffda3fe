/*
 * What a data process sends: every message goes out with MPI_Isend and is
 * reaped in the serving loop, so a slow receiver never stalls the others.
 */
#include "core/errors.h"
#include "decouple/server.h"

#include <stdlib.h>
#include <string.h>

static char empty[1];

void dc_srv_send(dc_server *S, MPI_Comm comm, int dest, int tag, char *buf, int64_t len)
{
    if (S->nouts == S->capouts) {
        int nc = S->capouts ? 2 * S->capouts : 64;
        struct dc_out *o = realloc(S->outs, (size_t)nc * sizeof *o);
        if (!o) {
            free(buf == empty ? NULL : buf);
            return;
        }
        S->outs = o;
        S->capouts = nc;
    }
    struct dc_out *o = &S->outs[S->nouts];
    if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, comm, &o->r) != MPI_SUCCESS) {
        free(buf == empty ? NULL : buf);
        return;
    }
    o->buf = buf == empty ? NULL : buf;
    S->nouts++;
}

void dc_srv_reply(dc_server *S, int client, int64_t seq, int code, int64_t bytes, int64_t value,
                  const void *res, int64_t reslen)
{
    char text[MPI_MAX_ERROR_STRING];
    int textlen = code != MPI_SUCCESS ? dc_err_text(code, text, sizeof text) : 0;
    int64_t len = (int64_t)sizeof(dc_reply) + reslen + textlen;
    char *b = malloc((size_t)len);
    if (!b)
        return; /* the client will time out rather than hang */
    dc_reply r = {.cls = ferry_err_class(code), .textlen = textlen, .bytes = bytes, .value = value, .reslen = reslen};
    memcpy(b, &r, sizeof r);
    if (reslen > 0)
        memcpy(b + sizeof r, res, (size_t)reslen);
    memcpy(b + sizeof r + reslen, text, (size_t)textlen);
    dc_srv_send(S, dc_w.proto, client, dc_reply_tag(seq), b, len);
    S->clients[client].last_hb = dc_now();
}

int dc_srv_reap(dc_server *S)
{
    int any = 0;
    for (int i = 0; i < S->nouts;) {
        int flag = 0;
        MPI_Test(&S->outs[i].r, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            i++;
            continue;
        }
        free(S->outs[i].buf);
        S->outs[i] = S->outs[--S->nouts];
        any = 1;
    }
    return any;
}

void dc_srv_signal(dc_server *S, MPI_Comm comm, int dest, int tag)
{
    dc_srv_send(S, comm, dest, tag, empty, 0);
}
