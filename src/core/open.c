/*
 * Collective open and close. Every way an open can fail (bad amode on one
 * rank, amodes that differ, a file missing on one node, EXCL races) ends
 * with the same error class on every rank and nothing left half-open.
 */
#define _GNU_SOURCE
#include "core/amode.h"
#include "core/compat_env.h"
#include "core/consistency.h"
#include "core/errors.h"
#include "core/file.h"
#include "core/manage.h"
#include "core/nodes.h"
#include "core/remember.h"
#include "core/trace.h"
#include "core/async.h"
#include "core/finalize.h"
#include "driver/coherence.h"
#include "core/strategies.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

/* What the ranks must agree on at open, reduced in one MPI_Allreduce(MAX):
 * a value v agrees when max(v) == -max(-v). The switches (f->sw) follow. */
enum { AG_ERR, AG_AMODE, AG_NAMODE, AG_DIGEST, AG_NDIGEST, AG_POOL, AG_NPOOL, AG_NAME, AG_NNAME,
       AG_SW, AG_NSW = AG_SW + FERRY_SW_COUNT, AG_N = AG_NSW + FERRY_SW_COUNT };

/* FNV-1a of the file name, shortened so its negation is representable. */
static int64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (int64_t)(h >> 2);
}

/* *pool: the agreed shared-pointer pool state (file.h), -2 when the ranks'
 * states differ. */
static int agree_open(ferry_file *f, int local_err, uint64_t digest, int *amode_differs,
                      int *hints_differ, int64_t *pool, int *names_differ, ferry_hint_warnings *w)
{
    int64_t nh = name_hash(f->filename);
    int64_t d = (int64_t)(digest >> 2); /* keep -d representable */
    int64_t p = ferry_shfp_pool_state(f);
    int64_t v[AG_N] = {local_err, f->amode, -(int64_t)f->amode, d, -d, p, -p, nh, -nh};
    ferry_switches_local(&f->sw);
    for (int i = 0; i < FERRY_SW_COUNT; i++) {
        v[AG_SW + i] = f->sw.v[i];
        v[AG_NSW + i] = -f->sw.v[i];
    }
    int64_t r[AG_N];
    MPI_Allreduce(v, r, AG_N, MPI_INT64_T, MPI_MAX, f->comm);
    *amode_differs = r[AG_AMODE] != -r[AG_NAMODE];
    *hints_differ = r[AG_DIGEST] != -r[AG_NDIGEST];
    *pool = r[AG_POOL] == -r[AG_NPOOL] ? r[AG_POOL] : -2;
    *names_differ = r[AG_NAME] != -r[AG_NNAME];
    ferry_switches_settle(&f->sw, r + AG_SW, r + AG_NSW, w);
    return (int)r[AG_ERR];
}

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
        fprintf(stderr, "ferry: warning: %s: %s\n", f->filename, w->msg[i]);
}

static void file_free(ferry_file *f)
{
    if (!f)
        return;
    ferry_view_free(&f->view);
    if (f->comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->comm);
    free(f->filename);
    free(f);
}

static int open_fd(ferry_file *f, int flags)
{
    /* Write-only files are opened read-write where permissions allow, so
     * sieving and collective buffering can read around holes. */
    if ((flags & FERRY_OPEN_WRITE) && !(flags & FERRY_OPEN_READ)) {
        int rc = f->fd.drv->open(f->path, flags | FERRY_OPEN_READ, &f->fd);
        if (rc == 0) {
            f->fd_readable = 1;
            return 0;
        }
        if (rc != -EACCES)
            return rc;
    }
    f->fd_readable = !!(flags & FERRY_OPEN_READ);
    return f->fd.drv->open(f->path, flags, &f->fd);
}

/* What the file system is and allows, once the file exists (its stripe
 * layout is the file's own), and what the store of learned choices knows
 * of it. Rank 0 asks and the others take its answer in one broadcast (and
 * a second with the store's entries, when it has some), so rules built on
 * it agree across ranks by construction. */
static void probe_fs(ferry_file *f)
{
    struct {
        ferry_fs_info fs;
        int known;
    } w;
    ferry_remember_wire known; /* about 8 KiB, on the stack: no rank can fail to join */
    memset(&w, 0, sizeof w);
    known.n = 0;
    if (f->rank == 0) {
        ferry_fs_probe(f->path, &w.fs);
        ferry_remember_load(f, &w.fs, &known);
        w.known = known.n;
    }
    if (f->size > 1)
        MPI_Bcast(&w, (int)sizeof w, MPI_BYTE, 0, f->comm);
    /* the store's entries, when it has any for this file system and job */
    known.n = w.known > 0 && w.known <= FERRY_REMEMBER_MAX ? w.known : 0;
    if (f->size > 1 && known.n)
        MPI_Bcast(known.e, known.n * (int)sizeof known.e[0], MPI_BYTE, 0, f->comm);
    f->fs = w.fs;
    ferry_remember_keep(f, &known);
    ferry_fs_apply_hints(&f->fs, f->hints.striping_unit, f->hints.striping_factor);
    if (f->hints.cache_coherent != FERRY_TRI_AUTO)
        ferry_fs_vouch_cache(&f->fs, f->hints.cache_coherent == FERRY_TRI_ENABLE);
    f->stats.fs = f->fs;
}

