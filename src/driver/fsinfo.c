/*
 * File-system detection: the statfs magic says which kernel driver serves a
 * path (all FUSE file systems share one magic), the mount table says which
 * file system it really is ("fuse.glusterfs"). The guarantees per type are
 * what each file system documents for its default mount; docs/filesystems.md
 * has the reasons, and the GlusterFS ones were measured on the testbed.
 */
#define _GNU_SOURCE
#include "driver/fsinfo.h"
#include "driver/path.h"
#include "util/plural.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAGIC_EXT4 0xEF53UL
#define MAGIC_XFS 0x58465342UL
#define MAGIC_BTRFS 0x9123683EUL
#define MAGIC_TMPFS 0x01021994UL
#define MAGIC_RAMFS 0x858458F6UL
#define MAGIC_OVERLAY 0x794C7630UL
#define MAGIC_ZFS 0x2FC12FC1UL
#define MAGIC_F2FS 0xF2F52010UL
#define MAGIC_NFS 0x6969UL
#define MAGIC_LUSTRE 0x0BD00BD0UL
#define MAGIC_GPFS 0x47504653UL
#define MAGIC_FUSE 0x65735546UL
#define MAGIC_CEPH 0x00C36400UL
#define MAGIC_BEEGFS 0x19830326UL

/* Guarantees of each type's default mount, and where its caches are not
 * coherent, what a client must do to see another client's writes:
 * drop cached pages, refresh the size (and how), sync before close. */
typedef struct {
    ferry_fs_type type;
    ferry_fs_class cls;
    int locks, cache, rmw;
    int pages;
    ferry_size_refresh size;
    int close_behind;
    int64_t whole_file_cache;
} fs_facts;

/* GlusterFS quick-read's largest max-file-size (its option's maximum) */
#define QUICK_READ_MAX ((int64_t)1 << 20)

static const fs_facts FACTS[] = {
    /* nothing known: every remedy */
    {FERRY_FS_UNKNOWN, FERRY_FS_CLASS_UNKNOWN, 0, 0, 0, 1, FERRY_SIZE_LIST, 1, QUICK_READ_MAX},
    {FERRY_FS_LOCAL, FERRY_FS_CLASS_LOCAL, 1, 1, 1, 0, FERRY_SIZE_FRESH, 0, 0},
    {FERRY_FS_TMPFS, FERRY_FS_CLASS_LOCAL, 1, 1, 1, 0, FERRY_SIZE_FRESH, 0, 0},
    /* close-to-open caching, but taking an fcntl lock revalidates the
     * client's cache and releasing it flushes the dirty pages first;
     * between opens the pages and attributes (acregmin) stay */
    {FERRY_FS_NFS, FERRY_FS_CLASS_NETWORK, 1, 0, 1, 1, FERRY_SIZE_STAT, 0, 0},
    /* LDLM extent locks keep client caches coherent; fcntl locks need -o flock */
    {FERRY_FS_LUSTRE, FERRY_FS_CLASS_PARALLEL, 1, 1, 1, 0, FERRY_SIZE_FRESH, 0, 0},
    {FERRY_FS_GPFS, FERRY_FS_CLASS_PARALLEL, 1, 1, 1, 0, FERRY_SIZE_FRESH, 0, 0},
    /* brick-side locks are coherent; the FUSE client's caches are not
     * (measured: docs/filesystems.md): the kernel keeps pages across opens
     * (fopen-keep-cache), md-cache and the shard translator keep the size
     * until a directory listing brings it, flush-behind returns close early,
     * quick-read serves small files whole from what a lookup fetched */
    {FERRY_FS_GLUSTER, FERRY_FS_CLASS_PARALLEL, 1, 0, 0, 1, FERRY_SIZE_LIST, 1, QUICK_READ_MAX},
    /* tuneUseGlobalFileLocks=false by default: fcntl locks are node-local;
     * buffered client cache, flushed at close */
    {FERRY_FS_BEEGFS, FERRY_FS_CLASS_PARALLEL, 0, 0, 0, 1, FERRY_SIZE_STAT, 0, 0},
    /* capabilities keep caches coherent, locks go through the MDS */
    {FERRY_FS_CEPH, FERRY_FS_CLASS_PARALLEL, 1, 1, 1, 0, FERRY_SIZE_FRESH, 0, 0},
    {FERRY_FS_FUSE, FERRY_FS_CLASS_NETWORK, 0, 0, 0, 1, FERRY_SIZE_LIST, 1, QUICK_READ_MAX},
};

