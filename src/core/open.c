/*
 * Collective open and close. Every way an open can fail (bad amode on one
 * rank, amodes that differ, a file missing on one node, EXCL races) ends
 * with the same error class on every rank and nothing left half-open.
 *
 * What they cost in collectives, as few as the MPI library's own opens
 * (bench/openclose.sh measures both):
 *  - opening an existing file: one reduction (open_agree.c). Every rank
 *    opens first, then the reduction carries the arguments' agreement, the
 *    opens' outcome and rank 0's facts;
 *  - MPI_MODE_CREATE: that reduction before anything exists, rank 0's
 *    create and a broadcast of its outcome and facts, then a reduction of
 *    the others' opens (as ROMIO creates);
 *  - closing: one reduction of the outcome.
 * The first open on a communicator also duplicates it (dups.c) and, while
 * no rank holds them, reads the hint files (rank 0, broadcast).
 */
#define _GNU_SOURCE
#include "core/amode.h"
#include "core/compat_env.h"
#include "core/consistency.h"
#include "core/job.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/dups.h"
#include "core/manage.h"
#include "learn/remember.h"
#include "core/shared_fp_file.h"
#include "core/async.h"
#include "core/finalize.h"
#include "core/env_names.h"
#include "core/nodes.h"
#include "core/open_agree.h"
#include "core/trace.h"
#include "core/strategies.h"
#include "core/say.h"
#include "core/watchdog.h"
#include "driver/coherence.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

/* Collective, only when the names differ: 1 if every rank opened the same
 * file (one inode), 0 if not or if some rank could not open its name. */
static int one_file(ferry_file *f, int all_opened)
{
    /* The whole device and inode numbers: files created one after the other
     * often have neighbouring inodes, so no bit of them may be dropped. The
     * smallest of each comes as the largest of its complement. */
    struct stat st;
    int opened = all_opened && f->fd.fd >= 0 && fstat(f->fd.fd, &st) == 0;
    uint64_t dev = opened ? (uint64_t)st.st_dev : 0, ino = opened ? (uint64_t)st.st_ino : 0;
    uint64_t v[5] = {dev, ~dev, ino, ~ino, (uint64_t)!opened}, r[5];
    MPI_Allreduce(v, r, 5, MPI_UINT64_T, MPI_MAX, f->comm);
    return all_opened && !r[4] && r[0] == ~r[1] && r[2] == ~r[3];
}

static void warn_rank0(ferry_file *f, const ferry_hint_warnings *w)
{
    if (f->rank != 0)
        return;
    for (int i = 0; i < w->n; i++)
        ferry_say(FERRY_WARN, "%s: %s", f->filename, w->msg[i]);
}

static void file_free(ferry_file *f)
{
    if (!f)
        return;
    ferry_view_free(&f->view);
    if (f->comm != MPI_COMM_NULL)
        ferry_dups_give(f->dups, f->dup_idx, &f->comm);
    free(f->filename);
    free(f);
}

static int open_fd(ferry_file *f, int flags)
{
    int rc = -EACCES;
    /* Write-only files are opened read-write where permissions allow, so
     * sieving and collective buffering can read around holes. */
    if ((flags & FERRY_OPEN_WRITE) && !(flags & FERRY_OPEN_READ)) {
        rc = f->fd.drv->open(f->path, flags | FERRY_OPEN_READ, &f->fd);
        f->fd_readable = rc == 0;
    }
    if (rc == -EACCES) {
        f->fd_readable = !!(flags & FERRY_OPEN_READ);
        rc = f->fd.drv->open(f->path, flags, &f->fd);
    }
    if (rc == 0)
        ferry_watchdog_watch(&f->fd, f->filename, f->hints.io_timeout);
    return rc;
}

static int (*open_check)(void);

void ferry_open_check_set(int (*check)(void)) { open_check = check; }

static void hints_fill(ferry_file *f, MPI_Info info, ferry_hint_warnings *w)
{
    ferry_hints_defaults(&f->hints);
    ferry_hints_apply_system(&f->hints, w);
    ferry_hints_apply_info(&f->hints, info, w);
    ferry_hints_apply_env(&f->hints, f->filename, w);
}

static void learn_warn(const char *line) { ferry_say(FERRY_WARN, "%s", line); }

static void learn_save(void) { ferry_remember_save(learn_warn); }

/* The store of learned choices this open reads and adds to, or NULL. */
static const char *learn_store(const ferry_file *f, char *buf, size_t cap)
{
    return f->hints.learn == FERRY_LEARN_OFF ? NULL : ferry_learned_path(f->hints.learn_cache, buf, cap);
}