/* Hints ferry accepts but that have no effect on this file: said once at
 * open (rank 0), and get_info reports them as they act. */
static void warn_ignored(const ferry_file *f)
{
    if (f->rank != 0)
        return;
    if (f->hints.striping_factor > 0 && !ferry_fs_stripes(&f->fs))
        fprintf(stderr, "ferry: warning: %s: hint striping_factor=%d ignored: %s does not stripe files\n",
                f->filename, f->hints.striping_factor, f->fs.name[0] ? f->fs.name : "the file system");
    if (f->hints.direct_read || f->hints.direct_write)
        fprintf(stderr, "ferry: warning: %s: hint%s%s ignored: ferry does no O_DIRECT I/O (get_info says false)\n",
                f->filename, f->hints.direct_read ? " direct_read" : "", f->hints.direct_write ? " direct_write" : "");
}

static void close_unclosed(void);

int ferry_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, int local_err, int quiet,
                    ferry_file **out)
{
    double t0 = ferry_now();
    *out = NULL;
    ferry_file *f = calloc(1, sizeof *f);
    if (!f)
        return ferry_err(MPI_ERR_NO_MEM, "out of memory opening a file");
    f->magic = FERRY_FILE_MAGIC;
    f->comm = MPI_COMM_NULL;
    f->fd.fd = -1;
    f->amode = amode;
    f->errhandler = ferry_errh_null_file();
    f->shfp_win = MPI_WIN_NULL;
    ferry_stats_init(&f->stats);
    f->stats.quiet = quiet;
    ferry_view_init(&f->view);
    f->filename = strdup(filename ? filename : "");
    int rc = MPI_Comm_dup(comm, &f->comm);
    if (rc != MPI_SUCCESS || !f->filename) {
        file_free(f);
        return rc != MPI_SUCCESS ? rc : ferry_err(MPI_ERR_NO_MEM, "out of memory opening a file");
    }
    MPI_Comm_rank(f->comm, &f->rank);
    MPI_Comm_size(f->comm, &f->size);
    const char *stripped;
    f->fd.drv = ferry_driver_for(f->filename, &stripped);
    f->path = f->filename + (stripped - f->filename);

    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&f->hints);
    ferry_hints_env_read(f->comm, &w);
    ferry_hints_apply_system(&f->hints, &w);
    ferry_hints_apply_info(&f->hints, info, &w);
    ferry_hints_apply_env(&f->hints, f->filename, &w);

    const char *why = NULL;
    int local = local_err != MPI_SUCCESS ? ferry_err_class(local_err) : ferry_amode_check(amode, &why);
    char nodrv[300];
    if (local == MPI_SUCCESS && !f->fd.drv) {
        snprintf(nodrv, sizeof nodrv, "no driver for the file system of %.200s%s", f->filename,
                 f->path == f->filename ? " (ROMIO_FSTYPE_FORCE)" : "");
        local = MPI_ERR_IO, why = nodrv;
    }
    int amode_differs = 0, hints_differ = 0, names_differ = 0;
    int64_t pool = 0;
    int agreed = agree_open(f, local, ferry_hints_digest(&f->hints), &amode_differs, &hints_differ, &pool,
                            &names_differ, &w);
    if (agreed != MPI_SUCCESS || amode_differs) {
        int code = local_err != MPI_SUCCESS ? local_err
                 : local != MPI_SUCCESS ? ferry_err(local, why)
                 : amode_differs ? ferry_err(MPI_ERR_AMODE, "amode differs between the ranks of the open")
                 : ferry_err(agreed, "the arguments of the open are invalid on another rank");
        file_free(f);
        return code;
    }
    if (hints_differ)
        ferry_hints_agree(&f->hints, f->comm, &w);
    warn_rank0(f, &w);
    ferry_env_compat_announce(stderr);

    /* Create on rank 0 alone, so EXCL means "did not exist before this open"
     * and the others never race the create. */
    int flags = ferry_amode_open_flags(amode);
    int err = 0;
    if (flags & FERRY_OPEN_CREATE) {
        if (f->rank == 0) {
            err = open_fd(f, flags);
            if (err == 0)
                f->fd.drv->sync_dir(f->path);
        }
        if (f->size > 1)
            MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
        if (err == 0 && f->rank != 0)
            err = open_fd(f, flags & ~(FERRY_OPEN_CREATE | FERRY_OPEN_EXCL));
    } else {
        err = open_fd(f, flags);
    }

    int64_t initial = 0;
    if (err == 0 && (amode & MPI_MODE_APPEND)) {
        int64_t sz = 0;
        err = f->fd.drv->size(&f->fd, &sz);
        initial = sz;
    }
    f->fp = initial;
    int shrc = ferry_shfp_create(f, initial, pool);
    int cls = err ? ferry_errno_class(err) : shrc;
    int maxcls = cls;
    if (f->size > 1)
        MPI_Allreduce(&cls, &maxcls, 1, MPI_INT, MPI_MAX, f->comm);
    /* MPI: the names must reference one file, and a collective argument that
     * differs is MPI_ERR_NOT_SAME. Different spellings of one file are fine
     * (same inode everywhere); anything else fails on every rank. */
    if (names_differ && !one_file(f, maxcls == MPI_SUCCESS)) {
        if (f->fd.fd >= 0)
            f->fd.drv->close(&f->fd);
        ferry_shfp_free(f);
        file_free(f);
        return ferry_err(MPI_ERR_NOT_SAME, "the ranks of a collective open name different files");
    }
    if (maxcls != MPI_SUCCESS) {
        if (f->fd.fd >= 0)
            f->fd.drv->close(&f->fd);
        ferry_shfp_free(f);
        int code = err ? ferry_err_errno(err, f->filename)
                 : ferry_err(maxcls, "open failed on another rank");
        file_free(f);
        return code;
    }
    if (ferry_handles_add(f) < 0) {
        f->fd.drv->close(&f->fd);
        ferry_shfp_free(f);
        file_free(f);
        return ferry_err(MPI_ERR_NO_MEM, "out of memory registering a file handle");
    }
    ferry_at_finalize_first(close_unclosed);
    probe_fs(f);
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
        f->fd.drv->close(&f->fd);
        ferry_shfp_free(f);
        file_free(f);
        return cons;
    }
    ferry_strategies.open(f);
    if (!quiet)
        warn_ignored(f);
    if (f->sw.v[FERRY_SW_DISPLAY] && f->rank == 0 && !quiet) {
        ferry_hints in_effect;
        ferry_file_hints_in_effect(f, &in_effect);
        ferry_hints_display(&in_effect, f->filename, stderr);
        char fs[256];
        ferry_fs_describe(&f->fs, fs, sizeof fs);
        fprintf(stderr, "  file system %s\n", fs);
        ferry_fs_describe_consistency(&f->fs, fs, sizeof fs);
        fprintf(stderr, "  for other nodes' writes ferry %s\n", fs);
    }
    if (f->sw.v[FERRY_SW_ROMIO_PRINT] && f->rank == 0 && !quiet) {
        ferry_hints in_effect;
        ferry_file_hints_in_effect(f, &in_effect);
        ferry_hints_print_romio(&in_effect, f->filename, stdout);
    }
    ferry_stats_phase(&f->stats, FERRY_PHASE_OPEN, t0);
    *out = f;
    return MPI_SUCCESS;
}

