/* File-system detection: mountinfo matching, classification, hints. */
#include "driver/fsinfo.h"
#include "unit/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *MOUNTINFO =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "23 22 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
    "30 22 0:26 / /tmp rw shared:5 - tmpfs tmpfs rw,size=100k\n"
    "31 22 0:27 / /scratch rw - lustre 10.0.0.1@tcp:/fs rw,flock\n"
    "32 31 0:28 / /scratch/sub rw - xfs /dev/sdb rw\n"
    "33 22 0:39 / /mnt/ferry-pfs/shard rw,relatime - fuse.glusterfs vm:/ferry-shard rw,user_id=0\n"
    "34 22 0:40 / /home rw master:3 shared:7 - nfs4 srv:/home rw,vers=4.2\n"
    "35 22 0:41 / /mnt/with\\040space rw - beegfs beegfs_nodev rw\n"
    "36 22 0:42 / /gpfs rw - gpfs gpfs0 rw\n"
    "37 22 0:43 / /ceph rw - ceph 1.2.3.4:/ rw\n"
    /* mounted over /tmp: the later line wins */
    "38 22 0:44 / /tmp rw - xfs /dev/sdc rw\n"
    "39 22 0:45 / /fuse rw - fuse.sshfs host: rw\n"
    "40 22 0:46 / /scratchy rw - btrfs /dev/sdd rw"; /* no final newline */

static void match(const char *path, const char *want_type, const char *want_mnt)
{
    char t[64] = "", m[256] = "";
    int rc = ferry_mountinfo_match(MOUNTINFO, path, t, sizeof t, m, sizeof m);
    CHECK_MSG(rc == 0, "%s", path);
    CHECK_STR(t, want_type);
    CHECK_STR(m, want_mnt);
}

static ferry_fs_info classify(const char *name, unsigned long magic)
{
    ferry_fs_info fs = {0};
    ferry_fs_classify(name, magic, &fs);
    return fs;
}

