/*
 * ferry-run: ferry's launcher. Starts a program under the MPI library's own
 * launcher (the one this build was made for) with libferry preloaded, and
 * with N compute and M data processes tells ferry how many of the ranks
 * serve as data processes.
 *
 *   ferry-run -np N [-dp M] [-f hostfile] [ferry-run options] [mpiexec options] [--] ./app args...
 *
 * -np N is always the number of ranks that run the program's own work;
 * the launcher starts N+M ranks, and ferry_decouple_init() sends M of them
 * (ferry's choice, docs/decoupled.md) into serving. A program that never
 * calls it cannot have data processes: ferry then fails its first file open
 * and says why, instead of running N+M copies of the program.
 *
 * Parsing is getopt_long_only's (options take one dash or two, as
 * launchers' do). Launcher options ferry-run does not know go through
 * unchanged; the ones known to take values are listed, so their values are
 * not taken for the program.
 */
#define _GNU_SOURCE
#include "exe_dir.h"
#include "ferry.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FERRY_RUN_MPIEXEC
#define FERRY_RUN_MPIEXEC "mpiexec"
#endif
#ifndef FERRY_RUN_FLAVOR
#define FERRY_RUN_FLAVOR "openmpi"
#endif

static void usage(FILE *to)
{
    fprintf(to,
            "usage: ferry-run -np N [-dp M] [-f hostfile] [options] [mpiexec options] [--] program [args...]\n"
            "  Runs program under this build's MPI launcher with ferry preloaded.\n"
            "  -np N, -n N           ranks that run the program (compute processes)\n"
            "  -dp M                 data processes besides them (default 0: no decoupled I/O); the\n"
            "                        launcher starts N+M ranks, and the program must call\n"
            "                        ferry_decouple_init() (docs/decoupled.md)\n"
            "  -f FILE, --hostfile FILE  hosts, passed to the launcher\n"
            "  --serve-in-init       data processes serve inside MPI_Init and never run the program\n"
            "  --survive             keep compute processes running when a data process dies\n"
            "                        (they get an MPI error instead of being killed with it)\n"
            "  --ranks-per-node K    treat each K consecutive ranks as a node (one-host testing)\n"
            "  --more-data-than-compute  allow -dp above -np (the extra data processes only serve split reads)\n"
            "  --no-preload          do not preload libferry (the program links it itself)\n"
            "  --dry-run             print the launcher command instead of running it\n"
            "  --version             print the version\n"
            "launcher: %s (%s); FERRY_MPIEXEC overrides it\n",
            FERRY_RUN_MPIEXEC, FERRY_RUN_FLAVOR);
}

enum { O_NP = 1, O_DP, O_HOSTFILE, O_SERVE, O_SURVIVE, O_RPN, O_MORE, O_NOPRELOAD, O_DRY, O_HELP, O_VERSION,
       O_PASS1, O_PASS2 };

/* Launcher options that take values (so the program is found after them). */
static const char *const one_ompi[] = {
    "x", "map-by", "rank-by", "bind-to", "H", "host", "machinefile", "prefix", "wdir", "wd", "output-filename",
    "npernode", "N", "cpus-per-proc", "timeout", "am", "tune", "path", "preload-files", "s", "report-uri", NULL};
static const char *const two_ompi[] = {"mca", "gmca", NULL};
static const char *const one_mpich[] = {
    "genvlist", "envlist", "hosts", "host", "ppn", "bind-to", "map-by", "wdir", "configfile", "launcher", "iface",
    "errfile-pattern", "outfile-pattern", "rmk", "launcher-exec", "prepend-pattern", "profile", "demux",
    "machinefile", NULL};
static const char *const two_mpich[] = {"genv", "env", NULL};

static int is_host_option(const char *name)
{
    static const char *const h[] = {"H", "host", "hosts", "machinefile", NULL};
    for (int i = 0; h[i]; i++)
        if (!strncmp(name, h[i], strlen(h[i])) && (name[strlen(h[i])] == '\0' || name[strlen(h[i])] == '='))
            return 1;
    return 0;
}

static int count_arg(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 1000000)
        return -1;
    *out = v;
    return 0;
}

/* libferry of this build: ../lib beside this program (the build tree and
 * an install alike). */
