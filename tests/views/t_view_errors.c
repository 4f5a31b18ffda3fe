/*
 * set_view argument checking: every bad displacement, etype and filetype
 * fails with the class the natives agree on (or the standard's where they
 * are wrong), on every rank, without a crash; a good view resets the file
 * pointers, get_view returns freeable duplicates, get_byte_offset and
 * get_type_extent report the view's byte geometry.
 */
#include "mpi/tutil.h"

static MPI_File fh;

static int try_view(const char *key, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft, const char *rep)
{
    int rc = MPI_File_set_view(fh, disp, et, ft, rep, MPI_INFO_NULL);
    t_report("%s %s", key, t_class_name(rc));
    /* a failed set_view leaves a usable file: restore a byte view */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    return t_class(rc);
}

static MPI_Datatype hindexed_ints(int n, const MPI_Aint *disp)
{
    int bl[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    MPI_Datatype t;
    MPI_Type_create_hindexed(n, bl, disp, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static void bad_views(void)
{
    /* MPICH's ROMIO says MPI_ERR_ARG */
    int c = try_view("null_etype", 0, MPI_DATATYPE_NULL, MPI_BYTE, "native");
    EXPECT_STD(c == MPI_ERR_TYPE, "null etype: %s", t_class_name(c));
    c = try_view("null_filetype", 0, MPI_BYTE, MPI_DATATYPE_NULL, "native");
    EXPECT_STD(c == MPI_ERR_TYPE, "null filetype: %s", t_class_name(c));

    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    c = try_view("filetype_not_of_etype", 0, MPI_INT, three, "native");
    EXPECT(c != MPI_SUCCESS, "filetype of 3 bytes with int etype");

    MPI_Datatype unc;
    MPI_Type_vector(2, 1, 2, MPI_INT, &unc);
    c = try_view("uncommitted_filetype", 0, MPI_INT, unc, "native");
    EXPECT(c == MPI_ERR_TYPE, "uncommitted filetype: %s", t_class_name(c));
    c = try_view("uncommitted_etype", 0, unc, MPI_BYTE, "native");
    EXPECT(c != MPI_SUCCESS, "uncommitted etype");
    MPI_Type_free(&unc);

    MPI_Aint neg[2] = {-4, 8};
    MPI_Datatype tneg = hindexed_ints(2, neg);
    c = try_view("negative_filetype_disp", 0, MPI_INT, tneg, "native");
    EXPECT_STD(c != MPI_SUCCESS, "negative displacement in the filetype");

    MPI_Aint dec[2] = {8, 0};
    MPI_Datatype tdec = hindexed_ints(2, dec);
    c = try_view("decreasing_filetype", 0, MPI_INT, tdec, "native");
    EXPECT_STD(c != MPI_SUCCESS, "decreasing displacements in the filetype");

    /* MPICH's tst_fileview: etypes (used as etype and filetype) with a
     * negative, a decreasing and an overlapping displacement. MPICH's ROMIO
     * says MPI_ERR_IO to each, Open MPI MPI_ERR_TYPE to the last two; the
     * report compares with the native run. */
    static const struct {
        const char *key;
        int disp[2], len[2];
    } etypes[] = {{"negative_etype", {-2, 2}, {1, 1}},
                  {"decreasing_etype", {3, 0}, {1, 1}},
                  {"overlapping_etype", {0, 1}, {3, 1}}};
    for (int i = 0; i < 3; i++) {
        MPI_Datatype et;
        MPI_Type_indexed(2, (int *)etypes[i].len, (int *)etypes[i].disp, MPI_INT, &et);
        MPI_Type_commit(&et);
        c = try_view(etypes[i].key, 0, et, et, "native");
        EXPECT(c != MPI_SUCCESS, "%s accepted", etypes[i].key);
#ifndef OPEN_MPI
        EXPECT(c == MPI_ERR_IO, "%s: %s, MPICH's tst_fileview expects MPI_ERR_IO", etypes[i].key, t_class_name(c));
#endif
        MPI_Type_free(&et);
    }

    MPI_Datatype zero;
    MPI_Type_contiguous(0, MPI_INT, &zero);
    MPI_Type_commit(&zero);
    /* OMPIO dies of a division by zero here and ROMIO accepts it */
    if (t_under_ferry()) {
        c = try_view("zero_size_etype", 0, zero, MPI_BYTE, "native");
        EXPECT(c == MPI_ERR_TYPE, "zero-size etype: %s", t_class_name(c));
    }

    c = try_view("unknown_datarep", 0, MPI_BYTE, MPI_BYTE, "no-such-representation");
    EXPECT(c == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: %s", t_class_name(c));
    c = try_view("current_not_sequential", MPI_DISPLACEMENT_CURRENT, MPI_BYTE, MPI_BYTE, "native");
    EXPECT(c != MPI_SUCCESS, "MPI_DISPLACEMENT_CURRENT on a non-sequential file");

    /* zero-size filetype: allowed; an access through it then fails */
    c = try_view("zero_size_filetype", 0, MPI_INT, zero, "native");
    MPI_Type_free(&three);
    MPI_Type_free(&tneg);
    MPI_Type_free(&tdec);
    MPI_Type_free(&zero);
}

/* A filetype whose blocks overlap is fine for reading, not for writing. */
static void overlap(const char *path)
{
    MPI_Aint ov[2] = {0, 0};
    MPI_Datatype t = hindexed_ints(2, ov);
    int c = try_view("overlap_writable", 0, MPI_INT, t, "native");
    EXPECT_STD(c != MPI_SUCCESS, "overlapping filetype on a writable file");
    MPI_File ro;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    int rc = MPI_File_set_view(ro, 0, MPI_INT, t, "native", MPI_INFO_NULL);
    t_report("overlap_readonly %s", t_class_name(rc));
    EXPECT(rc == MPI_SUCCESS, "overlapping filetype on a read-only file: %s", t_class_name(rc));
    if (rc == MPI_SUCCESS) {
        int got[4] = {0};
        MPI_Status st;
        rc = MPI_File_read_at(ro, 0, got, 4, MPI_INT, &st);
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        t_report("overlap_read %s %d %d %d %d %d", t_class_name(rc), n, got[0], got[1], got[2], got[3]);
    }
    MPI_File_close(&ro);
    MPI_Type_free(&t);
}

static void good_view(void)
{
    /* pointers reset, get_view duplicates, byte offsets */
    int data[16];
    for (int i = 0; i < 16; i++)
        data[i] = i;
    MPI_File_seek(fh, 5, MPI_SEEK_SET);
    MPI_Datatype v0, vec;
    MPI_Type_vector(4, 2, 2 * t_size, MPI_INT, &v0);
    /* instances tile at the pattern's period, so ranks never overlap */
    MPI_Type_create_resized(v0, 0, 4 * 2 * t_size * (MPI_Aint)sizeof(int), &vec);
    MPI_Type_free(&v0);
    MPI_Type_commit(&vec);
    int rc = MPI_File_set_view(fh, 16 + 8 * t_rank, MPI_INT, vec, "native", MPI_INFO_NULL);
    EXPECT(rc == MPI_SUCCESS, "set_view vector");
    MPI_Offset pos = -1, byte = -1;
    MPI_File_get_position(fh, &pos);
    t_report("position_after_view %lld", (long long)pos);
    EXPECT(pos == 0, "set_view resets the pointer");
    MPI_File_get_byte_offset(fh, 5, &byte);
    t_report("byte_offset_5 %lld", (long long)byte);
    MPI_File_get_byte_offset(fh, 8, &byte);
    t_report("byte_offset_8 %lld", (long long)byte);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb);
    MPI_Count sz = 0, lb = -1, ext = -1;
    MPI_Type_size_x(ft, &sz);
    MPI_Type_get_extent_x(ft, &lb, &ext);
    t_report("get_view disp=%lld etype_int=%d size=%lld lb=%lld extent=%lld rep=%s", (long long)disp,
             et == MPI_INT, (long long)sz, (long long)lb, (long long)ext, rep);
    EXPECT(comb != MPI_COMBINER_NAMED, "get_view returns a derived filetype the caller frees");
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&ft);
    MPI_Type_get_envelope(et, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&et);
    rc = MPI_File_write(fh, data, 16, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_get_position(fh, &pos);
    t_report("write_through_vector %s pos=%lld", t_class_name(rc), (long long)pos);
    MPI_Aint fext = 0;
    MPI_File_get_type_extent(fh, vec, &fext);
    t_report("type_extent_vector %ld", (long)fext);
    MPI_Type_free(&vec);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char path[512];
    t_path(path, sizeof path, "view_errors.dat");
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    if (t_rank == 0) {
        int pre[64];
        for (int i = 0; i < 64; i++)
            pre[i] = 1000 + i;
        MPI_File_write_at(fh, 0, pre, 64, MPI_INT, MPI_STATUS_IGNORE);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    bad_views();
    good_view();
    overlap(path);
    MPI_File_close(&fh);
    return t_finish("t_view_errors");
}