int main(void)
{
    match("/", "ext4", "/");
    match("/usr/lib/x", "ext4", "/");
    match("/tmp/a", "xfs", "/tmp");
    match("/tmpx/a", "ext4", "/");             /* a prefix must end at a path component */
    match("/scratch", "lustre", "/scratch");
    match("/scratch/f", "lustre", "/scratch");
    match("/scratch/sub/f", "xfs", "/scratch/sub");
    match("/scratch/subway", "lustre", "/scratch");
    match("/scratchy/f", "btrfs", "/scratchy");
    match("/mnt/ferry-pfs/shard/out.dat", "fuse.glusterfs", "/mnt/ferry-pfs/shard");
    match("/home/u/f", "nfs4", "/home");       /* optional fields before the separator */
    match("/mnt/with space/f", "beegfs", "/mnt/with space");
    /* clients of a path's volume: devices mounted from its source, whatever
     * the server is called; a bind mount shares its device */
    static const char *TWO =
        "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
        "33 22 0:39 / /mnt/a rw - fuse.glusterfs vm:/ferry-shard rw\n"
        "34 22 0:39 /sub /mnt/bind rw - fuse.glusterfs vm:/ferry-shard rw\n"
        "35 22 0:50 / /mnt/b rw - fuse.glusterfs localhost:/ferry-shard rw\n"
        "36 22 0:51 / /mnt/c rw - fuse.glusterfs vm:/ferry-dist rw\n";
    CHECK(ferry_mountinfo_clients(MOUNTINFO, "/mnt/ferry-pfs/shard/x") == 1);
    CHECK(ferry_mountinfo_clients(MOUNTINFO, "/tmp/x") == 1);
    CHECK(ferry_mountinfo_clients(TWO, "/mnt/a/x") == 2);
    CHECK(ferry_mountinfo_clients(TWO, "/mnt/bind/x") == 2);
    CHECK(ferry_mountinfo_clients(TWO, "/mnt/c/x") == 1);
    CHECK(ferry_mountinfo_clients("", "/x") == 0);

    char t[64], m[64];
    CHECK(ferry_mountinfo_match("", "/x", t, sizeof t, m, sizeof m) == -1);
    CHECK(ferry_mountinfo_match("garbage line\n\n", "/x", t, sizeof t, m, sizeof m) == -1);

    ferry_fs_info fs = classify("ext4", 0xEF53);
    CHECK(fs.type == FERRY_FS_LOCAL && fs.fs_class == FERRY_FS_CLASS_LOCAL && fs.rmw_safe && fs.coherent_cache);
    fs = classify("tmpfs", 0);
    CHECK(fs.type == FERRY_FS_TMPFS && fs.fs_class == FERRY_FS_CLASS_LOCAL && fs.rmw_safe);
    fs = classify("fuse.glusterfs", 0x65735546);
    CHECK(fs.type == FERRY_FS_GLUSTER && fs.fs_class == FERRY_FS_CLASS_PARALLEL);
    CHECK(fs.coherent_locks && !fs.coherent_cache && !fs.rmw_safe);
    CHECK_STR(fs.name, "fuse.glusterfs");
    fs = classify("nfs4", 0x6969);
    CHECK(fs.type == FERRY_FS_NFS && fs.fs_class == FERRY_FS_CLASS_NETWORK && fs.coherent_locks && fs.rmw_safe &&
          !fs.coherent_cache);
    fs = classify("lustre", 0);
    CHECK(fs.type == FERRY_FS_LUSTRE && fs.fs_class == FERRY_FS_CLASS_PARALLEL && fs.rmw_safe);
    fs = classify("gpfs", 0);
    CHECK(fs.type == FERRY_FS_GPFS && fs.fs_class == FERRY_FS_CLASS_PARALLEL);
    fs = classify("beegfs", 0);
    CHECK(fs.type == FERRY_FS_BEEGFS && !fs.coherent_locks && !fs.rmw_safe);
    fs = classify("ceph", 0);
    CHECK(fs.type == FERRY_FS_CEPH && fs.fs_class == FERRY_FS_CLASS_PARALLEL);
    fs = classify("fuse.sshfs", 0x65735546);
    CHECK(fs.type == FERRY_FS_FUSE && !fs.rmw_safe);
    /* no mount table: the magic alone */
    fs = classify(NULL, 0x0BD00BD0);
    CHECK(fs.type == FERRY_FS_LUSTRE);
    CHECK_STR(fs.name, "0xbd00bd0");
    fs = classify(NULL, 0x01021994);
    CHECK(fs.type == FERRY_FS_TMPFS);
    /* nothing known: every guarantee refused */
    fs = classify("weirdfs", 0x1234);
    CHECK(fs.type == FERRY_FS_UNKNOWN && fs.fs_class == FERRY_FS_CLASS_UNKNOWN && !fs.rmw_safe &&
          !fs.coherent_locks);

    char d0[256];
    /* hints fill what the file system did not tell, never override it */
    fs = classify("fuse.glusterfs", 0);
    fs.stripe_unit = 64 << 20;
    fs.stripe_count = 4;
    fs.stripe_src = FERRY_STRIPE_DEFAULT;
    ferry_fs_apply_hints(&fs, 4 << 20, 0);
    CHECK(fs.stripe_unit == 4 << 20 && fs.stripe_src == FERRY_STRIPE_HINT && fs.stripe_count == 4);
    fs = classify("lustre", 0);
    fs.stripe_unit = 1 << 20;
    fs.stripe_count = 8;
    fs.stripe_src = FERRY_STRIPE_FS;
    ferry_fs_apply_hints(&fs, 4 << 20, 2);
    CHECK(fs.stripe_unit == 1 << 20 && fs.stripe_count == 8 && fs.stripe_src == FERRY_STRIPE_FS);
    fs = classify("ext4", 0);
    ferry_fs_apply_hints(&fs, 0, 0);
    CHECK(fs.stripe_unit == 0 && fs.stripe_src == FERRY_STRIPE_NONE);

    /* the cache hint overrides detection both ways, and read-modify-write
     * follows it only where the locks are coherent too */
    fs = classify("fuse.glusterfs", 0);
    ferry_fs_vouch_cache(&fs, 1);
    CHECK(fs.coherent_cache && fs.rmw_safe && fs.cache_from_hint);
    ferry_fs_describe(&fs, d0, sizeof d0);
    CHECK(strstr(d0, "caches coherent (ferry_cache_coherent hint)") != NULL);
    fs = classify("beegfs", 0);
    ferry_fs_vouch_cache(&fs, 1);
    CHECK(fs.coherent_cache && !fs.rmw_safe);
    fs = classify("ext4", 0);
    ferry_fs_vouch_cache(&fs, 0);
    CHECK(!fs.coherent_cache && !fs.rmw_safe && fs.cache_from_hint);
    fs = classify("ext4", 0);
    CHECK(!fs.cache_from_hint);

    /* one client for the whole job: the remedies for other clients' pages
     * go; what one client needs (its own racing sizes, flush-behind, unsafe
     * read-modify-write) stays */
    fs = classify("fuse.glusterfs", 0x65735546);
    CHECK(fs.keeps_pages && fs.close_behind);
    ferry_fs_one_client(&fs);
    CHECK(fs.one_client && !fs.keeps_pages && !fs.truncate_stale && !fs.coherent_cache && !fs.rmw_safe);
    ferry_fs_describe_consistency(&fs, d0, sizeof d0);
    CHECK(strstr(d0, "one client") && !strstr(d0, "drops cached pages") && strstr(d0, "; ferry still ") && strstr(d0, "syncs before close"));

    /* a live probe of this machine's /tmp and of a path that does not exist yet */
    CHECK(ferry_fs_probe("/tmp", &fs) == 0);
    CHECK(fs.type != FERRY_FS_UNKNOWN);
    CHECK(ferry_fs_probe("/tmp/ferry-test-fsinfo-does-not-exist", &fs) == 0);
    CHECK(fs.name[0] != 0);
    char d[256];
    ferry_fs_describe(&fs, d, sizeof d);
    printf("/tmp: %s\n", d);
    /* the description names the type only where the name and the class do
     * not say it ("ext4 (local, local; ..." before) */
    ferry_fs_info k = classify("ext4", 0);
    ferry_fs_describe(&k, d, sizeof d);
    CHECK_MSG(!strncmp(d, "ext4 (local; not striped;", 25), "%s", d);
    k = classify("tmpfs", 0);
    ferry_fs_describe(&k, d, sizeof d);
    CHECK_MSG(!strncmp(d, "tmpfs (local; ", 14), "%s", d);
    k = classify("fuse.glusterfs", 0);
    ferry_fs_describe(&k, d, sizeof d);
    CHECK_MSG(!strncmp(d, "fuse.glusterfs (glusterfs, parallel; ", 37), "%s", d);
    k = classify("nfs4", 0);
    ferry_fs_describe(&k, d, sizeof d);
    CHECK_MSG(!strncmp(d, "nfs4 (nfs, network; ", 20), "%s", d);
    /* the mount's facts are kept per mount: a second probe answers the
     * same, and another mount (memory, where there is one) its own */
    ferry_fs_info again, shm;
    CHECK(ferry_fs_probe("/tmp", &fs) == 0 && ferry_fs_probe("/tmp", &again) == 0);
    CHECK(!memcmp(&fs, &again, sizeof fs));
    struct stat st_tmp, st_shm;
    if (stat("/dev/shm", &st_shm) == 0 && stat("/tmp", &st_tmp) == 0 && st_shm.st_dev != st_tmp.st_dev) {
        CHECK(ferry_fs_probe("/dev/shm", &shm) == 0);
        CHECK(shm.type == FERRY_FS_TMPFS && strcmp(shm.name, fs.name) != 0);
        CHECK(ferry_fs_probe("/tmp", &again) == 0 && !memcmp(&fs, &again, sizeof fs));
    }
    const char *pfs = getenv("FERRY_PFS_SHARD");
    if (pfs) {
        CHECK(ferry_fs_probe(pfs, &fs) == 0);
        CHECK(fs.type == FERRY_FS_GLUSTER && fs.fs_class == FERRY_FS_CLASS_PARALLEL && !fs.rmw_safe);
        CHECK(fs.stripe_count == 4);
        ferry_fs_describe(&fs, d, sizeof d);
        printf("%s: %s\n", pfs, d);
    }
    return check_failures ? 1 : 0;
}
