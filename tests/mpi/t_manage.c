/*
 * File management: amode rules, EXCL, APPEND, DELETE_ON_CLOSE, SEQUENTIAL,
 * sizes, preallocate, sync, atomicity, groups, info, error handlers (on files
 * and on MPI_FILE_NULL for opens), and Fortran handle conversion.
 */
#include "tutil.h"

#include <sys/stat.h>

static int handler_calls;
static MPI_File handler_file;
static int handler_code;

static void my_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    handler_code = *code;
}

static void amode_rules(const char *path)
{
    MPI_File fh;
    static const struct { int amode; const char *name; } bad[] = {
        {MPI_MODE_RDONLY | MPI_MODE_WRONLY, "rdonly|wronly"},
        {MPI_MODE_RDWR | MPI_MODE_WRONLY, "rdwr|wronly"},
        {MPI_MODE_RDONLY | MPI_MODE_CREATE, "rdonly|create"},
        {MPI_MODE_RDONLY | MPI_MODE_EXCL, "rdonly|excl"},
        {MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, "rdwr|sequential"},
        {MPI_MODE_CREATE, "no access mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = MPI_File_open(MPI_COMM_WORLD, path, bad[i].amode, MPI_INFO_NULL, &fh);
        t_report("amode %s rc=%s", bad[i].name, t_class_name(rc));
        EXPECT(t_class(rc) == MPI_ERR_AMODE, "%s gives %s", bad[i].name, t_class_name(rc));
        EXPECT(fh == MPI_FILE_NULL, "handle stays null");
    }
    /* amode that differs between ranks */
    int am = t_rank == 0 ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_CREATE | MPI_MODE_WRONLY;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, am, MPI_INFO_NULL, &fh);
    EXPECT_STD(t_class(rc) == MPI_ERR_AMODE || t_size == 1, "differing amodes: %s", t_class_name(rc));
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
}

static void excl_append_delete(const char *path)
{
    MPI_File fh;
    if (t_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "excl create of a new file: %s", t_class_name(rc));
    t_report("excl_new rc=%s", t_class_name(rc));
    char buf[100];
    memset(buf, 'x', sizeof buf);
    if (rc == MPI_SUCCESS) {
        if (t_rank == 0)
            MPI_File_write_at(fh, 0, buf, 100, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                       MPI_INFO_NULL, &fh);
    t_report("excl_existing rc=%s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_FILE_EXISTS, "excl existing gives %s", t_class_name(rc));
    /* APPEND: both pointers start at the end */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_APPEND | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "append open");
    MPI_Offset pos = -1, spos = -1;
    MPI_File_get_position(fh, &pos);
    MPI_File_get_position_shared(fh, &spos);
    t_report("append pos=%lld shared=%lld", (long long)pos, (long long)spos);
    EXPECT(pos == 100 && spos == 100, "append pointers %lld %lld", (long long)pos, (long long)spos);
    int amode = 0;
    MPI_File_get_amode(fh, &amode);
    EXPECT(amode == (MPI_MODE_APPEND | MPI_MODE_RDWR), "get_amode");
    MPI_Group g;
    MPI_File_get_group(fh, &g);
    int gs = 0;
    MPI_Group_size(g, &gs);
    MPI_Group_free(&g);
    EXPECT(gs == t_size, "group size");
    MPI_File_close(&fh);
    /* DELETE_ON_CLOSE */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN,
                       MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "delete_on_close open");
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat sb;
    EXPECT(stat(path, &sb) != 0, "file deleted at close");
    rc = MPI_File_delete(path, MPI_INFO_NULL);
    t_report("delete_missing rc=%s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_NO_SUCH_FILE || t_class(rc) == MPI_ERR_IO, "delete of missing file");
}

static void sequential(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                           MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "sequential open");
    char buf[16] = "0123456789abcdef";
    rc = MPI_File_write_at(fh, 0, buf, 16, MPI_CHAR, MPI_STATUS_IGNORE);
    t_report("sequential write_at rc=%s", t_class_name(rc));
    EXPECT(t_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "explicit offset on sequential: %s", t_class_name(rc));
    rc = MPI_File_write_ordered(fh, buf, 16, MPI_CHAR, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "ordered on sequential");
    MPI_File_close(&fh);
}

