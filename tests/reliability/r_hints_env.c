/*
 * Hints from the user's environment: the thread level MPI_Init gave, the
 * hints each open ends with (MPI_File_get_info, as ROMIO's syshints test
 * checks them), and that a run whose hints files are bad still works.
 *
 *   R_THREAD=multiple|not-multiple   the level MPI_Query_thread must report
 *   R_INFO="k=v,k=v"                 MPI_Info given to MPI_File_open
 *   R_EXPECT="k=v,k=v"               values get_info must report
 *   R_OPENS=n                        files opened one after the other (3)
 *   R_BLOCK=n, R_WRITES=n            ints per rank per write (64), collective writes per file (1)
 */
#include "mpi/tutil.h"

static void info_from(MPI_Info info, const char *spec)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, kv, eq + 1);
        }
    }
}

static void expect_hints(MPI_File fh, const char *spec)
{
    MPI_Info used;
    EXPECT(MPI_File_get_info(fh, &used) == MPI_SUCCESS, "get_info");
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char val[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0;
        MPI_Info_get(used, kv, MPI_MAX_INFO_VAL, val, &flag);
        EXPECT(flag && strcmp(val, eq + 1) == 0, "hint %s is \"%s\" (%s), expected \"%s\"", kv, val,
               flag ? "set" : "not set", eq + 1);
    }
    MPI_Info_free(&used);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int level = 0;
    MPI_Query_thread(&level);
    const char *want = getenv("R_THREAD");
    if (want && strcmp(want, "multiple") == 0)
        EXPECT(level == MPI_THREAD_MULTIPLE, "thread level %d, MPI_THREAD_MULTIPLE wanted", level);
    if (want && strcmp(want, "not-multiple") == 0)
        EXPECT(level != MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE although nothing asks for forwarding");
    const char *ispec = getenv("R_INFO"), *espec = getenv("R_EXPECT"), *o = getenv("R_OPENS");
    int opens = o ? atoi(o) : 3;
    for (int k = 0; k < opens; k++) {
        char path[512], name[64];
        snprintf(name, sizeof name, "r_hints_env.%d", k);
        t_path(path, sizeof path, name);
        t_fresh(path);
        MPI_Info info = MPI_INFO_NULL;
        if (ispec) {
            MPI_Info_create(&info);
            info_from(info, ispec);
        }
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        EXPECT(rc == MPI_SUCCESS, "open: %s", t_class_name(rc));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        if (rc != MPI_SUCCESS)
            break;
        if (espec)
            expect_hints(fh, espec);
        /* ferry still runs: an interleaved collective write reads back */
        int n = getenv("R_BLOCK") ? atoi(getenv("R_BLOCK")) : 64;
        int writes = getenv("R_WRITES") ? atoi(getenv("R_WRITES")) : 1;
        int *v = malloc((size_t)n * sizeof *v), *r = malloc((size_t)n * sizeof *r);
        for (int i = 0; i < n; i++)
            v[i] = t_rank * 1000 + i + k;
        MPI_Status st;
        MPI_Offset at = (MPI_Offset)t_rank * n * (MPI_Offset)sizeof *v;
        for (int j = 0; j < writes; j++) {
            rc = MPI_File_write_at_all(fh, at, v, n, MPI_INT, &st);
            EXPECT(rc == MPI_SUCCESS, "write_at_all: %s", t_class_name(rc));
        }
        rc = MPI_File_read_at_all(fh, at, r, n, MPI_INT, &st);
        EXPECT(rc == MPI_SUCCESS && memcmp(v, r, (size_t)n * sizeof *v) == 0, "read back: %s", t_class_name(rc));
        free(v);
        free(r);
        EXPECT(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    }
    return t_finish("r_hints_env");
}
