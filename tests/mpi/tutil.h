/*
 * Helpers for the MPI test programs. The programs know nothing of ferry: the
 * same binary runs natively and with libferry preloaded. Each prints REPORT
 * lines (observable results: error classes, counts, positions) that the
 * differential runner compares between the two runs, and EXPECT checks of
 * what the MPI standard requires, which fail the program on any MPI.
 */
#ifndef FERRY_TEST_TUTIL_H
#define FERRY_TEST_TUTIL_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int t_rank, t_size, t_failures;
static inline void t_fresh(const char *path);

/* 1 when libferry is loaded (preloaded or linked). */
static inline int t_under_ferry(void)
{
    return dlsym(RTLD_DEFAULT, "ferry_version") != NULL;
}

/* A scratch path for this test: $FERRY_TEST_TMP/<name>, the same on every rank. */
static inline void t_path(char *out, size_t cap, const char *name)
{
    const char *dir = getenv("FERRY_TEST_OUT");
    if (!dir)
        dir = getenv("FERRY_TEST_TMP");
    if (!dir)
        dir = "/tmp";
    snprintf(out, cap, "%s/%s", dir, name);
}

/* Starts a test file from nothing, whatever an earlier run left there. */
static inline void t_fresh(const char *path)
{
    if (t_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

static inline int t_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

static inline const char *t_class_name(int code)
{
    static char buf[64];
    int c = t_class(code);
#define N(x) if (c == x) return #x;
    N(MPI_SUCCESS) N(MPI_ERR_FILE) N(MPI_ERR_AMODE) N(MPI_ERR_NO_SUCH_FILE) N(MPI_ERR_ACCESS)
    N(MPI_ERR_FILE_EXISTS) N(MPI_ERR_NO_SPACE) N(MPI_ERR_QUOTA) N(MPI_ERR_READ_ONLY) N(MPI_ERR_IO)
    N(MPI_ERR_ARG) N(MPI_ERR_COUNT) N(MPI_ERR_TYPE) N(MPI_ERR_UNSUPPORTED_OPERATION)
    N(MPI_ERR_UNSUPPORTED_DATAREP) N(MPI_ERR_BAD_FILE) N(MPI_ERR_FILE_IN_USE) N(MPI_ERR_BUFFER)
    N(MPI_ERR_COMM) N(MPI_ERR_OTHER) N(MPI_ERR_DUP_DATAREP) N(MPI_ERR_REQUEST) N(MPI_ERR_NO_MEM) N(MPI_ERR_NOT_SAME)
    N(MPI_ERR_INTERN)
#undef N
    snprintf(buf, sizeof buf, "class%d", c);
    return buf;
}

/* Observable result, printed by every rank in rank order by the runner's sort. */
static inline void t_report(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("REPORT r%d %s\n", t_rank, line);
    fflush(stdout);
}

#define EXPECT(cond, ...)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL r%d %s:%d: %s: ", t_rank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            t_failures++;                                                        \
        }                                                                        \
    } while (0)

/* A standard requirement some native implementations break: checked only
 * under ferry, and still reported for the differential comparison. */
#define EXPECT_STD(cond, ...)                                                    \
    do {                                                                         \
        if (t_under_ferry())                                                     \
            EXPECT(cond, __VA_ARGS__);                                           \
    } while (0)

static inline void t_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
}

/* Every rank's failures decide the exit code of every rank. */
static inline int t_finish(const char *name)
{
    int all = 0;
    MPI_Allreduce(&t_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("%s: %s (%d failed checks, %s)\n", name, all ? "FAILED" : "passed", all,
               t_under_ferry() ? "ferry" : "native");
    MPI_Finalize();
    return all ? 1 : 0;
}

/* Deterministic content: byte i of a file written by the tests. */
static inline unsigned char t_byte(long long off, int salt)
{
    unsigned long long x = (unsigned long long)off * 2654435761u + (unsigned)salt * 40503u;
    return (unsigned char)(x >> 13);
}

/* Node layout from the MPI library: how many nodes the job spans and how
 * many ranks the caller's node has. */
static inline void t_find_nodes(int *nodes, int *ppn)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t_rank, MPI_INFO_NULL, &node);
    int nrank, first;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, ppn);
    first = nrank == 0;
    MPI_Allreduce(&first, nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
}

/* The hints that make ferry use one strategy for collective and
 * independent calls alike (the natives ignore them): independent, sieve,
 * twophase, local, ionode, forward or auto. ionode's servers go where
 * T_IO_NODES says (ferry_io_nodes: hosts, or a count; default 2). */
static inline MPI_Info t_strategy_info(const char *s)
{
    MPI_Info info;
    MPI_Info_create(&info);
    const char *coll = "auto", *ind = "auto";
    if (!strcmp(s, "independent"))
        coll = "independent", ind = "direct";
    else if (!strcmp(s, "sieve"))
        coll = "independent", ind = "sieve";
    else if (!strcmp(s, "twophase") || !strcmp(s, "local") || !strcmp(s, "ionode"))
        coll = s, ind = "direct";
    else if (!strcmp(s, "forward"))
        ind = "forward";
    MPI_Info_set(info, "ferry_write_strategy", coll);
    MPI_Info_set(info, "ferry_read_strategy", coll);
    MPI_Info_set(info, "ferry_ind_write_strategy", ind);
    MPI_Info_set(info, "ferry_ind_read_strategy", ind);
    if (!strcmp(s, "ionode")) {
        const char *ions = getenv("T_IO_NODES");
        MPI_Info_set(info, "ferry_io_nodes", ions && *ions ? ions : "2");
    }
    return info;
}

#endif
