/*
 * The compute side of collective buffering on I/O nodes (ionode.h): the
 * servers spawned at open, each collective call handed to them, the link
 * taken down at close. A file whose servers could not be started takes
 * two-phase among its own ranks, and says why.
 */
#define _GNU_SOURCE
#include "strategy/ionode.h"
#include "strategy/coll_call.h"
#include "core/consistency.h"
#include "core/finalize.h"
#include "core/errors.h"
#include "core/say.h"
#include "driver/coherence.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SERVER_EXE "ferry-iond"

static int serving;

void ferry_ion_serving(void) { serving = 1; }

/* The servers of one group of ranks, kept from its first open that asks
 * for them until MPI_Finalize; at MPI_THREAD_MULTIPLE, whose files' calls
 * may run at once, each file has servers of its own (`own`). */
typedef struct ion_pool {
    MPI_Group group;
    char hosts[FERRY_HINT_STR];
    ferry_ion_link link;
    int64_t next_fid;
    int own;
    struct ion_pool *next;
} ion_pool;

/* What a file keeps: its pool and its state there, or why it has none. */
typedef struct ion_file {
    ferry_file *f;
    int ready;
    char why[FERRY_REASON_LEN];
    ion_pool *pool;
    ferry_ion_file h;
    struct ion_file *next;
} ion_file;

/* Opens and closes run on the program's threads, possibly several. */
static ion_file *files;
static ion_pool *pools;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

static ion_file *find(const ferry_file *f)
{
    pthread_mutex_lock(&files_lock);
    ion_file *e = files;
    while (e && e->f != f)
        e = e->next;
    pthread_mutex_unlock(&files_lock);
    return e;
}

static void add(ion_file *e)
{
    pthread_mutex_lock(&files_lock);
    e->next = files;
    files = e;
    pthread_mutex_unlock(&files_lock);
}

static void drop(ion_file *e)
{
    pthread_mutex_lock(&files_lock);
    ion_file **p = &files;
    while (*p && *p != e)
        p = &(*p)->next;
    if (*p)
        *p = e->next;
    pthread_mutex_unlock(&files_lock);
}

/* Local: the pool of f's group with these hosts. The ranks of a group made
 * its pools together, so each finds the same one (open agrees anyway). */
static ion_pool *pool_of(ferry_file *f)
{
    MPI_Group g;
    MPI_Comm_group(f->comm, &g);
    pthread_mutex_lock(&files_lock);
    ion_pool *p = pools;
    for (; p; p = p->next) {
        int same = MPI_UNEQUAL;
        MPI_Group_compare(p->group, g, &same);
        if (same == MPI_IDENT && strcmp(p->hosts, f->hints.io_nodes) == 0)
            break;
    }
    pthread_mutex_unlock(&files_lock);
    MPI_Group_free(&g);
    return p;
}

/* Collective over l->merged: the servers go. */
static void pool_end(ion_pool *p)
{
    ferry_ion_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = FERRY_ION_BYE;
    MPI_Bcast(&cmd, (int)sizeof cmd, MPI_BYTE, p->link.nservers, p->link.merged);
    ferry_ion_unlink(&p->link);
    MPI_Group_free(&p->group);
    free(p);
}

/* At MPI_Finalize, once the files left open are closed: every pool, in the
 * order the groups made them (each is collective over its group). */
static void pools_end(void)
{
    pthread_mutex_lock(&files_lock);
    ion_pool *p = pools;
    pools = NULL;
    pthread_mutex_unlock(&files_lock);
    ion_pool *rev = NULL;
    while (p) {
        ion_pool *next = p->next;
        p->next = rev;
        rev = p;
        p = next;
    }
    while (rev) {
        ion_pool *next = rev->next;
        pool_end(rev);
        rev = next;
    }
}

static void register_end(void) { ferry_at_finalize(pools_end); }

static int wants_ionode(const ferry_file *f)
{
    int id = ferry_strategy_id(FERRY_STRATEGY_COLLECTIVE, "ionode");
    return !serving && id > 0 && ((int)f->hints.write_strategy == id || (int)f->hints.read_strategy == id);
}

/* The server beside this library: FERRY_IOND, else bin/ferry-iond next
 * to the lib/ directory that holds it (the test library sits one deeper). */