/* Rank 0's facts, once the file exists: what the file system is and
 * allows (its stripe layout is the file's own) and, for MPI_MODE_APPEND,
 * the size. The other ranks take them, so rules built on them agree across
 * ranks by construction. Returns 0 or an errno of the size. */
static int facts_of(ferry_file *f, ferry_open_facts *x, ferry_remember_wire *known)
{
    memset(x, 0, sizeof *x);
    known->n = 0;
    if (f->rank != 0)
        return 0;
    ferry_fs_probe(f->path, &x->fs);
    /* what the store of learned choices knows of it: the number rides with
     * the facts, the entries follow only when there are some (facts_apply) */
    char store[PATH_MAX];
    ferry_remember_load(learn_store(f, store, sizeof store), x->fs.name, x->fs.mount, f->size, known, learn_warn);
    x->known = known->n;
    if (f->fd.fd >= 0 && (f->amode & MPI_MODE_APPEND))
        return f->fd.drv->size(&f->fd, &x->size);
    return 0;
}

static void facts_apply(ferry_file *f, const ferry_open_facts *x, ferry_remember_wire *known)
{
    known->n = x->known > 0 && x->known <= FERRY_REMEMBER_MAX ? x->known : 0;
    if (f->size > 1 && known->n)
        MPI_Bcast(known->e, known->n * (int)sizeof known->e[0], MPI_BYTE, 0, f->comm);
    f->fs = x->fs;
    ferry_remember_keep(&f->remember, known);
    ferry_fs_apply_hints(&f->fs, f->hints.striping_unit, f->hints.striping_factor);
    if (f->hints.cache_coherent != FERRY_TRI_AUTO)
        ferry_fs_vouch_cache(&f->fs, f->hints.cache_coherent == FERRY_TRI_ENABLE);
    else if (f->fs.clients_here == 1 && !f->fs.coherent_cache && ferry_job_one_view(f->comm))
        ferry_fs_one_client(&f->fs); /* rank 0's mount table is every rank's */
    f->stats.fs = f->fs;
}

/* MPI_MODE_CREATE on rank 0. *created: this open may have made the file,
 * so its directory entry is new and worth an fsync (docs/reliability.md);
 * an existing file opened again with MPI_MODE_CREATE, as programs often
 * do, costs none (ROMIO makes none at all). Exclusive first to know which;
 * a file removed between the two tries, or a dangling symlink (which
 * O_EXCL refuses), is opened as before. */
static int create_fd(ferry_file *f, int flags, int *created)
{
    *created = 1;
    int err = open_fd(f, flags | FERRY_OPEN_EXCL);
    if (err != -EEXIST || (flags & FERRY_OPEN_EXCL))
        return err;
    err = open_fd(f, flags & ~FERRY_OPEN_CREATE);
    if (err != -ENOENT) {
        *created = 0;
        return err;
    }
    return open_fd(f, flags);
}

/* Rank 0 alone creates, so EXCL means "did not exist before this open" and
 * the others never race the create; they open once it exists. Returns
 * this rank's errno (0) and the largest error class of all. */
static int open_create(ferry_file *f, int flags, ferry_open_facts *x, int *maxcls, ferry_remember_wire *known)
{
    struct {
        int err;
        ferry_open_facts x;
    } r0;
    memset(&r0, 0, sizeof r0);
    int err = 0;
    if (f->rank == 0) {
        int created;
        err = create_fd(f, flags, &created);
        if (err == 0) {
            if (created)
                f->fd.drv->sync_dir(f->path);
            err = facts_of(f, &r0.x, known);
        }
        r0.err = err;
    }
    if (f->size > 1)
        MPI_Bcast(&r0, (int)sizeof r0, MPI_BYTE, 0, f->comm);
    if (r0.err == 0 && f->rank != 0)
        err = open_fd(f, flags & ~(FERRY_OPEN_CREATE | FERRY_OPEN_EXCL));
    else if (f->rank != 0)
        err = r0.err; /* every rank names rank 0's cause, not "another rank" */
    *x = r0.x;
    int cls = err ? ferry_errno_class(err) : MPI_SUCCESS;
    *maxcls = cls;
    if (f->size > 1)
        MPI_Allreduce(&cls, maxcls, 1, MPI_INT, MPI_MAX, f->comm);
    return err;
}

static void close_fd(ferry_file *f)
{
    if (f->fd.fd >= 0)
        f->fd.drv->close(&f->fd);
}

