/*
 * What the file system under a path is and what it guarantees. Strategy
 * rules ask these facts (class, rmw_safe, stripe unit) instead of naming file
 * systems, the way ROMIO's per-file-system drivers carry them.
 */
#ifndef FERRY_DRIVER_FSINFO_H
#define FERRY_DRIVER_FSINFO_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FERRY_FS_UNKNOWN = 0,
    FERRY_FS_LOCAL,  /* ext4, xfs, btrfs, ...: one node's disk */
    FERRY_FS_TMPFS,  /* memory */
    FERRY_FS_NFS,
    FERRY_FS_LUSTRE,
    FERRY_FS_GPFS,
    FERRY_FS_GLUSTER,
    FERRY_FS_BEEGFS,
    FERRY_FS_CEPH,
    FERRY_FS_FUSE,   /* another FUSE file system: nothing known about its caches */
} ferry_fs_type;

typedef enum {
    FERRY_FS_CLASS_UNKNOWN = 0,
    FERRY_FS_CLASS_LOCAL,    /* one kernel's page cache: every process sees every write at once */
    FERRY_FS_CLASS_NETWORK,  /* one server (or an opaque client) per file: each request is a round trip */
    FERRY_FS_CLASS_PARALLEL, /* files striped over servers */
} ferry_fs_class;

/* How a client learns a file's new size after another client's writes. */
typedef enum {
    FERRY_SIZE_FRESH = 0, /* every stat asks the servers (or caches are coherent) */
    FERRY_SIZE_STAT,      /* a stat forced past the kernel's attribute cache (statx AT_STATX_FORCE_SYNC) */
    FERRY_SIZE_LIST,      /* only listing the directory does: the client's own layers keep the size */
} ferry_size_refresh;

/* Where stripe_unit / stripe_count came from. */
typedef enum {
    FERRY_STRIPE_NONE = 0, /* not striped, or nothing known */
    FERRY_STRIPE_FS,       /* asked the file system (xattr, statfs) */
    FERRY_STRIPE_HINT,     /* the striping_unit / striping_factor hints */
    FERRY_STRIPE_DEFAULT,  /* the file system's documented default, not confirmed */
} ferry_stripe_source;

typedef struct ferry_fs_info {
    ferry_fs_type type;
    ferry_fs_class fs_class;
    char name[32];            /* mount-table type ("fuse.glusterfs", "ext4"), or the statfs magic in hex */
    char mount[128];          /* mount point, as the mount table gives it ("" when not found) */
    unsigned long magic;      /* statfs f_type */
    int64_t stripe_unit;      /* bytes; 0: unknown or not striped */
    int stripe_count;         /* servers one file spreads over; 0: unknown */
    ferry_stripe_source stripe_src;
    char stripe_how[48];      /* the exact source ("xattr lustre.lov", "hint", ...) */
    /* fcntl byte-range locks exclude each other across processes and nodes */
    int coherent_locks;
    /* a read issued after another process's write returned (or after taking
     * a lock it released) sees that write */
    int coherent_cache;
    /* lock, read, modify, write back, unlock over bytes another process is
     * writing concurrently loses none of them: the sieving write is safe */
    int rmw_safe;
    /* the two cache answers above were given by the program, not detected */
    int cache_from_hint;
    /* What makes another client's writes visible here (docs/filesystems.md,
     * "Consistency across nodes"); all 0 where caches are coherent. */
    int keeps_pages;                 /* reads are served from pages cached before the write, across opens */
    ferry_size_refresh size_refresh; /* how a stale file size is refreshed */
    int close_behind;                /* close returns before written data reaches the servers */
    /* files up to this many bytes can be read whole from a client cache
     * that neither a lock nor a page drop reaches, only a lookup or a
     * listing of their directory (GlusterFS quick-read: max-file-size, at
     * most 1 MiB, for up to its cache-timeout); 0: none */
    int64_t whole_file_cache;
    /* clients extending a file at once leave its size too large: each adds
     * its own idea of the growth (GlusterFS shard); ferry sets it back */
    int size_race;
    /* pieces that another client's truncate removed and a later write made
     * again stay unreadable here until the client forgets the file
     * (GlusterFS shard): no client call defeats it, reads fail instead */
    int truncate_stale;
    /* a cut to a multiple of this many bytes empties the block before the
     * cut (GlusterFS shard: a 10 MiB file cut to 4 MiB reads back as 4 MiB
     * of zeros, to 8 MiB loses its second 4 MiB; the smallest shard size,
     * so that every power-of-two shard size is a multiple of it); 0: none */
    int64_t cut_unit;
    /* clients of this volume in this process's mount table (0: unknown) */
    int clients_here;
    /* every process of the job reaches the file system through one client
     * (ferry_fs_one_client): no page drops; the core asks the servers for
     * sizes only in atomic mode and before it sets a racing size back */
    int one_client;
} ferry_fs_info;