static int libferry_path(char *buf, size_t len)
{
    return ferry_beside_exe("../lib/libferry.so.0", buf, len) && access(buf, R_OK) == 0 ? 0 : -1;
}

/* Sets name=value in every rank, in the launcher's words: Open MPI's
 * "-x name=value" (written into kv, which lives as long as cmd), MPICH's
 * "-genv name value". Returns the new count of cmd's words. */
static int env_arg(char **cmd, int n, int ompi, const char *name, const char *value, char *kv, size_t kvlen)
{
    if (ompi) {
        snprintf(kv, kvlen, "%s=%s", name, value);
        cmd[n++] = "-x";
        cmd[n++] = kv;
    } else {
        cmd[n++] = "-genv";
        cmd[n++] = (char *)name;
        cmd[n++] = (char *)value;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *mpiexec = getenv("FERRY_MPIEXEC");
    if (!mpiexec || !*mpiexec)
        mpiexec = FERRY_RUN_MPIEXEC;
    int ompi = !strcmp(FERRY_RUN_FLAVOR, "openmpi");
    long np = -1, dp = 0, ppn = 0;
    const char *hostfile = NULL;
    int serve = 0, survive = 0, dry = 0, hosts = 0, oversub = 0, ppn_given = 0, more_data = 0, preload = 1;

    static const struct option own[] = {
        {"np", required_argument, NULL, O_NP},       {"n", required_argument, NULL, O_NP},
        {"c", required_argument, NULL, O_NP},        {"dp", required_argument, NULL, O_DP},
        {"f", required_argument, NULL, O_HOSTFILE},  {"hostfile", required_argument, NULL, O_HOSTFILE},
        {"serve-in-init", no_argument, NULL, O_SERVE}, {"survive", no_argument, NULL, O_SURVIVE},
        {"ranks-per-node", required_argument, NULL, O_RPN},
        {"more-data-than-compute", no_argument, NULL, O_MORE},
        {"no-preload", no_argument, NULL, O_NOPRELOAD}, {"dry-run", no_argument, NULL, O_DRY},
        {"h", no_argument, NULL, O_HELP},            {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
    };
    enum { NOWN = sizeof own / sizeof own[0] };
    const char *const *one = ompi ? one_ompi : one_mpich, *const *two = ompi ? two_ompi : two_mpich;
    struct option opts[NOWN + 48];
    int nopt = 0;
    for (int i = 0; i < NOWN; i++)
        opts[nopt++] = own[i];
    /* the launcher's, named exactly, so none is read as a prefix of ours
     * ("-host" is not "--hostfile") */
    for (int i = 0; one[i]; i++)
        opts[nopt++] = (struct option){one[i], required_argument, NULL, O_PASS1};
    for (int i = 0; two[i]; i++)
        opts[nopt++] = (struct option){two[i], required_argument, NULL, O_PASS2};
    opts[nopt] = (struct option){0};

    char **pass = calloc((size_t)argc + 1, sizeof *pass);
    int npass = 0, status = 0;
    opterr = 0;
    int ch;
    while (status == 0 && (ch = getopt_long_only(argc, argv, "+", opts, NULL)) != -1) {
        /* the option's word: the one before its value, unless "--opt=value" */
        int first = optind - 1 - (ch != '?' && ch != ':' && optarg && optarg == argv[optind - 1]);
        const char *word = argv[first];
        long *dst = ch == O_NP ? &np : ch == O_DP ? &dp : ch == O_RPN ? &ppn : NULL;
        if (dst && count_arg(optarg, dst) < 0) {
            fprintf(stderr, "ferry-run: %s needs a count, not '%s'\n", word, optarg);
            status = 2;
        }
        switch (ch) {
        case O_RPN: ppn_given = 1; break;
        case O_HOSTFILE: hostfile = optarg; break;
        case O_SERVE: serve = 1; break;
        case O_SURVIVE: survive = 1; break;
        case O_MORE: more_data = 1; break;
        case O_NOPRELOAD: preload = 0; break;
        case O_DRY: dry = 1; break;
        case O_HELP: usage(stdout); free(pass); return 0;
        case O_VERSION: printf("ferry-run, %s\n", ferry_version()); free(pass); return 0;
        case ':':
            fprintf(stderr, "ferry-run: %s needs a value\n", word);
            status = 2;
            break;
        case '?': /* a launcher option ferry-run does not know: to the launcher as it is */
        case O_PASS1:
        case O_PASS2: {
            for (int k = first; k < optind; k++)
                pass[npass++] = argv[k];
            const char *name = word + strspn(word, "-");
            hosts |= is_host_option(name);
            oversub |= !strcmp(name, "oversubscribe");
            if (ch == O_PASS2 && optind < argc)
                pass[npass++] = argv[optind++];
            break;
        }
        default: break;
        }
    }
    int prog = optind;
    const char *bad = status ? NULL
                    : ppn_given && ppn < 1 ? "--ranks-per-node needs at least 1 rank per node"
                    : ppn > (1 << 20) ? "--ranks-per-node is at most 1048576"
                    : np >= 1 && dp > np && !more_data
                        ? "-dp is larger than -np: most data processes would have no compute process to serve "
                          "(only reads split by FERRY_DECOUPLE_SPLIT use them); give --more-data-than-compute if that is meant"
                    : NULL;
    if (bad) {
        fprintf(stderr, "ferry-run: %s (-np %ld -dp %ld)\n", bad, np, dp);
        status = 2;
    }
    if (!status && (np < 1 || prog >= argc)) {
        fprintf(stderr, "ferry-run: %s\n", np < 1 ? "-np N (at least one compute process) is required"
                                                  : "no program to run");
        usage(stderr);
        status = 2;
    }
    char lib[PATH_MAX + 32] = "";
    if (!status && preload && libferry_path(lib, sizeof lib) != 0) {
        fprintf(stderr, "ferry-run: libferry.so.0 is not in ../lib beside ferry-run (%s); give --no-preload if "
                        "the program links it\n", lib[0] ? lib : "its own path is unknown");
        status = 2;
    }
    if (status) {
        free(pass);
        return status;
    }
    /* ferry first, then whatever the caller preloads already */
    const char *user_pre = getenv("LD_PRELOAD");
    char pre[2 * PATH_MAX + 64] = "";
    if (preload)
        snprintf(pre, sizeof pre, "%s%s%s", lib, user_pre && *user_pre ? ":" : "", user_pre ? user_pre : "");

    char **cmd = calloc((size_t)(argc + 40), sizeof *cmd);
    int n = 0;
    char total[32], dps[32], rpn[32], xdps[64], xserve[64], xrpn[64], xpre[sizeof pre + 16];
    snprintf(total, sizeof total, "%ld", np + dp);
    cmd[n++] = (char *)mpiexec;
    cmd[n++] = "-n";
    cmd[n++] = total;
    if (ompi) {
        /* the launcher refuses more ranks than cores unless told otherwise */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (!hostfile && !hosts && !oversub && np + dp > cores)
            cmd[n++] = "--oversubscribe";
        if (geteuid() == 0) {
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        }
    }
    if (hostfile) {
        cmd[n++] = ompi ? "--hostfile" : "-f";
        cmd[n++] = (char *)hostfile;
    }
    if (survive)
        cmd[n++] = ompi ? "--enable-recovery" : "-disable-auto-cleanup";
    snprintf(dps, sizeof dps, "%ld", dp);
    n = env_arg(cmd, n, ompi, "FERRY_DATA_PROCS", dps, xdps, sizeof xdps);
    if (serve)
        n = env_arg(cmd, n, ompi, "FERRY_DECOUPLE_SERVE", "init", xserve, sizeof xserve);
    if (ppn > 0) {
        snprintf(rpn, sizeof rpn, "%ld", ppn);
        n = env_arg(cmd, n, ompi, "FERRY_RANKS_PER_NODE", rpn, xrpn, sizeof xrpn);
    }
    if (pre[0])
        n = env_arg(cmd, n, ompi, "LD_PRELOAD", pre, xpre, sizeof xpre);
    for (int i = 0; i < npass; i++)
        cmd[n++] = pass[i];
    for (int i = prog; i < argc; i++)
        cmd[n++] = argv[i];
    cmd[n] = NULL;
    if (dry) {
        for (int i = 0; i < n; i++)
            printf("%s%s", i ? " " : "", cmd[i]);
        printf("\n");
    } else {
        execvp(cmd[0], cmd);
        fprintf(stderr, "ferry-run: cannot run %s: ", cmd[0]);
        perror(NULL);
        status = 127;
    }
    free(cmd);
    free(pass);
    return status;
}