/* Gives up an open before the file is registered: descriptor closed,
 * communicator given back. Returns code. */
static int open_fail(ferry_file *f, int code)
{
    close_fd(f);
    file_free(f);
    return code;
}

/* The handle before anything collective: no descriptor, no communicator. */
static ferry_file *file_new(MPI_Comm comm, const char *filename, int amode, int quiet)
{
    ferry_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->magic = FERRY_FILE_MAGIC;
    f->comm = MPI_COMM_NULL;
    f->dup_idx = -1;
    f->fd.fd = -1;
    f->amode = amode;
    f->errhandler = ferry_errh_null_file();
    f->shfp_win = MPI_WIN_NULL;
    ferry_stats_init(&f->stats);
    f->stats.quiet = quiet;
    ferry_view_init(&f->view);
    f->filename = strdup(filename ? filename : "");
    if (!f->filename) {
        file_free(f);
        return NULL;
    }
    MPI_Comm_rank(comm, &f->rank);
    MPI_Comm_size(comm, &f->size);
    const char *stripped;
    f->fd.drv = ferry_driver_for(f->filename, &stripped);
    f->path = f->filename + (stripped - f->filename);
    return f;
}

/* The agreement (open_agree.h) and the file's communicator. An existing
 * file is opened first, so its outcome rides in the agreement; a create
 * waits (nothing may exist if the arguments fail somewhere). *err is this
 * rank's errno of that open. local_err: an error the binding found here.
 * Fails on every rank alike. */
static int agree(ferry_file *f, MPI_Comm comm, int local_err, int flags, ferry_open_agreed *a, int *err,
                 ferry_remember_wire *known)
{
    const char *why = NULL;
    int local = local_err != MPI_SUCCESS ? ferry_err_class(local_err) : ferry_amode_check(f->amode, &why);
    char nodrv[300];
    if (local == MPI_SUCCESS && !f->fd.drv) {
        snprintf(nodrv, sizeof nodrv, "no driver for the file system of %.200s%s", f->filename,
                 f->path == f->filename ? " (ROMIO_FSTYPE_FORCE)" : "");
        local = MPI_ERR_IO, why = nodrv;
    }
    ferry_open_mine m;
    memset(&m, 0, sizeof m);
    *err = 0;
    if (!(flags & FERRY_OPEN_CREATE) && local == MPI_SUCCESS) {
        *err = open_fd(f, flags);
        if (*err == 0)
            *err = facts_of(f, &m.facts, known);
    }
    f->dups = ferry_dups_of(comm);
    m.err = local;
    m.amode = f->amode;
    m.digest = ferry_hints_digest(&f->hints);
    m.pool = ferry_shfp_pool_state(comm, f->dups);
    m.name = f->filename;
    m.dup = ferry_dups_pick(f->dups);
    m.need_text = !ferry_hints_env_held();
    m.opened = *err ? ferry_errno_class(*err) : MPI_SUCCESS;
    ferry_switches_local(&f->sw);
    m.sw = f->sw;
    int rc = ferry_open_agree(comm, f->rank, &m, a);
    if (rc != MPI_SUCCESS)
        return rc;
    if (a->err != MPI_SUCCESS || a->amode_differs)
        return local_err != MPI_SUCCESS ? local_err
             : local != MPI_SUCCESS ? ferry_err(local, why)
             : a->amode_differs ? ferry_err(MPI_ERR_AMODE, "amode differs between the ranks of the open")
             : ferry_err(a->err, "the arguments of the open are invalid on another rank");
    f->dup_idx = f->dups ? a->dup : -1;
    return ferry_dups_take(f->dups, comm, f->dup_idx, &f->comm);
}

/* Hints the ranks hold alike; the first open reads the hint files (rank 0,
 * for every rank). Rank 0 prints the warnings. */
static void hints_settle(ferry_file *f, MPI_Info info, const ferry_open_agreed *a, ferry_hint_warnings *w)
{
    if (a->need_text) {
        memset(w, 0, sizeof *w);
        ferry_hints_env_read(f->comm, w);
        hints_fill(f, info, w);
        ferry_hints_agree(&f->hints, f->comm, w);
    } else if (a->hints_differ) {
        ferry_hints_agree(&f->hints, f->comm, w);
    }
}

/* Hints ferry accepts but that have no effect on this file: said once at
 * open (rank 0), and get_info reports them as they act. */