static void sizes(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    rc = MPI_File_set_size(fh, 12345);
    MPI_Offset s = 0;
    MPI_File_get_size(fh, &s);
    t_report("set_size rc=%s size=%lld", t_class_name(rc), (long long)s);
    EXPECT(rc == MPI_SUCCESS && s == 12345, "set_size");
    rc = MPI_File_preallocate(fh, 100000);
    MPI_File_get_size(fh, &s);
    t_report("preallocate rc=%s size=%lld", t_class_name(rc), (long long)s);
    EXPECT(rc == MPI_SUCCESS && s == 100000, "preallocate");
    /* OMPIO (Open MPI 4.1) hangs here: its ranks disagree on whether to
     * broadcast when the file is already larger. Only ferry runs it. */
    if (t_under_ferry()) {
        rc = MPI_File_preallocate(fh, 10);
        MPI_File_get_size(fh, &s);
        EXPECT(rc == MPI_SUCCESS && s == 100000, "preallocate never shrinks");
    }
    rc = MPI_File_set_size(fh, 10);
    MPI_File_get_size(fh, &s);
    EXPECT(rc == MPI_SUCCESS && s == 10, "set_size shrinks");
    rc = MPI_File_sync(fh);
    EXPECT(rc == MPI_SUCCESS, "sync");
    int flag = -1;
    rc = MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    EXPECT(rc == MPI_SUCCESS && flag == 1, "atomicity on");
    char buf[8] = "atomic!";
    rc = MPI_File_write_at(fh, (MPI_Offset)t_rank * 8, buf, 8, MPI_CHAR, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "atomic write");
    MPI_File_set_atomicity(fh, 0);
    MPI_File_get_atomicity(fh, &flag);
    EXPECT(flag == 0, "atomicity off");
    MPI_File_close(&fh);
}

static void info(const char *path)
{
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "8388608");
    MPI_Info_set(in, "cb_nodes", "1");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, in, &fh);
    MPI_Info_free(&in);
    EXPECT(rc == MPI_SUCCESS, "open with info");
    MPI_Info used;
    rc = MPI_File_get_info(fh, &used);
    EXPECT(rc == MPI_SUCCESS, "get_info");
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
    EXPECT(flag && !strcmp(val, "8388608"), "cb_buffer_size in effect: %s", flag ? val : "(none)");
    MPI_Info_free(&used);
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "4194304");
    rc = MPI_File_set_info(fh, in);
    MPI_Info_free(&in);
    EXPECT(rc == MPI_SUCCESS, "set_info");
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
    EXPECT_STD(flag && !strcmp(val, "4194304"), "set_info took effect: %s", flag ? val : "(none)");
    MPI_Info_free(&used);
    MPI_File_close(&fh);
}

static void errhandlers(const char *path)
{
    MPI_Errhandler eh, got;
    int rc = MPI_File_create_errhandler(my_handler, &eh);
    EXPECT(rc == MPI_SUCCESS, "create_errhandler");
    /* default for files is MPI_ERRORS_RETURN */
    MPI_File_get_errhandler(MPI_FILE_NULL, &got);
    EXPECT(got == MPI_ERRORS_RETURN, "default handler on MPI_FILE_NULL");
    /* the MPI_FILE_NULL handler sees failed opens */
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    char missing[600];
    snprintf(missing, sizeof missing, "%s.does-not-exist", path);
    MPI_File fh;
    handler_calls = 0;
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    EXPECT(handler_calls == 1 && handler_file == MPI_FILE_NULL, "handler called for failed open (%d)", handler_calls);
    EXPECT(t_class(handler_code) == MPI_ERR_NO_SUCH_FILE, "handler code %s", t_class_name(handler_code));
    t_report("open_missing rc=%s", t_class_name(rc));
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    /* a file's handler sees its errors; the file inherits the MPI_FILE_NULL handler at open */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_get_errhandler(fh, &got);
    EXPECT(got == MPI_ERRORS_RETURN, "file inherits MPI_ERRORS_RETURN");
    MPI_File_set_errhandler(fh, eh);
    MPI_File_get_errhandler(fh, &got);
    EXPECT(got == eh, "get_errhandler returns the set handler");
    handler_calls = 0;
    rc = MPI_File_write_at(fh, -5, path, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    EXPECT(rc != MPI_SUCCESS && handler_calls == 1 && handler_file == fh, "file handler on a bad write");
    t_report("negative_offset rc=%s", t_class_name(rc));
    handler_calls = 0;
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    EXPECT(handler_calls == 1 && t_class(handler_code) == MPI_ERR_IO, "call_errhandler");
    /* Fortran handles */
    MPI_Fint fi = MPI_File_c2f(fh);
    EXPECT(MPI_File_f2c(fi) == fh, "c2f/f2c round trip");
    EXPECT(MPI_File_c2f(MPI_FILE_NULL) == MPI_File_c2f(MPI_FILE_NULL), "c2f of null is stable");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_close(&fh);
    EXPECT(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "manage_amode.dat");
    amode_rules(p);
    t_path(p, sizeof p, "manage_excl.dat");
    excl_append_delete(p);
    t_path(p, sizeof p, "manage_seq.dat");
    sequential(p);
    t_path(p, sizeof p, "manage_size.dat");
    sizes(p);
    t_path(p, sizeof p, "manage_info.dat");
    info(p);
    t_path(p, sizeof p, "manage_errh.dat");
    errhandlers(p);
    return t_finish("t_manage");
}