static const struct {
    const char *name;
    ferry_fs_type type;
} NAMES[] = {
    {"ext2", FERRY_FS_LOCAL},     {"ext3", FERRY_FS_LOCAL},    {"ext4", FERRY_FS_LOCAL},
    {"xfs", FERRY_FS_LOCAL},      {"btrfs", FERRY_FS_LOCAL},   {"zfs", FERRY_FS_LOCAL},
    {"f2fs", FERRY_FS_LOCAL},     {"jfs", FERRY_FS_LOCAL},     {"reiserfs", FERRY_FS_LOCAL},
    {"overlay", FERRY_FS_LOCAL},  {"vfat", FERRY_FS_LOCAL},    {"exfat", FERRY_FS_LOCAL},
    {"ntfs3", FERRY_FS_LOCAL},    {"bcachefs", FERRY_FS_LOCAL}, {"tmpfs", FERRY_FS_TMPFS},
    {"ramfs", FERRY_FS_TMPFS},    {"nfs", FERRY_FS_NFS},       {"nfs4", FERRY_FS_NFS},
    {"lustre", FERRY_FS_LUSTRE},  {"gpfs", FERRY_FS_GPFS},     {"fuse.glusterfs", FERRY_FS_GLUSTER},
    {"glusterfs", FERRY_FS_GLUSTER}, {"beegfs", FERRY_FS_BEEGFS}, {"ceph", FERRY_FS_CEPH},
    {"fuse.ceph-fuse", FERRY_FS_CEPH}, {"fuse.ceph", FERRY_FS_CEPH},
};

static const struct {
    unsigned long magic;
    ferry_fs_type type;
} MAGICS[] = {
    {MAGIC_EXT4, FERRY_FS_LOCAL},   {MAGIC_XFS, FERRY_FS_LOCAL},     {MAGIC_BTRFS, FERRY_FS_LOCAL},
    {MAGIC_OVERLAY, FERRY_FS_LOCAL}, {MAGIC_ZFS, FERRY_FS_LOCAL},    {MAGIC_F2FS, FERRY_FS_LOCAL},
    {MAGIC_TMPFS, FERRY_FS_TMPFS},  {MAGIC_RAMFS, FERRY_FS_TMPFS},   {MAGIC_NFS, FERRY_FS_NFS},
    {MAGIC_LUSTRE, FERRY_FS_LUSTRE}, {MAGIC_GPFS, FERRY_FS_GPFS},    {MAGIC_FUSE, FERRY_FS_FUSE},
    {MAGIC_CEPH, FERRY_FS_CEPH},    {MAGIC_BEEGFS, FERRY_FS_BEEGFS},
};

void ferry_fs_classify(const char *fstype, unsigned long magic, ferry_fs_info *out)
{
    ferry_fs_type t = FERRY_FS_UNKNOWN;
    for (size_t i = 0; fstype && i < sizeof NAMES / sizeof *NAMES; i++)
        if (!strcmp(fstype, NAMES[i].name))
            t = NAMES[i].type;
    if (t == FERRY_FS_UNKNOWN && fstype && !strncmp(fstype, "fuse.", 5))
        t = FERRY_FS_FUSE;
    for (size_t i = 0; t == FERRY_FS_UNKNOWN && i < sizeof MAGICS / sizeof *MAGICS; i++)
        if (magic == MAGICS[i].magic)
            t = MAGICS[i].type;
    const fs_facts *fa = &FACTS[0];
    for (size_t i = 0; i < sizeof FACTS / sizeof *FACTS; i++)
        if (FACTS[i].type == t)
            fa = &FACTS[i];
    out->type = t;
    out->fs_class = fa->cls;
    out->coherent_locks = fa->locks;
    out->coherent_cache = fa->cache;
    out->rmw_safe = fa->rmw;
    out->keeps_pages = fa->pages;
    out->size_refresh = fa->size;
    out->close_behind = fa->close_behind;
    out->whole_file_cache = fa->whole_file_cache;
    out->magic = magic;
    if (fstype && *fstype)
        snprintf(out->name, sizeof out->name, "%s", fstype);
    else
        snprintf(out->name, sizeof out->name, "0x%lx", magic);
}