static void warn_ignored(const ferry_file *f)
{
    if (f->rank != 0 || f->stats.quiet)
        return;
    if (f->hints.striping_factor > 0 && !ferry_fs_stripes(&f->fs))
        ferry_say(FERRY_WARN, "%s: hint striping_factor=%d ignored: %s does not stripe files", f->filename,
                  f->hints.striping_factor, f->fs.name[0] ? f->fs.name : "the file system");
    if (f->hints.direct_read || f->hints.direct_write)
        ferry_say(FERRY_WARN, "%s: hint%s%s ignored: ferry does no O_DIRECT I/O (get_info says false)", f->filename,
                  f->hints.direct_read ? " direct_read" : "", f->hints.direct_write ? " direct_write" : "");
}

static void close_unclosed(void);

static void display(const ferry_file *f)
{
    if (f->rank != 0 || f->stats.quiet)
        return;
    if (f->sw.v[FERRY_SW_DISPLAY]) {
        ferry_hints in_effect;
        ferry_file_hints_in_effect(f, &in_effect);
        ferry_hints_display(&in_effect, f->filename, stderr);
        char fs[256];
        ferry_fs_describe(&f->fs, fs, sizeof fs);
        fprintf(stderr, "  file system %s\n", fs);
        ferry_fs_describe_consistency(&f->fs, fs, sizeof fs);
        fprintf(stderr, "  other clients' writes: %s\n", fs);
    }
    if (f->sw.v[FERRY_SW_ROMIO_PRINT]) {
        ferry_hints in_effect;
        ferry_file_hints_in_effect(f, &in_effect);
        ferry_hints_print_romio(&in_effect, f->filename, stdout);
    }
}

int ferry_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, int local_err, int quiet,
                    ferry_file **out)
{
    double t0 = ferry_now();
    *out = NULL;
    ferry_file *f = file_new(comm, filename, amode, quiet);
    if (!f)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory opening a file");
    ferry_env_check_once();
    if (local_err == MPI_SUCCESS && open_check)
        local_err = open_check();
    ferry_hint_warnings w = {0};
    hints_fill(f, info, &w);
    int flags = ferry_amode_open_flags(amode);

    ferry_open_agreed a;
    int err;
    ferry_remember_wire known; /* about 8 KiB, on the stack: no rank can fail to join */
    known.n = 0;
    int rc = agree(f, comm, local_err, flags, &a, &err, &known);
    if (rc != MPI_SUCCESS)
        return open_fail(f, rc);
    hints_settle(f, info, &a, &w);
    ferry_switches_settle(&f->sw, a.sw_max, a.sw_negmax, &w);
    warn_rank0(f, &w);
    ferry_env_compat_announce(stderr);

    ferry_open_facts facts = a.facts;
    int maxcls = a.opened;
    if (flags & FERRY_OPEN_CREATE)
        err = open_create(f, flags, &facts, &maxcls, &known);
    /* MPI: the names must reference one file, and a collective argument that
     * differs is MPI_ERR_NOT_SAME. Different spellings of one file are fine
     * (same inode everywhere); anything else fails on every rank. */
    if (a.names_differ && !one_file(f, maxcls == MPI_SUCCESS))
        return open_fail(f, ferry_err(MPI_ERR_NOT_SAME, "the ranks of a collective open name different files"));
    if (maxcls == MPI_SUCCESS) {
        f->fp = facts.size;
        maxcls = ferry_shfp_create(f, facts.size, a.pool);
    }
    if (maxcls != MPI_SUCCESS)
        return open_fail(f, err ? ferry_err_errno(err, f->filename) : ferry_err(maxcls, "open failed on another rank"));
    if (ferry_handles_add(f) < 0) {
        ferry_shfp_free(f, 0);
        return open_fail(f, ferry_err(MPI_ERR_NO_MEM, "out of memory registering a file handle"));
    }
    ferry_at_finalize_first(close_unclosed);
    facts_apply(f, &facts, &known);
    int cons = ferry_shfp_settle(f);
    if (cons == MPI_SUCCESS)
        cons = ferry_consist_open(f);
    if (cons == MPI_SUCCESS && (amode & MPI_MODE_APPEND) && ferry_coh_active(&f->fd)) {
        /* the size each rank's client showed at the start may be old: the
         * agreed one is where appending starts */
        f->fp = ferry_coh_floor(&f->fd);
        cons = ferry_shfp_reset(f, f->fp);
    }
    if (cons != MPI_SUCCESS) {
        ferry_handles_remove(f);
        ferry_shfp_free(f, 0);
        return open_fail(f, cons);
    }
    ferry_strategies.open(f);
    warn_ignored(f);
    display(f);
    ferry_stats_phase(&f->stats, FERRY_PHASE_OPEN, t0);
    *out = f;
    return MPI_SUCCESS;
}

