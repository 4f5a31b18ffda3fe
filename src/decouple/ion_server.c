/*
 * The I/O-node server (ferry-iond): what the ionode strategy spawns on
 * each I/O node for a group of compute ranks (strategy/ionode.h). It takes
 * the group's commands in the order compute rank 0 gives them: open a file
 * (through ferry's core, as the compute ranks did), be the aggregator of a
 * collective call on one, close one, go. Nothing of it outlives the job:
 * the group tells it to go at MPI_Finalize, and the launcher ends it with
 * the job.
 */
#include "core/errors.h"
#include "core/file.h"
#include "core/say.h"
#include "strategy/ionode.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FERRY_PUBLIC
#define FERRY_PUBLIC __attribute__((visibility("default")))
#endif

/* One file the compute ranks opened on this link. */
typedef struct served {
    ferry_file *f;
    ferry_ion_file h;
    struct served *next;
} served;

/* What went wrong here: the compute ranks learn only the error class. */
static void say_failed(ferry_say_level level, const char *what, const char *path, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    char host[256] = "?";
    gethostname(host, sizeof host);
    ferry_say(level, "I/O node %s: %s %s: %s", host, what, path, text);
}

/* Collective over the merged communicator: the open the compute ranks
 * asked for; NULL when it failed on any server. */
static served *open_file(ferry_ion_link *l, const ferry_ion_cmd *cmd, int root)
{
    ferry_ion_open o;
    MPI_Bcast(&o, (int)sizeof o, MPI_BYTE, root, l->merged);
    char path[FERRY_ION_PATH_MAX + 1];
    int len = o.pathlen > 0 && o.pathlen <= FERRY_ION_PATH_MAX ? o.pathlen : 0;
    MPI_Bcast(path, len, MPI_CHAR, root, l->merged);
    path[len] = '\0';
    served *s = calloc(1, sizeof *s);
    int code = s ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* read-write where the compute ranks write: a file domain with holes
     * is read, filled and written back; the file exists by now */
    int amode = o.amode & MPI_MODE_RDONLY ? MPI_MODE_RDONLY : MPI_MODE_RDWR;
    amode |= o.amode & MPI_MODE_UNIQUE_OPEN;
    /* every server opens, so that the open's own collectives match */
    ferry_file *f = NULL;
    int rc = ferry_file_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, code, 1, &f);
    if (rc != MPI_SUCCESS) {
        if (code == MPI_SUCCESS)
            say_failed(FERRY_ERROR, "cannot open", path, rc);
        code = rc;
        f = NULL;
    }
    int cls = ferry_err_class(code), all = cls;
    MPI_Allreduce(&cls, &all, 1, MPI_INT, MPI_MAX, l->merged);
    if (all != MPI_SUCCESS) {
        if (f)
            ferry_file_close(f);
        free(s);
        return NULL;
    }
    s->f = f;
    s->h.fid = cmd->fid;
    s->h.hints = o.hints;
    s->h.fs = o.fs;
    return s;
}

static served *find(served *list, int64_t fid)
{
    while (list && list->h.fid != fid)
        list = list->next;
    return list;
}

/* Collective over the merged communicator: closes s's file. */
static void close_file(ferry_ion_link *l, served **list, served *s)
{
    int code = s ? ferry_file_close(s->f) : ferry_err(MPI_ERR_INTERN, "no such file on this I/O node");
    int cls = ferry_err_class(code), all = cls;
    MPI_Allreduce(&cls, &all, 1, MPI_INT, MPI_MAX, l->merged);
    if (!s)
        return;
    for (served **p = list; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    ferry_ion_file_free(&s->h);
    free(s);
}

/* The commands, until the compute ranks say go. */
static void serve(ferry_ion_link *l, int root)
{
    ferry_flat *bytes = ferry_flat_bytes(1);
    served *list = NULL;
    for (;;) {
        ferry_ion_cmd cmd;
        MPI_Bcast(&cmd, (int)sizeof cmd, MPI_BYTE, root, l->merged);
        if (cmd.kind == FERRY_ION_BYE)
            break;
        if (cmd.kind == FERRY_ION_OPEN) {
            served *s = open_file(l, &cmd, root);
            if (s) {
                s->next = list;
                list = s;
            }
            continue;
        }
        served *s = find(list, cmd.fid);
        if (cmd.kind == FERRY_ION_CLOSE) {
            close_file(l, &list, s);
            continue;
        }
        if (!s) { /* the compute ranks call only on files all servers opened */
            ferry_say(FERRY_ERROR, "I/O-node server: a call on file %lld, which is not open here",
                      (long long)cmd.fid);
            MPI_Abort(l->merged, 70);
        }
        /* a server moves no bytes of its own */
        ferry_xfer x = {.buf = NULL, .mem = bytes, .memcount = 0, .pos = 0, .bytes = 0,
                        .is_write = cmd.kind == FERRY_ION_WRITE};
        ferry_runs none = {.lo = INT64_MAX};
        int64_t done = 0, wend = 0;
        int code = ferry_ion_call(s->f, l, &s->h, &cmd, &x, &none, &done, &wend);
        if (code != MPI_SUCCESS)
            say_failed(FERRY_WARN, x.is_write ? "a collective write failed on" : "a collective read failed on",
                       s->f->filename, code);
    }
    while (list) { /* files the compute ranks did not close: gone with them */
        served *next = list->next;
        ferry_file_close(list->f);
        ferry_ion_file_free(&list->h);
        free(list);
        list = next;
    }
    if (bytes)
        ferry_flat_release(bytes);
}

FERRY_PUBLIC int ferry_ion_serve(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        ferry_say(FERRY_ERROR, "ferry-iond serves the files of a job that ferry's ionode strategy starts it for; "
                               "it is not run by hand (docs/cluster.md, \"I/O-node aggregation\")");
        return 2;
    }
    ferry_ion_serving();
    ferry_ion_link l;
    memset(&l, 0, sizeof l);
    l.inter = parent;
    MPI_Comm_size(MPI_COMM_WORLD, &l.nservers);
    MPI_Intercomm_merge(parent, 0, &l.merged);
    int rc = 1;
    if (ferry_ion_link_nodes(&l) == 0) {
        serve(&l, l.nservers);
        rc = 0;
    }
    ferry_ion_unlink(&l);
    return rc;
}
