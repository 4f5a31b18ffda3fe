/*
 * What MPI_File_get_info says after open and after a collective write
 * ("hints that lie"). The program asks for striping_factor=4,
 * striping_unit=1 MiB, direct_read and direct_write, and collective
 * buffering, on a file system that stripes nothing (the build's scratch
 * directory), then checks:
 *   cb_nodes      the number of aggregators, R_NODES (one per node), after
 *                 open and after the write; ferry said 0 before
 *   striping_unit echoed, as ROMIO does (file domains align to it)
 *   striping_factor  absent: the file system does not stripe (ROMIO leaves
 *                 it out there too); ferry echoed 4 before
 *   direct_*      absent or false: no O_DIRECT I/O happens
 * and, with FERRY_STATS_JSON, that the record's "hints" says the same.
 * The same checks hold natively on MPICH's ROMIO (R_NODES=1: one host).
 */
#include "mpi/tutil.h"

static void check_info(MPI_File fh, const char *when)
{
    MPI_Info in;
    MPI_File_get_info(fh, &in);
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    const char *nodes = getenv("R_NODES");
    MPI_Info_get(in, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
    t_report("%s cb_nodes %s", when, flag ? v : "(absent)");
    EXPECT(flag && nodes && strcmp(v, nodes) == 0, "%s: cb_nodes is %s, %s aggregators expected", when,
           flag ? v : "absent", nodes ? nodes : "?");
    MPI_Info_get(in, "striping_unit", MPI_MAX_INFO_VAL, v, &flag);
    EXPECT(flag && strcmp(v, "1048576") == 0, "%s: striping_unit is %s", when, flag ? v : "absent");
    MPI_Info_get(in, "striping_factor", MPI_MAX_INFO_VAL, v, &flag);
    EXPECT(!flag, "%s: striping_factor=%s echoed on a file system that does not stripe", when, v);
    static const char *const direct[] = {"direct_read", "direct_write"};
    for (int i = 0; i < 2; i++) {
        MPI_Info_get(in, direct[i], MPI_MAX_INFO_VAL, v, &flag);
        EXPECT(!flag || strcmp(v, "false") == 0, "%s: %s=%s, but no O_DIRECT I/O happens", when, direct[i], v);
    }
    MPI_Info_free(&in);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char p[512];
    t_path(p, sizeof p, "hints_truth.dat");
    t_fresh(p);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "striping_factor", "4");
    MPI_Info_set(info, "striping_unit", "1048576");
    MPI_Info_set(info, "direct_read", "true");
    MPI_Info_set(info, "direct_write", "true");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return t_finish("r_hints_truth");
    check_info(fh, "after open");
    enum { B = 65536 };
    char *buf = malloc(B);
    memset(buf, 'a' + t_rank, B);
    /* interleaved blocks: two-phase, every aggregator gets a domain */
    MPI_Datatype ft;
    MPI_Type_vector(4, B / 4, (B / 4) * t_size, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)t_rank * (B / 4), MPI_BYTE, ft, "native", MPI_INFO_NULL);
    rc = MPI_File_write_all(fh, buf, B, MPI_BYTE, MPI_STATUS_IGNORE);
    EXPECT(rc == MPI_SUCCESS, "write_all: %s", t_class_name(rc));
    check_info(fh, "after write_all");
    MPI_Type_free(&ft);
    free(buf);
    const char *rec = getenv("FERRY_STATS_JSON");
    if (t_rank == 0 && rec)
        remove(rec);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_close(&fh);
    /* the record written at that close says what get_info says */
    if (t_rank == 0 && rec) {
        char text[16384] = "", want[64];
        FILE *f = fopen(rec, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = '\0';
        if (f)
            fclose(f);
        const char *hints = strstr(text, "\"hints\":{");
        snprintf(want, sizeof want, "\"cb_nodes\":%s,", getenv("R_NODES") ? getenv("R_NODES") : "?");
        EXPECT(hints && strstr(hints, want), "record's hints: %s wanted in %.200s", want, hints ? hints : "(none)");
        EXPECT(hints && strstr(hints, "\"striping_factor\":0,") && strstr(hints, "\"direct_read\":false"),
               "record's hints: striping_factor 0 and direct_read false wanted in %.300s", hints ? hints : "(none)");
    }
    return t_finish("r_hints_truth");
}