int ferry_file_close(ferry_file *f)
{
    double t0 = ferry_now();
    int fwd = ferry_strategies.close(f); /* before the descriptor goes: forwarders write through it */
    ferry_strategies.release(f); /* notes what was learned */
    char store[PATH_MAX];
    if (ferry_remember_close(&f->remember, f->rank == 0 ? learn_store(f, store, sizeof store) : NULL, learn_warn))
        ferry_at_finalize(learn_save);
    int cons = ferry_consist_close(f);
    int err = f->fd.drv->close(&f->fd);
    if (fwd == MPI_SUCCESS)
        fwd = cons;
    int cls = err ? ferry_errno_class(err) : ferry_err_class(fwd);
    /* the hidden pointer file (no windows) is closed on every rank before
     * the reduction, so that rank 0 removes it after (ferry_shfp_closed) */
    ferry_shfp_file_close(f);
    /* one reduction: the outcome, and whether the shared pointer moved */
    int v[2] = {cls, f->shfp_dirty}, r[2] = {cls, f->shfp_dirty};
    if (f->size > 1)
        MPI_Allreduce(v, r, 2, MPI_INT, MPI_MAX, f->comm);
    int maxcls = r[0];
    ferry_shfp_free(f, r[1]);
    ferry_shfp_closed(f);
    if (maxcls == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        f->fd.drv->remove(f->path);
    ferry_stats_phase(&f->stats, FERRY_PHASE_CLOSE, t0);
    ferry_trace_flush(f->stats.sys_write_bytes, f->stats.sys_writes);
    /* the job report (FERRY_REPORT) needs every file's statistics, also
     * where no switch asks for them or the ranks' switches differ */
    if (f->sw.v[FERRY_SW_STATS] || f->sw.v[FERRY_SW_TIMERS] || f->sw.v[FERRY_SW_JSON] || ferry_stats_job_report()) {
        /* the hints in effect, as MPI_File_get_info gives them: cb_nodes
         * the aggregators used, striping_factor 0 where nothing stripes */
        char hj[8192];
        ferry_hints in_effect;
        ferry_file_hints_in_effect(f, &in_effect);
        if (ferry_hints_to_json(&in_effect, hj, sizeof hj) < 0)
            hj[0] = 0;
        ferry_stats_report(&f->stats, f->comm, f->filename, hj[0] ? hj : NULL, ferry_nodes_count(f->comm, f->dups), &f->sw);
    }
    int code = maxcls == MPI_SUCCESS ? MPI_SUCCESS
             : err ? ferry_err_errno(err, f->filename)
             : fwd ? fwd : ferry_err(maxcls, "close failed on another rank");
    ferry_handles_remove(f);
    f->magic = 0;
    file_free(f);
    return code;
}


/* Files left open at MPI_Finalize (erroneous, but it happens): ferry closes
 * them there, before any of its caches goes, in the order each process
 * opened them (opens are collective, so the ranks of every file meet its
 * close in the same order). Their data is flushed as a close would, their
 * statistics and JSON record are written, and rank 0 of each names the file
 * in a warning. A close that fails is printed: no call is left to return it. */
static void close_unclosed(void)
{
    ferry_file **v = NULL;
    int n = ferry_handles_live(&v);
    for (int i = 0; i < n; i++) {
        ferry_file *f = v[i];
        int rank = f->rank;
        char name[512];
        snprintf(name, sizeof name, "%s", f->filename);
        if (rank == 0 && !f->stats.quiet)
            ferry_say(FERRY_WARN, "%s: not closed before MPI_Finalize; ferry closes it there", name);
        ferry_async_drain(f);
        ferry_async_stop(f);
        int rc = ferry_file_close(f);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
                snprintf(text, sizeof text, "error %d", rc);
            ferry_say(FERRY_ERROR, "rank %d: closing \"%s\" at MPI_Finalize failed: %s", rank, name, text);
        }
    }
    free(v);
}

int ferry_file_delete(const char *filename, MPI_Info info)
{
    (void)info;
    const char *path;
    const ferry_driver *drv = ferry_driver_for(filename, &path);
    if (!drv)
        return ferry_err(MPI_ERR_IO, "no driver for the file system of the name's prefix");
    int err = drv->remove(path);
    return err ? ferry_err_errno(err, filename) : MPI_SUCCESS;
}