int ferry_file_close(ferry_file *f)
{
    double t0 = ferry_now();
    int fwd = ferry_strategies.close(f); /* before the descriptor goes: forwarders write through it */
    ferry_strategies.release(f); /* notes what was learned */
    ferry_remember_close(f);
    int cons = ferry_consist_close(f);
    int err = f->fd.drv->close(&f->fd);
    if (fwd == MPI_SUCCESS)
        fwd = cons;
    int cls = err ? ferry_errno_class(err) : ferry_err_class(fwd);
    int maxcls = cls;
    ferry_shfp_free(f);
    if (f->size > 1)
        MPI_Allreduce(&cls, &maxcls, 1, MPI_INT, MPI_MAX, f->comm);
    ferry_shfp_closed(f);
    if (maxcls == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        f->fd.drv->remove(f->path);
    ferry_stats_phase(&f->stats, FERRY_PHASE_CLOSE, t0);
    ferry_trace_flush(f->stats.sys_write_bytes, f->stats.sys_writes);
    if (f->sw.v[FERRY_SW_STATS] || f->sw.v[FERRY_SW_TIMERS] || f->sw.v[FERRY_SW_JSON]) {
        char hj[8192];
        if (ferry_hints_to_json(&f->hints, hj, sizeof hj) < 0)
            hj[0] = 0;
        ferry_stats_report(&f->stats, f->comm, f->filename, hj[0] ? hj : NULL, ferry_nodes_count(f->comm), &f->sw);
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
            fprintf(stderr, "ferry: warning: %s: not closed before MPI_Finalize; ferry closes it there\n", name);
        ferry_async_drain(f);
        ferry_async_stop(f);
        int rc = ferry_file_close(f);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
                snprintf(text, sizeof text, "error %d", rc);
            fprintf(stderr, "ferry: error: rank %d: closing \"%s\" at MPI_Finalize failed: %s\n", rank, name, text);
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
