/*
 * What a user reads when a call fails: the error class, and the
 * MPI_Error_string of the code, for errors of the system (which must name the
 * cause and the file, as ROMIO does: "ferry: No such file or directory:
 * /path/f.dat") and of the program (a bad amode). The classes are checked on
 * any MPI; the texts under ferry, whose format they are (natively each MPI
 * words them its own way, and MPICH 4.0's own texts for these are what ferry
 * used to return: "File does not exist, error stack: ... AF_INET ...").
 * R_SMALLFS (a 1 MiB tmpfs, rrun.sh --tmpfs) adds a real ENOSPC.
 */
#include "mpi/tutil.h"

#include <sys/stat.h>

/* The text of code; its class must be cls, and under ferry the text must be
 * exactly want (when given) and never an MPI library's unrelated message. */
static void check(const char *what, int code, int cls, const char *want)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = -1;
    int rc = MPI_Error_string(code, text, &len);
    printf("REPORT r%d %s: %s \"%s\"\n", t_rank, what, t_class_name(code), text);
    EXPECT(t_class(code) == cls, "%s: class %s", what, t_class_name(code));
    EXPECT(rc == MPI_SUCCESS && len == (int)strlen(text) && len > 0, "%s: MPI_Error_string rc %d, len %d for \"%s\"",
           what, rc, len, text);
    if (!t_under_ferry())
        return;
    if (want)
        EXPECT(strcmp(text, want) == 0, "%s: the text is \"%s\", expected \"%s\"", what, text, want);
    else
        EXPECT(strncmp(text, "ferry: ", 7) == 0, "%s: the text \"%s\" is not ferry's", what, text);
    EXPECT(!strstr(text, "error stack") && !strstr(text, "AF_INET") && !strstr(text, "shared memory"),
           "%s: an unrelated MPI message: \"%s\"", what, text);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char dir[512], p[700], want[1024];
    t_path(dir, sizeof dir, "errtext");
    if (t_rank == 0)
        mkdir(dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;

    snprintf(p, sizeof p, "%s/missing.dat", dir);
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    snprintf(want, sizeof want, "ferry: No such file or directory: %s", p);
    check("open of a missing file", rc, MPI_ERR_NO_SUCH_FILE, want);

    rc = MPI_File_delete(p, MPI_INFO_NULL);
    check("delete of a missing file", rc, MPI_ERR_NO_SUCH_FILE, want);

    snprintf(p, sizeof p, "%s/amode.dat", dir);
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    check("open with RDONLY|WRONLY", rc, MPI_ERR_AMODE,
          "ferry: amode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR");

    /* a directory opened for writing: EISDIR */
    rc = MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    snprintf(want, sizeof want, "ferry: Is a directory: %s", dir);
    /* natively the class differs between MPI libraries (ROMIO: MPI_ERR_IO) */
    check("open of a directory for writing", rc, t_under_ferry() ? MPI_ERR_BAD_FILE : t_class(rc), want);

    snprintf(p, sizeof p, "%s/exists.dat", dir);
    t_fresh(p);
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "create: %s", t_class_name(rc));
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    snprintf(want, sizeof want, "ferry: File exists: %s", p);
    check("exclusive create of an existing file", rc, MPI_ERR_FILE_EXISTS, want);

    /* a code that is not ferry's still gets the MPI library's text */
    char lib[MPI_MAX_ERROR_STRING];
    int len = 0;
    rc = MPI_Error_string(MPI_ERR_TYPE, lib, &len);
    EXPECT(rc == MPI_SUCCESS && len > 0 && strncmp(lib, "ferry: ", 7) != 0, "MPI_ERR_TYPE's text: \"%s\"", lib);

    const char *small = getenv("R_SMALLFS");
    if (small && *small) {
        /* every rank writes 1 MiB of its own, independently: they cannot
         * all fit, and a rank whose write fails names the cause and file */
        snprintf(p, sizeof p, "%s/full.dat", small);
        t_fresh(p);
        rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        EXPECT(rc == MPI_SUCCESS, "open on the small file system: %s", t_class_name(rc));
        if (rc == MPI_SUCCESS) {
            MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
            enum { MB = 1 << 20 };
            char *buf = calloc(1, MB);
            rc = MPI_File_write_at(fh, (MPI_Offset)t_rank * MB, buf, MB, MPI_BYTE, MPI_STATUS_IGNORE);
            snprintf(want, sizeof want, "ferry: No space left on device: %s", p);
            int failed = rc != MPI_SUCCESS, nfailed = 0;
            /* MPICH's ROMIO says MPI_ERR_IO here */
            int cls = !t_under_ferry() && t_class(rc) == MPI_ERR_IO ? MPI_ERR_IO : MPI_ERR_NO_SPACE;
            if (failed)
                check("write to a full file system", rc, cls, want);
            MPI_Allreduce(&failed, &nfailed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            /* OMPIO returns success there and loses the data: checked under ferry */
            EXPECT_STD(nfailed > 0, "the file system never filled, or a write lost data without an error");
            free(buf);
            MPI_File_close(&fh);
        }
    }
    return t_finish("r_errtext");
}
