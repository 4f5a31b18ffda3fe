/*
 * Bad input gets a clear standard error class, never a crash, and leaves the
 * file usable: NULL buffers with a nonzero count, negative counts, offsets
 * and sizes, invalid amodes, datatypes and views, closed, stale and forged
 * file handles, datarep errors, absurd hint values (warned and ignored), file
 * names that are too long or lead through missing directories or files.
 *
 * Every rank runs every case. A collective call with bad arguments on one
 * rank only must fail on all ranks with one class and must not hang.
 * Forged handles crash the native MPI-IOs, so those cases run only under a
 * library that validates handles (ferry); the rest run anywhere.
 */
#include "mpi/tutil.h"

#include <fcntl.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

static char dir[512];

/* c is one of the listed classes (terminated by -1) */
static int one_of(int c, ...)
{
    va_list ap;
    va_start(ap, c);
    int ok = 0;
    for (int k = va_arg(ap, int); k != -1; k = va_arg(ap, int))
        ok |= k == c;
    va_end(ap);
    return ok;
}

static int same_everywhere(int cls)
{
    int mn = cls, mx = cls;
    MPI_Allreduce(&cls, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

#define CHECK(key, rc, ...)                                                                 \
    do {                                                                                    \
        int c_ = t_class(rc);                                                               \
        t_report("%s %s", key, t_class_name(rc));                                           \
        EXPECT(one_of(c_, __VA_ARGS__, -1), "%s: unexpected class %s", key, t_class_name(rc)); \
    } while (0)

static int open_file(const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return MPI_File_open(MPI_COMM_WORLD, p, amode, info, fh);
}

static int open_class(const char *path, int amode)
{
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    return rc;
}

static void bad_opens(void)
{
    char p[9000];
    snprintf(p, sizeof p, "%s/bad_amode.dat", dir);
    CHECK("amode_none", open_class(p, MPI_MODE_CREATE), MPI_ERR_AMODE);
    CHECK("amode_rdonly_wronly", open_class(p, MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_CREATE), MPI_ERR_AMODE);
    CHECK("amode_rdonly_create", open_class(p, MPI_MODE_RDONLY | MPI_MODE_CREATE), MPI_ERR_AMODE);
    CHECK("amode_rdonly_excl", open_class(p, MPI_MODE_RDONLY | MPI_MODE_EXCL), MPI_ERR_AMODE);
    CHECK("amode_rdwr_sequential", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL),
          MPI_ERR_AMODE);
    CHECK("amode_unknown_bit", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE | (1 << 29)), MPI_ERR_AMODE);
    CHECK("amode_negative", open_class(p, -1), MPI_ERR_AMODE);
    /* amode valid everywhere but different on rank 0: erroneous, must not hang */
    int rc = open_class(p, t_rank == 0 ? MPI_MODE_RDWR | MPI_MODE_CREATE : MPI_MODE_WRONLY | MPI_MODE_CREATE);
    if (t_size > 1) {
        EXPECT(same_everywhere(t_class(rc)), "amode differing between ranks: classes differ");
        CHECK("amode_differs", rc, MPI_ERR_AMODE, MPI_ERR_ARG, MPI_ERR_NOT_SAME);
    }
    /* a bad amode on one rank only fails the open everywhere */
    rc = open_class(p, t_rank == t_size - 1 ? MPI_MODE_RDONLY | MPI_MODE_CREATE : MPI_MODE_RDWR | MPI_MODE_CREATE);
    EXPECT(same_everywhere(t_class(rc)), "bad amode on one rank: classes differ");
    EXPECT(rc != MPI_SUCCESS, "bad amode on one rank succeeded");

    /* names */
    size_t dl = strlen(dir);
    memcpy(p, dir, dl);
    p[dl] = '/';
    memset(p + dl + 1, 'n', 300);
    strcpy(p + dl + 301, ".dat");
    CHECK("name_component_too_long", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_BAD_FILE,
          MPI_ERR_IO, MPI_ERR_ARG);
    memset(p + dl + 1, 'm', 8000);
    strcpy(p + dl + 8001, ".dat");
    for (size_t i = dl + 100; i < dl + 8000; i += 100)
        p[i] = '/';
    CHECK("name_path_too_long", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_BAD_FILE, MPI_ERR_IO,
          MPI_ERR_ARG, MPI_ERR_NO_SUCH_FILE);
    snprintf(p, sizeof p, "%s/no-such-dir/deeper/x.dat", dir);
    CHECK("name_missing_dir", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_NO_SUCH_FILE);
    snprintf(p, sizeof p, "%s/no-such-file.dat", dir);
    CHECK("name_missing_file", open_class(p, MPI_MODE_RDONLY), MPI_ERR_NO_SUCH_FILE);
    /* a regular file used as a directory */
    char f[700];
    snprintf(f, sizeof f, "%s/plain.dat", dir);
    if (t_rank == 0) {
        FILE *fp = fopen(f, "w");
        if (fp)
            fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(p, sizeof p, "%s/plain.dat/x.dat", dir);
    CHECK("name_through_file", open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_BAD_FILE,
          MPI_ERR_NO_SUCH_FILE, MPI_ERR_IO);
    /* a directory opened for writing */
    CHECK("name_is_dir_rdwr", open_class(dir, MPI_MODE_RDWR), MPI_ERR_BAD_FILE, MPI_ERR_IO, MPI_ERR_ACCESS);
    CHECK("name_empty", open_class("", MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_BAD_FILE, MPI_ERR_NO_SUCH_FILE,
          MPI_ERR_IO, MPI_ERR_ARG);
    CHECK("name_null", open_class(NULL, MPI_MODE_RDWR | MPI_MODE_CREATE), MPI_ERR_BAD_FILE, MPI_ERR_ARG);
    /* one rank names another file: erroneous, must not hang */
    snprintf(p, sizeof p, "%s/no-such-dir-%d/x.dat", dir, t_rank == 0);
    rc = open_class(p, MPI_MODE_RDWR | MPI_MODE_CREATE);
    EXPECT(rc != MPI_SUCCESS, "open of a missing directory succeeded");
    /* each rank names its own existing file: MPI-4.0 14.2.1 wants names
     * that reference one file, and a collective argument that differs is
     * MPI_ERR_NOT_SAME (ROMIO says MPI_ERR_IO) */
    snprintf(p, sizeof p, "%s/own-%d.dat", dir, t_rank);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    MPI_Barrier(MPI_COMM_WORLD);
    rc = open_class(p, MPI_MODE_RDWR);
    CHECK("names_differ", rc, MPI_ERR_NOT_SAME, MPI_ERR_IO);
    EXPECT_STD(t_class(rc) == MPI_ERR_NOT_SAME, "different files: %s", t_class_name(rc));
    /* ... and one file spelt differently on each rank is fine */
    snprintf(p, sizeof p, t_rank ? "%s/./own-0.dat" : "%s/own-0.dat", dir);
    CHECK("names_spelt_differently", open_class(p, MPI_MODE_RDWR), MPI_SUCCESS);
    snprintf(p, sizeof p, "%s/bad_amode.dat", dir);
    MPI_File fh;
    rc = MPI_File_open(MPI_COMM_NULL, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK("open_comm_null", rc, MPI_ERR_COMM);
    if (t_under_ferry()) { /* Open MPI's own binding dereferences the NULL handle pointer */
        rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, NULL);
        CHECK("open_null_handle_ptr", rc, MPI_ERR_ARG, MPI_ERR_FILE);
    }
    /* a directory opened read-only may open; reading it must fail cleanly */
    fh = MPI_FILE_NULL;
    rc = MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS) {
        char b[16];
        MPI_Status st;
        rc = MPI_File_read_at(fh, 0, b, 16, MPI_BYTE, &st);
        CHECK("read_dir", rc, MPI_ERR_BAD_FILE, MPI_ERR_IO, MPI_ERR_ACCESS);
        rc = MPI_File_read_at_all(fh, 0, b, 16, MPI_BYTE, &st);
        EXPECT(same_everywhere(t_class(rc)), "collective read of a directory: classes differ");
        MPI_File_close(&fh);
    }
    CHECK("delete_missing", MPI_File_delete(p[0] ? "/no/such/file/at/all" : p, MPI_INFO_NULL),
          MPI_ERR_NO_SUCH_FILE, MPI_ERR_IO);
}

static void bad_data_calls(void)
{
    MPI_File fh;
    int rc = open_file("bad_calls.dat", MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    char buf[256];
    memset(buf, 'x', sizeof buf);
    MPI_Status st;
    MPI_Request rq = MPI_REQUEST_NULL;
    /* NULL buffers with a nonzero count */
    CHECK("null_buf_write_at", MPI_File_write_at(fh, 0, NULL, 10, MPI_BYTE, &st), MPI_ERR_BUFFER, MPI_ERR_ARG);
    CHECK("null_buf_read_at", MPI_File_read_at(fh, 0, NULL, 10, MPI_BYTE, &st), MPI_ERR_BUFFER, MPI_ERR_ARG);
    CHECK("null_buf_write", MPI_File_write(fh, NULL, 10, MPI_INT, &st), MPI_ERR_BUFFER, MPI_ERR_ARG);
    CHECK("null_buf_write_all", MPI_File_write_all(fh, NULL, 10, MPI_INT, &st), MPI_ERR_BUFFER, MPI_ERR_ARG);
    CHECK("null_buf_read_all", MPI_File_read_at_all(fh, 0, NULL, 10, MPI_INT, &st), MPI_ERR_BUFFER,
          MPI_ERR_ARG);
    rc = MPI_File_iwrite_at(fh, 0, NULL, 10, MPI_BYTE, &rq);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&rq, &st);
    CHECK("null_buf_iwrite_at", rc, MPI_ERR_BUFFER, MPI_ERR_ARG);
    CHECK("null_buf_write_shared", MPI_File_write_shared(fh, NULL, 10, MPI_BYTE, &st), MPI_ERR_BUFFER,
          MPI_ERR_ARG);
    /* NULL with count 0 is fine */
    CHECK("null_buf_count0", MPI_File_write_at(fh, 0, NULL, 0, MPI_BYTE, &st), MPI_SUCCESS);
    /* NULL buffer on one rank of a collective */
    rc = MPI_File_write_at_all(fh, 0, t_rank == 0 ? NULL : buf, 10, MPI_BYTE, &st);
    EXPECT(rc != MPI_SUCCESS && same_everywhere(t_class(rc)), "NULL buffer on rank 0 of a collective: %s",
           t_class_name(rc));

    /* negative counts, offsets */
    CHECK("neg_count_write_at", MPI_File_write_at(fh, 0, buf, -1, MPI_BYTE, &st), MPI_ERR_COUNT, MPI_ERR_ARG);
    CHECK("neg_count_read", MPI_File_read(fh, buf, -5, MPI_BYTE, &st), MPI_ERR_COUNT, MPI_ERR_ARG);
    CHECK("neg_count_min", MPI_File_write_at(fh, 0, buf, INT_MIN, MPI_BYTE, &st), MPI_ERR_COUNT, MPI_ERR_ARG);
    CHECK("neg_offset_write_at", MPI_File_write_at(fh, -1, buf, 1, MPI_BYTE, &st), MPI_ERR_ARG);
    CHECK("neg_offset_read_at", MPI_File_read_at(fh, -4096, buf, 1, MPI_BYTE, &st), MPI_ERR_ARG);
    rc = MPI_File_write_at_all(fh, t_rank == t_size - 1 ? -1 : 0, buf, 1, MPI_BYTE, &st);
    if (t_under_ferry()) /* ROMIO leaves the others waiting for the failed rank */
        EXPECT(rc != MPI_SUCCESS && same_everywhere(t_class(rc)), "negative offset on one rank: %s",
               t_class_name(rc));
    rc = MPI_File_read_at_all(fh, 0, buf, t_rank == 0 ? -3 : 3, MPI_BYTE, &st);
    if (t_under_ferry())
        EXPECT(rc != MPI_SUCCESS && same_everywhere(t_class(rc)), "negative count on one rank: %s",
               t_class_name(rc));
    CHECK("seek_negative", MPI_File_seek(fh, -10, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK("seek_bad_whence", MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    CHECK("seek_cur_negative", MPI_File_seek(fh, -1000000, MPI_SEEK_CUR), MPI_ERR_ARG);
    CHECK("set_size_negative", MPI_File_set_size(fh, -1), MPI_ERR_ARG);
    CHECK("preallocate_negative", MPI_File_preallocate(fh, -1), MPI_ERR_ARG);
    rc = MPI_File_set_size(fh, t_rank == 0 ? 100 : 200);
    if (t_size > 1)
        EXPECT(same_everywhere(t_class(rc)), "set_size differing between ranks: classes differ");
    /* an offset past any file system's limit, and one whose byte offset overflows */
    rc = MPI_File_write_at(fh, (MPI_Offset)1 << 62, buf, 1, MPI_BYTE, &st);
    CHECK("offset_2_62", rc, MPI_ERR_ARG, MPI_ERR_IO, MPI_ERR_NO_SPACE);
    MPI_Datatype big;
    MPI_Type_contiguous(1 << 30, MPI_BYTE, &big);
    MPI_Type_commit(&big);
    rc = MPI_File_set_view(fh, 0, big, big, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "view of 1 GiB etypes");
    rc = MPI_File_read_at(fh, (MPI_Offset)1 << 40, buf, 0, MPI_BYTE, &st);
    rc = MPI_File_write_at(fh, (MPI_Offset)1 << 40, buf, 0, big, &st);
    CHECK("offset_overflow_count0", rc, MPI_SUCCESS, MPI_ERR_ARG);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    /* count times datatype size overflows 64 bits: rejected before any byte moves */
    MPI_Datatype huge;
    MPI_Type_contiguous(1 << 30, big, &huge); /* 2^60 bytes */
    MPI_Type_commit(&huge);
    rc = MPI_File_write_at(fh, 0, buf, 64, huge, &st);
    CHECK("count_size_overflow", rc, MPI_ERR_COUNT, MPI_ERR_ARG, MPI_ERR_TYPE, MPI_ERR_IO);
    MPI_Type_free(&huge);
    MPI_Type_free(&big);

    /* datatypes */
    CHECK("type_null", MPI_File_write_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
    MPI_Datatype unc;
    MPI_Type_contiguous(4, MPI_BYTE, &unc);
    CHECK("type_uncommitted", MPI_File_write_at(fh, 0, buf, 1, unc, &st), MPI_ERR_TYPE);
    MPI_Type_free(&unc);
    rc = MPI_File_write_at_all(fh, 0, buf, 1, t_rank == 0 ? MPI_DATATYPE_NULL : MPI_BYTE, &st);
    EXPECT(rc != MPI_SUCCESS && same_everywhere(t_class(rc)), "null type on rank 0 of a collective: %s",
           t_class_name(rc));
    /* a buffer type that is not a whole number of etypes */
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "int view");
    CHECK("partial_etype", MPI_File_write_at(fh, 0, buf, 3, MPI_BYTE, &st), MPI_ERR_IO, MPI_ERR_TYPE,
          MPI_ERR_ARG);
    /* views */
    CHECK("view_null_etype", MPI_File_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_BYTE, "native", MPI_INFO_NULL),
          MPI_ERR_TYPE, MPI_ERR_ARG);
    CHECK("view_neg_disp", MPI_File_set_view(fh, -8, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_ARG);
    CHECK("view_bad_datarep", MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL),
          MPI_ERR_UNSUPPORTED_DATAREP);
    char longrep[4000];
    memset(longrep, 'r', sizeof longrep - 1);
    longrep[sizeof longrep - 1] = 0;
    CHECK("view_long_datarep", MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, longrep, MPI_INFO_NULL),
          MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG);
    if (t_under_ferry()) /* Open MPI's binding dereferences the NULL name */
        CHECK("view_null_datarep", MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, NULL, MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG);
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, t_rank == 0 ? "native" : "internal", MPI_INFO_NULL);
    if (t_size > 1)
        EXPECT(same_everywhere(t_class(rc)), "datarep differing between ranks: classes differ");
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "a good view after bad ones");
    /* datarep registration */
    CHECK("register_native", MPI_Register_datarep("native", NULL, NULL, NULL, NULL), MPI_ERR_DUP_DATAREP,
          MPI_ERR_ARG);
    char longname[3 * MPI_MAX_DATAREP_STRING];
    memset(longname, 'q', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    if (t_under_ferry()) /* ROMIO registers the extent function unchecked */
        CHECK("register_long_name", MPI_Register_datarep(longname, NULL, NULL, NULL, NULL), MPI_ERR_ARG,
              MPI_ERR_DUP_DATAREP, MPI_ERR_UNSUPPORTED_DATAREP);

    /* split collectives out of order */
    CHECK("split_end_without_begin", MPI_File_write_all_end(fh, buf, &st), MPI_ERR_OTHER, MPI_ERR_REQUEST,
          MPI_ERR_ARG, MPI_ERR_IO);
    rc = MPI_File_write_at_all_begin(fh, 0, buf, 4, MPI_BYTE);
    EXPECT(rc == MPI_SUCCESS, "split begin");
    CHECK("split_second_begin", MPI_File_read_at_all_begin(fh, 0, buf, 4, MPI_BYTE), MPI_ERR_OTHER,
          MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_ERR_IO);
    CHECK("split_wrong_end", MPI_File_read_at_all_end(fh, buf, &st), MPI_ERR_OTHER, MPI_ERR_REQUEST,
          MPI_ERR_ARG, MPI_ERR_IO);
    rc = MPI_File_write_at_all_end(fh, buf, &st);
    EXPECT(rc == MPI_SUCCESS, "split end");

    /* NULL output arguments */
    if (t_under_ferry()) { /* the native bindings dereference them */
        CHECK("get_size_null", MPI_File_get_size(fh, NULL), MPI_ERR_ARG);
        CHECK("get_position_null", MPI_File_get_position(fh, NULL), MPI_ERR_ARG);
        CHECK("get_amode_null", MPI_File_get_amode(fh, NULL), MPI_ERR_ARG);
        CHECK("iwrite_null_request", MPI_File_iwrite_at(fh, 0, buf, 1, MPI_BYTE, NULL), MPI_ERR_REQUEST,
              MPI_ERR_ARG);
    }

    /* read-only and write-only, sequential */
    MPI_File_close(&fh);
    rc = open_file("bad_calls.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK("write_on_rdonly", MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, &st), MPI_ERR_READ_ONLY, MPI_ERR_ACCESS);
    CHECK("set_size_on_rdonly", MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY, MPI_ERR_ACCESS);
    MPI_File_close(&fh);
    rc = open_file("bad_seq.dat", MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "sequential open");
    CHECK("seq_write_at", MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
          MPI_ERR_AMODE, MPI_ERR_ARG);
    CHECK("seq_seek", MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_AMODE,
          MPI_ERR_ARG);
    /* MPI-4.0 14.6 (sequential files) makes only seek_shared and
     * get_position_shared erroneous: get_position is allowed, and the
     * individual pointer never moves there (OMPIO, ROMIO, MPICH agree) */
    MPI_Offset pos = -1;
    CHECK("seq_get_position", MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    EXPECT(pos == 0, "get_position on a sequential file gave %lld", (long long)pos);
    MPI_File_close(&fh);
}

static void bad_handles(void)
{
    MPI_File fh, stale;
    MPI_Status st;
    char buf[16] = {0};
    int rc = open_file("bad_handles.dat", MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    stale = fh;
    rc = MPI_File_close(&fh);
    EXPECT(rc == MPI_SUCCESS && fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
    CHECK("null_handle_write", MPI_File_write(fh, buf, 1, MPI_BYTE, &st), MPI_ERR_FILE);
    CHECK("null_handle_close", MPI_File_close(&fh), MPI_ERR_FILE);
    CHECK("null_handle_sync", MPI_File_sync(MPI_FILE_NULL), MPI_ERR_FILE);
    MPI_Offset sz;
    CHECK("null_handle_get_size", MPI_File_get_size(MPI_FILE_NULL, &sz), MPI_ERR_FILE);
    MPI_File f2 = MPI_File_f2c(-5);
    EXPECT(f2 == MPI_FILE_NULL, "f2c of a negative index");
    f2 = MPI_File_f2c(999999);
    EXPECT(f2 == MPI_FILE_NULL, "f2c of an unused index");
    if (!t_under_ferry())
        return;
    /* stale and forged handles: only a handle-validating library survives these */
    CHECK("stale_handle_write", MPI_File_write(stale, buf, 1, MPI_BYTE, &st), MPI_ERR_FILE);
    CHECK("stale_handle_read_at_all", MPI_File_read_at_all(stale, 0, buf, 1, MPI_BYTE, &st), MPI_ERR_FILE);
    CHECK("stale_handle_close", MPI_File_close(&stale), MPI_ERR_FILE);
    MPI_File forged[4];
    long long junk[64];
    memset(junk, 0x5a, sizeof junk);
    forged[0] = (MPI_File)(uintptr_t)0x1234;
    forged[1] = (MPI_File)(void *)junk;
    forged[2] = (MPI_File)(uintptr_t)-1;
    void *heap = malloc(4096);
    memset(heap, 0, 4096);
    forged[3] = (MPI_File)heap;
    for (int i = 0; i < 4; i++) {
        char key[64];
        snprintf(key, sizeof key, "forged_%d_write_at", i);
        CHECK(key, MPI_File_write_at(forged[i], 0, buf, 1, MPI_BYTE, &st), MPI_ERR_FILE);
        snprintf(key, sizeof key, "forged_%d_set_view", i);
        CHECK(key, MPI_File_set_view(forged[i], 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_FILE);
        snprintf(key, sizeof key, "forged_%d_close", i);
        MPI_File t = forged[i];
        CHECK(key, MPI_File_close(&t), MPI_ERR_FILE);
        snprintf(key, sizeof key, "forged_%d_c2f", i);
        EXPECT(MPI_File_c2f(forged[i]) == 0, "c2f of a forged handle is not 0");
    }
    free(heap);
}

/* Absurd hint values: warned and ignored, the file works as with defaults. */
static void absurd_hints(void)
{
    static const char *keys[] = {"cb_buffer_size", "cb_nodes", "ind_rd_buffer_size", "ind_wr_buffer_size",
                                 "striping_factor", "striping_unit", "ferry_local_aggregators",
                                 "ferry_ds_threshold", "cb_config_list", "romio_cb_write", "romio_ds_read",
                                 "ferry_write_strategy", "ferry_ind_read_strategy", "direct_write",
                                 "romio_no_indep_rw", "ferry_aggregator_placement"};
    char longv[200];
    memset(longv, '9', sizeof longv - 1);
    longv[sizeof longv - 1] = 0;
    const char *vals[] = {"0", "-1", "-9223372036854775808", "100000000000000000000", "abc", "16q", "1.5",
                          "0x10", " ", "", "*:*:*:,,::", longv};
    int nv = sizeof vals / sizeof *vals, nk = sizeof keys / sizeof *keys;
    for (int v = 0; v < nv; v++) {
        MPI_Info info;
        MPI_Info_create(&info);
        for (int k = 0; k < nk; k++)
            if (vals[v][0]) /* some MPIs refuse empty values in MPI_Info_set */
                MPI_Info_set(info, keys[k], vals[v]);
        MPI_File fh;
        char name[64];
        snprintf(name, sizeof name, "hints_%d.dat", v);
        char p[700];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        t_fresh(p);
        int rc = open_file(name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
        EXPECT(rc == MPI_SUCCESS, "open with absurd hints (value \"%.20s\"): %s", vals[v], t_class_name(rc));
        if (rc == MPI_SUCCESS) {
            /* set_info with the same values later must be harmless too */
            rc = MPI_File_set_info(fh, info);
            EXPECT(rc == MPI_SUCCESS, "set_info with absurd hints: %s", t_class_name(rc));
            /* a collective write and read that interleave ranks */
            int n = 4096;
            char *w = malloc((size_t)n), *r = malloc((size_t)n);
            for (int i = 0; i < n; i++)
                w[i] = (char)t_byte((long long)t_rank * n + i, v);
            MPI_Datatype vec, ft;
            MPI_Type_vector(n / 16, 16, 16 * t_size, MPI_BYTE, &vec);
            MPI_Type_create_resized(vec, 0, (MPI_Aint)n * t_size, &ft);
            MPI_Type_commit(&ft);
            MPI_File_set_view(fh, (MPI_Offset)t_rank * 16, MPI_BYTE, ft, "native", MPI_INFO_NULL);
            MPI_Status st;
            rc = MPI_File_write_all(fh, w, n, MPI_BYTE, &st);
            EXPECT(rc == MPI_SUCCESS, "write_all with absurd hints: %s", t_class_name(rc));
            rc = MPI_File_read_at_all(fh, 0, r, n, MPI_BYTE, &st);
            EXPECT(rc == MPI_SUCCESS && !memcmp(w, r, (size_t)n), "read back with absurd hints");
            MPI_Info used;
            rc = MPI_File_get_info(fh, &used);
            if (rc == MPI_SUCCESS) {
                char val[MPI_MAX_INFO_VAL + 1];
                int flag = 0;
                MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
                if (flag)
                    EXPECT(atoll(val) > 0, "cb_buffer_size in effect is %s", val);
                MPI_Info_free(&used);
            }
            MPI_Type_free(&ft);
            MPI_Type_free(&vec);
            free(w);
            free(r);
            rc = MPI_File_close(&fh);
            EXPECT(rc == MPI_SUCCESS, "close with absurd hints");
        }
        MPI_Info_free(&info);
    }
    t_report("absurd_hints done");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_path(dir, sizeof dir, ".");
    dir[strlen(dir) - 2] = 0;
    bad_opens();
    bad_data_calls();
    bad_handles();
    absurd_hints();
    return t_finish("r_badinput");
}