/* Copies one space-separated mountinfo field, undoing its octal escapes
 * (\040 for a space). Returns the position after the field. */
static const char *field(const char *s, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    while (s < end && *s != ' ' && *s != '\n') {
        char c = *s++;
        if (c == '\\' && end - s >= 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
            s[2] >= '0' && s[2] <= '7') {
            c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
            s += 3;
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    if (cap)
        out[n] = 0;
    while (s < end && *s == ' ')
        s++;
    return s;
}

static size_t prefix_len(const char *mnt, const char *path)
{
    size_t m = strlen(mnt);
    if (m == 1 && mnt[0] == '/')
        return path[0] == '/' ? 1 : 0;
    if (strncmp(mnt, path, m) || (path[m] != '/' && path[m] != 0))
        return 0;
    return m;
}

/* One mountinfo line's fields that ferry reads:
 * id parent major:minor root mount-point options [optional...] - type source options */
typedef struct {
    char dev[32], point[PATH_MAX], type[64], source[PATH_MAX];
} mount_line;

/* Parses the line at `line`; returns the next line, and *ok = 1 when the
 * line had every field. */
static const char *mount_line_parse(const char *line, mount_line *m, int *ok)
{
    const char *end = strchr(line, '\n');
    if (!end)
        end = line + strlen(line);
    char skip[PATH_MAX];
    const char *s = field(line, end, skip, sizeof skip);
    s = field(s, end, skip, sizeof skip);
    s = field(s, end, m->dev, sizeof m->dev);
    s = field(s, end, skip, sizeof skip);
    s = field(s, end, m->point, sizeof m->point);
    const char *dash = s;
    while (dash < end && !(dash[0] == '-' && (dash == s || dash[-1] == ' ') && dash + 1 < end && dash[1] == ' '))
        dash++;
    *ok = m->point[0] == '/' && dash < end;
    if (*ok)
        field(field(dash + 2, end, m->type, sizeof m->type), end, m->source, sizeof m->source);
    return *end ? end + 1 : end;
}

/* The line of the mount holding path (the last of equal mount points). */
static int mount_line_of(const char *text, const char *path, mount_line *best)
{
    size_t best_len = 0;
    int found = -1;
    mount_line m;
    for (const char *line = text; line && *line;) {
        int ok;
        line = mount_line_parse(line, &m, &ok);
        size_t l = ok ? prefix_len(m.point, path) : 0;
        if (l && l >= best_len) {
            best_len = l;
            found = 0;
            *best = m;
        }
    }
    return found;
}

int ferry_mountinfo_match(const char *text, const char *path, char *fstype, size_t fcap, char *mnt,
                          size_t mcap)
{
    mount_line *m = malloc(sizeof *m);
    int found = m ? mount_line_of(text, path, m) : -1;
    if (!found) {
        snprintf(fstype, fcap, "%s", m->type);
        if (mnt && mcap)
            snprintf(mnt, mcap, "%s", m->point);
    }
    free(m);
    return found;
}

/* "server:/volume" names one volume by any of its servers: the volume counts */
static const char *export_of(const char *source)
{
    const char *colon = strchr(source, ':');
    return colon ? colon + 1 : source;
}

int ferry_mountinfo_clients(const char *text, const char *path)
{
    enum { MOST = 64 };
    mount_line *want = malloc(sizeof *want), *m = malloc(sizeof *m);
    char seen[MOST][32];
    int n = 0;
    if (want && m && mount_line_of(text, path, want) == 0)
        for (const char *line = text; *line && n < MOST;) {
            int ok, known = 0;
            line = mount_line_parse(line, m, &ok);
            if (!ok || strcmp(m->type, want->type) || strcmp(export_of(m->source), export_of(want->source)))
                continue;
            for (int i = 0; i < n && !known; i++)
                known = !strcmp(seen[i], m->dev);
            if (!known)
                snprintf(seen[n++], sizeof seen[0], "%s", m->dev);
        }
    free(want);
    free(m);
    return n;
}

/* The whole of a /proc text (its size says 0 until read). */
static char *slurp(const char *file)
{
    char *buf;
    size_t len;
    if (ferry_path_read(file, (size_t)16 << 20, &buf, &len, NULL) == 0)
        return buf;
    free(buf);
    return NULL;
}

static int64_t xattr_int(const char *path, const char *name)
{
    char v[64];
    ssize_t n = getxattr(path, name, v, sizeof v - 1);
    if (n <= 0)
        return 0;
    v[n] = 0;
    return strtoll(v, NULL, 10);
}

static void stripe_lustre(const char *path, ferry_fs_info *fs)
{
    /* struct lov_user_md_v1: magic, pattern, object id (16 B), stripe_size u32, stripe_count u16 */
    unsigned char md[256];
    ssize_t n = getxattr(path, "lustre.lov", md, sizeof md);
    if (n < 32)
        return;
    uint32_t size;
    uint16_t count;
    memcpy(&size, md + 24, sizeof size);
    memcpy(&count, md + 28, sizeof count);
    if (size) {
        fs->stripe_unit = size;
        fs->stripe_count = count;
        fs->stripe_src = FERRY_STRIPE_FS;
        snprintf(fs->stripe_how, sizeof fs->stripe_how, "xattr lustre.lov");
    }
}

static void stripe_ceph(const char *path, ferry_fs_info *fs)
{
    int64_t u = xattr_int(path, "ceph.file.layout.stripe_unit");
    if (u > 0) {
        fs->stripe_unit = u;
        fs->stripe_count = (int)xattr_int(path, "ceph.file.layout.stripe_count");
        fs->stripe_src = FERRY_STRIPE_FS;
        snprintf(fs->stripe_how, sizeof fs->stripe_how, "xattr ceph.file.layout");
    }
}

/* GlusterFS hides the shard size from clients (the shard translator filters
 * its xattrs and refuses /.shard), so only the fact of sharding and the
 * number of bricks can be learned: the brick count from the mount root's
 * glusterfs.pathinfo, and sharding from EPERM on /.shard. */
static void stripe_gluster(const char *mnt, ferry_fs_info *fs)
{
    char info[8192], p[PATH_MAX];
    ssize_t n = getxattr(mnt, "glusterfs.pathinfo", info, sizeof info - 1);
    int bricks = 0;
    if (n > 0) {
        info[n] = 0;
        for (const char *s = info; (s = strstr(s, "<POSIX(")); s++)
            bricks++;
    }
    snprintf(p, sizeof p, "%s/.shard", mnt);
    struct stat st;
    int sharded = stat(p, &st) < 0 && errno == EPERM;
    if (sharded) {
        /* shard_writev adds (end - the size this client last saw) to the
         * size; shard_truncate deletes shard files another client has
         * already resolved (xlators/features/shard, GlusterFS 10) */
        fs->size_race = 1;
        fs->truncate_stale = 1;
        fs->cut_unit = (int64_t)4 << 20; /* features.shard-block-size's least */
        fs->stripe_count = bricks;
        fs->stripe_unit = (int64_t)64 << 20; /* features.shard-block-size default */
        fs->stripe_src = FERRY_STRIPE_DEFAULT;
        snprintf(fs->stripe_how, sizeof fs->stripe_how, "shard default; %d brick%s from pathinfo", bricks,
                 ferry_s(bricks));
    } else if (bricks) {
        /* distribute: a whole file lives on one brick, a network file system per file */
        fs->fs_class = FERRY_FS_CLASS_NETWORK;
        fs->stripe_count = 1;
        fs->stripe_src = FERRY_STRIPE_FS;
        snprintf(fs->stripe_how, sizeof fs->stripe_how, "unsharded, one brick of %d", bricks);
    }
}

/* What a mount is (its type, guarantees and, for GlusterFS, its layout)
 * does not change while it stays mounted, so each process asks the mount
 * table once per mount, not at every open: the key is the device, the
 * statfs magic and the mount id, which a remount changes. Stripe layouts
 * that are a file's own (Lustre, CephFS) are still asked per file. */
typedef struct {
    uint64_t dev, mnt_id;
    unsigned long magic;
    ferry_fs_info info;
} mount_facts;
enum { MOUNTS_KEPT = 8 };
static mount_facts mounts[MOUNTS_KEPT];
static int nmounts, next_mount;
static pthread_mutex_t mounts_lock = PTHREAD_MUTEX_INITIALIZER;

static int mount_key(const char *at, uint64_t *dev, uint64_t *mnt_id)
{
    struct statx sx;
    if (statx(AT_FDCWD, at, 0, STATX_INO | STATX_MNT_ID, &sx) != 0)
        return -1;
    *dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
    *mnt_id = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
    return 0;
}

static int mount_find(uint64_t dev, uint64_t mnt_id, unsigned long magic, ferry_fs_info *out)
{
    int hit = 0;
    pthread_mutex_lock(&mounts_lock);
    for (int i = 0; i < nmounts && !hit; i++)
        if (mounts[i].dev == dev && mounts[i].mnt_id == mnt_id && mounts[i].magic == magic) {
            *out = mounts[i].info;
            hit = 1;
        }
    pthread_mutex_unlock(&mounts_lock);
    return hit;
}

static void mount_keep(uint64_t dev, uint64_t mnt_id, unsigned long magic, const ferry_fs_info *info)
{
    pthread_mutex_lock(&mounts_lock);
    mounts[next_mount] = (mount_facts){dev, mnt_id, magic, *info};
    next_mount = (next_mount + 1) % MOUNTS_KEPT;
    if (nmounts < MOUNTS_KEPT)
        nmounts++;
    pthread_mutex_unlock(&mounts_lock);
}

/* The mount's facts from the mount table and the kernel's magic. */
static void mount_probe(const char *at, unsigned long magic, ferry_fs_info *out)
{
    char real[PATH_MAX], type[64] = "", mnt[PATH_MAX] = "";
    char *text = realpath(at, real) ? slurp("/proc/self/mountinfo") : NULL;
    int clients = 0;
    if (text && ferry_mountinfo_match(text, real, type, sizeof type, mnt, sizeof mnt) == 0)
        clients = ferry_mountinfo_clients(text, real);
    free(text);
    /* a mount table out of step with the path (another namespace) loses to the kernel's answer */
    if (type[0] && magic == MAGIC_FUSE && strncmp(type, "fuse", 4))
        type[0] = 0;
    ferry_fs_classify(type[0] ? type : NULL, magic, out);
    out->clients_here = type[0] ? clients : 0;
    if (type[0] && strlen(mnt) < sizeof out->mount)
        memcpy(out->mount, mnt, strlen(mnt) + 1);
    if (out->type == FERRY_FS_GLUSTER && mnt[0])
        stripe_gluster(mnt, out);
}

int ferry_fs_probe(const char *path, ferry_fs_info *out)
{
    memset(out, 0, sizeof *out);
    char dir[PATH_MAX];
    const char *at = path;
    struct statfs sf;
    int rc = statfs(path, &sf);
    if (rc < 0 && ferry_path_dir(path, dir, sizeof dir) == 0) {
        at = dir;
        rc = statfs(dir, &sf);
    }
    int err = rc < 0 ? errno : 0;
    unsigned long magic = rc == 0 ? (unsigned long)sf.f_type : 0;
    uint64_t dev = 0, mnt_id = 0;
    int keyed = rc == 0 && mount_key(at, &dev, &mnt_id) == 0;
    if (!keyed || !mount_find(dev, mnt_id, magic, out)) {
        mount_probe(at, magic, out);
        if (keyed)
            mount_keep(dev, mnt_id, magic, out);
    }
    switch (out->type) {
    case FERRY_FS_LUSTRE: stripe_lustre(at, out); break;
    case FERRY_FS_CEPH: stripe_ceph(at, out); break;
    case FERRY_FS_GPFS:
        if (rc == 0 && sf.f_bsize > 0) {
            out->stripe_unit = (int64_t)sf.f_bsize; /* GPFS stripes whole blocks over its disks */
            out->stripe_src = FERRY_STRIPE_FS;
            snprintf(out->stripe_how, sizeof out->stripe_how, "statfs block size");
        }
        break;
    case FERRY_FS_BEEGFS:
        out->stripe_unit = (int64_t)512 << 10;
        out->stripe_count = 4;
        out->stripe_src = FERRY_STRIPE_DEFAULT;
        snprintf(out->stripe_how, sizeof out->stripe_how, "beegfs default chunk");
        break;
    default: break;
    }
    if (out->stripe_src == FERRY_STRIPE_NONE && out->fs_class == FERRY_FS_CLASS_PARALLEL) {
        out->stripe_unit = (int64_t)1 << 20;
        out->stripe_src = FERRY_STRIPE_DEFAULT;
        snprintf(out->stripe_how, sizeof out->stripe_how, "parallel class default");
    }
    return err ? -err : 0;
}

void ferry_fs_apply_hints(ferry_fs_info *fs, int64_t striping_unit, int striping_factor)
{
    if (!ferry_fs_stripes(fs))
        striping_factor = 0; /* one disk, one server: nothing to stripe over */
    if (fs->stripe_src == FERRY_STRIPE_FS && fs->stripe_unit > 0)
        return;
    if (striping_unit > 0) {
        char was[sizeof fs->stripe_how];
        memcpy(was, fs->stripe_how, sizeof was);
        fs->stripe_unit = striping_unit;
        fs->stripe_src = FERRY_STRIPE_HINT;
        /* the count may still be the file system's: keep saying where it came from */
        snprintf(fs->stripe_how, sizeof fs->stripe_how, "%s%s%.*s", "striping_unit hint", was[0] ? "; " : "",
                 (int)(sizeof fs->stripe_how - 21), was);
    }
    if (striping_factor > 0 && (fs->stripe_count <= 0 || fs->stripe_src != FERRY_STRIPE_FS)) {
        fs->stripe_count = striping_factor;
        if (striping_unit <= 0 && fs->stripe_src == FERRY_STRIPE_NONE)
            fs->stripe_src = FERRY_STRIPE_HINT;
    }
}

void ferry_fs_vouch_cache(ferry_fs_info *fs, int coherent)
{
    fs->coherent_cache = !!coherent;
    fs->rmw_safe = coherent && fs->coherent_locks;
    fs->cache_from_hint = 1;
    if (coherent) {
        fs->keeps_pages = 0;
        fs->size_refresh = FERRY_SIZE_FRESH;
        fs->close_behind = 0;
    } else if (!fs->keeps_pages) {
        /* refused on a file system detected as coherent: what any network
         * client needs, short of listing directories */
        fs->keeps_pages = 1;
        fs->size_refresh = FERRY_SIZE_STAT;
        fs->close_behind = 1;
    }
}

/* Another job's writes from another client are outside MPI's rules; they
 * show here once this client's attribute cache expires and the kernel sees
 * the new change time at open (GlusterFS: 1 s; measured with a second mount,
 * docs/filesystems.md). */
void ferry_fs_one_client(ferry_fs_info *fs)
{
    fs->one_client = 1;
    fs->keeps_pages = 0;
    fs->truncate_stale = 0;
}

const char *ferry_fs_type_name(ferry_fs_type t)
{
    switch (t) {
    case FERRY_FS_LOCAL: return "local";
    case FERRY_FS_TMPFS: return "tmpfs";
    case FERRY_FS_NFS: return "nfs";
    case FERRY_FS_LUSTRE: return "lustre";
    case FERRY_FS_GPFS: return "gpfs";
    case FERRY_FS_GLUSTER: return "glusterfs";
    case FERRY_FS_BEEGFS: return "beegfs";
    case FERRY_FS_CEPH: return "cephfs";
    case FERRY_FS_FUSE: return "fuse";
    default: return "unknown";
    }
}

const char *ferry_fs_class_name(ferry_fs_class c)
{
    switch (c) {
    case FERRY_FS_CLASS_LOCAL: return "local";
    case FERRY_FS_CLASS_NETWORK: return "network";
    case FERRY_FS_CLASS_PARALLEL: return "parallel";
    default: return "unknown";
    }
}

const char *ferry_size_refresh_name(ferry_size_refresh r)
{
    switch (r) {
    case FERRY_SIZE_STAT: return "stat";
    case FERRY_SIZE_LIST: return "list";
    default: return "fresh";
    }
}

const char *ferry_stripe_source_name(ferry_stripe_source s)
{
    switch (s) {
    case FERRY_STRIPE_FS: return "file system";
    case FERRY_STRIPE_HINT: return "hint";
    case FERRY_STRIPE_DEFAULT: return "default";
    default: return "none";
    }
}

void ferry_fs_describe(const ferry_fs_info *fs, char *out, size_t cap)
{
    char stripe[96] = "not striped";
    if (fs->stripe_unit > 0 || fs->stripe_count > 0)
        snprintf(stripe, sizeof stripe, "stripe %lld KiB x %d (%s: %s)", (long long)(fs->stripe_unit >> 10),
                 fs->stripe_count, ferry_stripe_source_name(fs->stripe_src), fs->stripe_how);
    /* the type only where the name and the class do not say it already:
     * "ext4 (local; ...)", "tmpfs (local; ...)", "fuse.glusterfs (glusterfs, parallel; ...)" */
    const char *type = ferry_fs_type_name(fs->type), *cls = ferry_fs_class_name(fs->fs_class);
    char kind[64];
    if (strcmp(type, fs->name) && strcmp(type, cls))
        snprintf(kind, sizeof kind, "%s, %s", type, cls);
    else
        snprintf(kind, sizeof kind, "%s", cls);
    snprintf(out, cap, "%s (%s; %s; locks %s, caches %s%s, read-modify-write %s)", fs->name, kind, stripe,
             fs->coherent_locks ? "coherent" : "NOT coherent", fs->coherent_cache ? "coherent" : "NOT coherent",
             fs->cache_from_hint ? " (ferry_cache_coherent hint)" : "", fs->rmw_safe ? "safe" : "UNSAFE");
}

void ferry_fs_describe_consistency(const ferry_fs_info *fs, char *out, size_t cap)
{
    /* one client: sizes are refreshed only under atomic mode's growth lock */
    const char *sizes = fs->size_refresh == FERRY_SIZE_LIST   ? "lists the directory for sizes"
                        : fs->size_refresh == FERRY_SIZE_STAT ? "forces a stat for sizes"
                                                              : "";
    char acts[256];
    snprintf(acts, sizeof acts, "%s%s%s%s%s%s%s%s", fs->keeps_pages ? "drops cached pages, " : "", sizes,
             sizes[0] && fs->one_client ? " in atomic mode" : "", sizes[0] ? ", " : "",
             fs->whole_file_cache && !fs->one_client ? "lists the directory of files small enough to be cached whole, " : "",
             fs->close_behind ? "syncs before close, " : "", fs->size_race ? "sets racing sizes back, " : "",
             fs->truncate_stale ? "cannot: pieces re-created after another node's truncate (reads fail)" : "");
    size_t n = strlen(acts);
    if (n >= 2 && !strcmp(acts + n - 2, ", "))
        acts[n - 2] = 0;
    if (fs->one_client)
        snprintf(out, cap, "none: the whole job has one client, this host's mount%s%s", acts[0] ? "; ferry still " : "",
                 acts);
    else
        snprintf(out, cap, "%s%s", acts[0] ? "ferry " : "ferry does nothing (caches coherent)", acts);
}