/* Fills *out for the file system holding path (the file itself if it
 * exists, else its directory). Always fills something: unknown file systems
 * get the conservative answers. Returns 0, or -errno when neither the path
 * nor its directory could be examined. */
int ferry_fs_probe(const char *path, ferry_fs_info *out);

/* 1 when the file system spreads a file over servers (or nothing is known
 * of it): where a stripe count (striping_factor) means something. */
static inline int ferry_fs_stripes(const ferry_fs_info *fs)
{
    return fs->fs_class == FERRY_FS_CLASS_PARALLEL || fs->fs_class == FERRY_FS_CLASS_UNKNOWN;
}
/* Fills the stripe facts from the hints where the file system told nothing
 * (the count only where ferry_fs_stripes). */
void ferry_fs_apply_hints(ferry_fs_info *fs, int64_t striping_unit, int striping_factor);

/* What somebody who knows the mount says of its client caches, over what
 * was detected: coherent (GlusterFS with performance.write-behind off, say)
 * or not. Read-modify-write under the byte-range locks follows, and so does
 * what ferry does to make other clients' writes visible (not the size race
 * nor the truncate fault: those are not caches). */
void ferry_fs_vouch_cache(ferry_fs_info *fs, int coherent);

/* The whole job reaches the file system through this one client (one
 * host, one mount namespace, one mount of the volume: the core knows the
 * job). Its pages are every rank's, so they are no longer dropped; what one
 * client itself needs stays: racing sizes set back (from the servers'
 * size: a cut is applied from the size the client holds), the sync before
 * close, atomic mode's growth lock, and unsafe
 * read-modify-write (GlusterFS's write-behind answers before its other
 * processes can read). */
void ferry_fs_one_client(ferry_fs_info *fs);

/* The mount whose mount point is the longest prefix of `path` (absolute,
 * symlinks resolved) in /proc/self/mountinfo text; the last of equal mount
 * points wins (it is mounted over the others). Copies its file-system type
 * and mount point. Returns 0, or -1 when no line matches. */
int ferry_mountinfo_match(const char *text, const char *path, char *fstype, size_t fcap, char *mnt,
                          size_t mcap);

/* How many clients of the file system holding `path` this mount table has:
 * the distinct devices mounted with its type from its volume (the source
 * without a "server:" part; bind mounts share a device). 0: no match. */
int ferry_mountinfo_clients(const char *text, const char *path);

/* Type and guarantees from a mount-table type name and a statfs magic
 * (either may be missing: NULL / 0). The stripe facts are left alone. */
void ferry_fs_classify(const char *fstype, unsigned long magic, ferry_fs_info *out);

const char *ferry_fs_type_name(ferry_fs_type t);
const char *ferry_fs_class_name(ferry_fs_class c);
const char *ferry_stripe_source_name(ferry_stripe_source s);
const char *ferry_size_refresh_name(ferry_size_refresh r);
/* One line: "fuse.glusterfs (glusterfs, parallel; stripe 65536 KiB x 4 (default: ...); locks coherent,
 * caches NOT coherent, read-modify-write UNSAFE)", "ext4 (local; not striped; ...)". */
void ferry_fs_describe(const ferry_fs_info *fs, char *out, size_t cap);
/* What ferry does at sync, open and close so that other clients' writes
 * show here, in a few words ("ferry drops cached pages, lists the directory
 * for sizes, syncs before close, sets racing sizes back"); "ferry does
 * nothing" where the caches are coherent; "none: the whole job has one
 * client..." and what that client still needs where ferry_fs_one_client. */
void ferry_fs_describe_consistency(const ferry_fs_info *fs, char *out, size_t cap);

#endif