static int server_path(char *out, size_t cap)
{
    const char *env = getenv("FERRY_IOND");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return access(out, X_OK) == 0;
    }
    Dl_info di;
    if (!dladdr((void *)&ferry_ion_serving, &di) || !di.dli_fname)
        return 0;
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", di.dli_fname);
    char *dir = dirname(lib);
    static const char *const up[] = {"/../bin/", "/../../bin/"};
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
        snprintf(out, cap, "%s%s%s", dir, up[i], SERVER_EXE);
        if (access(out, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* ferry_io_nodes: "none", a count, or hosts. Returns the servers wanted
 * (0: none) and sets *hosts when it names them. */
static int servers_wanted(const char *v, int *hosts)
{
    *hosts = 0;
    if (!v[0] || strcmp(v, "none") == 0)
        return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end == '\0')
        return n > 0 && n <= 4096 ? (int)n : 0;
    *hosts = 1;
    int count = 1;
    for (const char *s = v; *s; s++)
        count += *s == ',';
    return count;
}

/* Local, alike on every rank (the hint and the name are agreed): whether
 * the file can have servers; e->why when not. */
static int servers_named(const ferry_file *f, ion_file *e)
{
    int hosts;
    if (servers_wanted(f->hints.io_nodes, &hosts) == 0) {
        snprintf(e->why, sizeof e->why, "ferry_io_nodes=%.64s names no I/O nodes", f->hints.io_nodes);
        return 0;
    }
    if (strlen(f->filename) > FERRY_ION_PATH_MAX) {
        snprintf(e->why, sizeof e->why, "a file name longer than %d bytes", FERRY_ION_PATH_MAX);
        return 0;
    }
    return 1;
}

/* Collective over f->comm: starts the servers into p->link; e->why on
 * failure (alike on every rank). */
static int spawn(ferry_file *f, ion_file *e, ion_pool *p)
{
    int hosts = 0;
    int m = servers_wanted(f->hints.io_nodes, &hosts);
    char exe[PATH_MAX];
    int found = f->rank == 0 ? server_path(exe, sizeof exe) : 1;
    MPI_Bcast(&found, 1, MPI_INT, 0, f->comm);
    if (!found) {
        snprintf(e->why, sizeof e->why, "no %s beside libferry (FERRY_IOND names another)", SERVER_EXE);
        return -1;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    if (hosts)
        MPI_Info_set(info, "host", f->hints.io_nodes);
#ifdef OMPI_MAJOR_VERSION
    /* Open MPI counts the slots of servers spawned at an earlier open, and
     * gone since, as taken until the job ends */
    MPI_Info_set(info, "map_by", "node:OVERSUBSCRIBE");
#endif
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(f->comm, &eh);
    MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
    int *errs = malloc((size_t)m * sizeof *errs);
    char *argv[] = {NULL};
    int rc = MPI_Comm_spawn(exe, argv, m, info, 0, f->comm, &p->link.inter, errs ? errs : MPI_ERRCODES_IGNORE);
    MPI_Comm_set_errhandler(f->comm, eh);
    MPI_Errhandler_free(&eh);
    MPI_Info_free(&info);
    int bad = rc != MPI_SUCCESS;
    for (int i = 0; errs && !bad && i < m; i++)
        bad = errs[i] != MPI_SUCCESS;
    free(errs);
    int any = bad;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (any) {
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, text, &len);
        snprintf(e->why, sizeof e->why, "%d %s could not be started on %.64s%s%.80s", m, m == 1 ? "server" : "servers",
                 hosts ? f->hints.io_nodes : "the launcher's hosts", len ? ": " : "", text);
        if (p->link.inter != MPI_COMM_NULL && rc == MPI_SUCCESS)
            MPI_Comm_disconnect(&p->link.inter);
        p->link.inter = MPI_COMM_NULL;
        return -1;
    }
    p->link.nservers = m;
    MPI_Intercomm_merge(p->link.inter, 1, &p->link.merged);
    if (ferry_ion_link_nodes(&p->link) < 0) { /* the servers saw it too, and go */
        snprintf(e->why, sizeof e->why, "out of memory linking the I/O nodes' servers");
        ferry_ion_unlink(&p->link);
        return -1;
    }
    return 0;
}

/* Collective over f->comm: the pool of f's group, made now if it has none. */
static ion_pool *pool_get(ferry_file *f, ion_file *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    ion_pool *p = level == MPI_THREAD_MULTIPLE ? NULL : pool_of(f);
    int have = p != NULL, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (all)
        return p;
    p = calloc(1, sizeof *p);
    int ok = p != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (!ok) {
        free(p);
        snprintf(e->why, sizeof e->why, "out of memory");
        return NULL;
    }
    p->link.inter = p->link.merged = MPI_COMM_NULL;
    p->own = level == MPI_THREAD_MULTIPLE;
    snprintf(p->hosts, sizeof p->hosts, "%s", f->hints.io_nodes);
    MPI_Comm_group(f->comm, &p->group);
    if (spawn(f, e, p) < 0) {
        MPI_Group_free(&p->group);
        free(p);
        return NULL;
    }
    if (!p->own) {
        pthread_once(&once, register_end);
        pthread_mutex_lock(&files_lock);
        p->next = pools;
        pools = p;
        pthread_mutex_unlock(&files_lock);
    }
    return p;
}

/* Collective over the pool's communicator: the servers open the file. */
static int tell_open(ferry_file *f, ion_file *e)
{
    ferry_ion_link *l = &e->pool->link;
    int root = l->nservers; /* compute rank 0 */
    ferry_ion_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = FERRY_ION_OPEN;
    cmd.fid = e->pool->next_fid++;
    ferry_ion_open o;
    memset(&o, 0, sizeof o);
    o.amode = f->amode;
    o.pathlen = (int32_t)strlen(f->filename);
    o.hints = f->hints;
    o.fs = f->fs;
    MPI_Bcast(&cmd, (int)sizeof cmd, MPI_BYTE, root, l->merged);
    MPI_Bcast(&o, (int)sizeof o, MPI_BYTE, root, l->merged);
    MPI_Bcast(f->filename, o.pathlen, MPI_CHAR, root, l->merged);
    int mine = MPI_SUCCESS, cls = mine;
    MPI_Allreduce(&mine, &cls, 1, MPI_INT, MPI_MAX, l->merged);
    if (cls != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(cls, text, &len);
        snprintf(e->why, sizeof e->why, "the I/O nodes' servers could not open the file (%.120s)", text);
        return -1;
    }
    e->h.fid = cmd.fid;
    e->h.hints = f->hints;
    e->h.fs = f->fs;
    return 0;
}

/* A file's own servers (MPI_THREAD_MULTIPLE) go with it. */
static void pool_done(ion_file *e)
{
    if (e->pool && e->pool->own)
        pool_end(e->pool);
    e->pool = NULL;
}

static void ion_open(ferry_file *f)
{
    if (!wants_ionode(f))
        return;
    ion_file *e = calloc(1, sizeof *e);
    int ok = e != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    if (!all) {
        free(e);
        return;
    }
    e->f = f;
    add(e);
    if (!servers_named(f, e))
        return;
    e->pool = pool_get(f, e);
    if (!e->pool)
        return;
    if (tell_open(f, e) < 0) {
        pool_done(e);
        return;
    }
    e->ready = 1;
}

static int ion_close(ferry_file *f)
{
    ion_file *e = find(f);
    if (!e)
        return MPI_SUCCESS;
    drop(e);
    int code = MPI_SUCCESS;
    if (e->ready) {
        ferry_ion_link *l = &e->pool->link;
        ferry_ion_cmd cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.kind = FERRY_ION_CLOSE;
        cmd.fid = e->h.fid;
        MPI_Bcast(&cmd, (int)sizeof cmd, MPI_BYTE, l->nservers, l->merged);
        int in = MPI_SUCCESS, cls = MPI_SUCCESS;
        MPI_Allreduce(&in, &cls, 1, MPI_INT, MPI_MAX, l->merged);
        if (cls != MPI_SUCCESS)
            code = ferry_err(cls, "closing the file on an I/O node failed");
        ferry_ion_file_free(&e->h);
        pool_done(e);
    }
    free(e);
    return code;
}

/* Alike on every rank: the link was agreed at open, atomic mode by its call. */
static int usable(ferry_coll_call *c, char *buf, size_t cap, const char **why)
{
    ion_file *e = find(c->f);
    if (!e) {
        *why = "the I/O nodes' servers belong to the file, not to a nonblocking call's worker";
        return 0;
    }
    if (!e->ready) {
        snprintf(buf, cap, "%s", e->why);
        *why = buf;
        return 0;
    }
    if (c->f->atomic) {
        *why = "atomic mode orders writes with the file's own locks, on the compute nodes";
        return 0;
    }
    *c->state = e;
    return 1;
}

static int run(ferry_coll_call *c, int64_t *done)
{
    ferry_file *f = c->f;
    ion_file *e = *c->state;
    ferry_ion_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = c->x->is_write ? FERRY_ION_WRITE : FERRY_ION_READ;
    cmd.fid = e->h.fid;
    cmd.memo_valid = e->h.memo[c->x->is_write].valid;
    cmd.floor = ferry_coh_floor(&f->fd);
    cmd.pat = *c->pat;
    /* this rank's own earlier writes reach the servers before they read */
    int code = MPI_SUCCESS;
    if (!c->x->is_write && ferry_coh_active(&f->fd) && ferry_coh_dirty(&f->fd)) {
        int err = f->fd.drv->sync(&f->fd);
        if (err)
            code = ferry_err_errno(err, f->filename);
    }
    ferry_ion_link *l = &e->pool->link;
    MPI_Bcast(&cmd, (int)sizeof cmd, MPI_BYTE, l->nservers, l->merged);
    int64_t wend = 0, moved = 0;
    /* a rank whose sync failed still takes part, with nothing to move */
    ferry_runs none = {.lo = INT64_MAX};
    int rc = ferry_ion_call(f, l, &e->h, &cmd, c->x, code == MPI_SUCCESS ? c->runs : &none, &moved, &wend);
    if (code == MPI_SUCCESS)
        code = rc;
    *done = code == MPI_SUCCESS ? moved : 0;
    if (code == MPI_SUCCESS && c->x->is_write)
        ferry_consist_after_aggregated_write(f, c->runs->n ? c->runs->lo : 0, c->runs->n ? c->runs->hi : 0, wend);
    return code;
}

static void settle(void *state, int is_write, int ran)
{
    ion_file *e = state;
    if (e && !ran)
        e->h.memo[is_write].valid = 0;
}

const struct ferry_strategy_code ferry_ionode_code = {
    .usable = usable,
    .run = run,
    .settle = settle,
    .open = ion_open,
    .close = ion_close,
};
