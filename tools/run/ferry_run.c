/*
 * ferry-run: starts N compute and M data processes of one program with the
 * MPI library's own launcher (the one this build was made for), and tells
 * ferry how many of the ranks are data processes.
 *
 *   ferry-run -np N -dp M [-f hostfile] [ferry-run options] [mpiexec options] [--] ./app args...
 *
 * Which ranks become data processes is ferry's decision (docs/decoupled.md):
 * whole nodes when M is a multiple of the ranks per node, otherwise spread
 * over the nodes. The launcher only places N+M ranks on slots as usual.
 */
#define _GNU_SOURCE
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
            "  -np N, -n N           compute processes\n"
            "  -dp M                 data processes (default 0: traditional I/O, same program)\n"
            "  -f FILE, --hostfile FILE  hosts, passed to the launcher\n"
            "  --serve-in-init       data processes serve inside MPI_Init and never run the program\n"
            "  --survive             keep compute processes running when a data process dies\n"
            "                        (they get an MPI error instead of being killed with it)\n"
            "  --ranks-per-node K    treat each K consecutive ranks as a node (one-host testing)\n"
            "  --more-data-than-compute  allow -dp above -np (the extra data processes only serve split reads)\n"
            "  --dry-run             print the launcher command instead of running it\n"
            "launcher: %s (%s); FERRY_MPIEXEC overrides it\n",
            FERRY_RUN_MPIEXEC, FERRY_RUN_FLAVOR);
}

/* Launcher options that take values, so the program is found after them. */
static int values_of(const char *opt, int ompi)
{
    static const char *const one_ompi[] = {
        "-x", "--map-by", "-map-by", "--rank-by", "-rank-by", "--bind-to", "-bind-to", "-H", "--host", "-host",
        "-machinefile", "--machinefile", "--prefix", "-prefix", "-wdir", "--wdir", "-wd", "--output-filename",
        "-output-filename", "--npernode", "-npernode", "-N", "--cpus-per-proc", "-cpus-per-proc", "--timeout",
        "-timeout", "-am", "--am", "-tune", "--tune", "--path", "-path", "--preload-files", "-s", "--report-uri",
        NULL};
    static const char *const one_mpich[] = {
        "-genvlist", "-envlist", "-hosts", "-host", "-ppn", "-bind-to", "-map-by", "-wdir", "-configfile",
        "-launcher", "-iface", "-errfile-pattern", "-outfile-pattern", "-rmk", "-launcher-exec", "-prepend-pattern",
        "-profile", "-demux", "-machinefile", NULL};
    const char *const *one = ompi ? one_ompi : one_mpich;
    if (ompi && (!strcmp(opt, "--mca") || !strcmp(opt, "-mca") || !strcmp(opt, "--gmca") || !strcmp(opt, "-gmca")))
        return 2;
    if (!ompi && (!strcmp(opt, "-genv") || !strcmp(opt, "-env")))
        return 2;
    for (int i = 0; one[i]; i++)
        if (!strcmp(opt, one[i]))
            return 1;
    return 0;
}

static int is_host_option(const char *opt)
{
    return !strcmp(opt, "-H") || !strcmp(opt, "--host") || !strcmp(opt, "-host") || !strcmp(opt, "-hosts") ||
           !strcmp(opt, "-machinefile") || !strcmp(opt, "--machinefile");
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

int main(int argc, char **argv)
{
    const char *mpiexec = getenv("FERRY_MPIEXEC");
    if (!mpiexec || !*mpiexec)
        mpiexec = FERRY_RUN_MPIEXEC;
    int ompi = !strcmp(FERRY_RUN_FLAVOR, "openmpi");
    long np = -1, dp = 0, ppn = 0;
    const char *hostfile = NULL;
    int serve = 0, survive = 0, dry = 0, hosts = 0, oversub = 0, ppn_given = 0, more_data = 0;
    char **pass = calloc((size_t)argc + 1, sizeof *pass);
    int npass = 0, prog = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            prog = i + 1;
            break;
        }
        if (a[0] != '-') {
            prog = i;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(pass);
            return 0;
        }
        if ((!strcmp(a, "-np") || !strcmp(a, "-n") || !strcmp(a, "-c") || !strcmp(a, "-dp") ||
             !strcmp(a, "--ranks-per-node")) &&
            next) {
            long *dst = !strcmp(a, "-dp") ? &dp : !strcmp(a, "--ranks-per-node") ? &ppn : &np;
            ppn_given |= dst == &ppn;
            if (count_arg(next, dst) < 0) {
                fprintf(stderr, "ferry-run: %s needs a count, not '%s'\n", a, next);
                free(pass);
                return 2;
            }
            i++;
        } else if ((!strcmp(a, "-f") || !strcmp(a, "--hostfile") || !strcmp(a, "-hostfile")) && next) {
            hostfile = next;
            i++;
        } else if (!strcmp(a, "--serve-in-init")) {
            serve = 1;
        } else if (!strcmp(a, "--survive")) {
            survive = 1;
        } else if (!strcmp(a, "--more-data-than-compute")) {
            more_data = 1;
        } else if (!strcmp(a, "--dry-run")) {
            dry = 1;
        } else {
            int k = values_of(a, ompi);
            hosts |= is_host_option(a);
            oversub |= !strcmp(a, "--oversubscribe") || !strcmp(a, "-oversubscribe");
            pass[npass++] = argv[i];
            for (int v = 0; v < k && i + 1 < argc; v++)
                pass[npass++] = argv[++i];
        }
    }
    const char *bad = ppn_given && ppn < 1 ? "--ranks-per-node needs at least 1 rank per node"
                    : ppn > (1 << 20) ? "--ranks-per-node is at most 1048576"
                    : np >= 1 && dp > np && !more_data
                        ? "-dp is larger than -np: most data processes would have no compute process to serve "
                          "(only reads split by FERRY_DECOUPLE_SPLIT use them); give --more-data-than-compute if that is meant"
                    : NULL;
    if (bad) {
        fprintf(stderr, "ferry-run: %s (-np %ld -dp %ld)\n", bad, np, dp);
        free(pass);
        return 2;
    }
    if (np < 1 || prog < 0 || prog >= argc) {
        fprintf(stderr, "ferry-run: %s\n", np < 1 ? "-np N (at least one compute process) is required"
                                                  : "no program to run");
        usage(stderr);
        free(pass);
        return 2;
    }

    char **cmd = calloc((size_t)(argc + 32), sizeof *cmd);
    int n = 0;
    char total[32], dps[64], rpn[64];
    snprintf(total, sizeof total, "%ld", np + dp);
    cmd[n++] = (char *)mpiexec;
    cmd[n++] = "-n";
    cmd[n++] = total;
    if (ompi) {
        /* the launcher refuses more ranks than cores unless told otherwise */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (!hostfile && !hosts && !oversub && np + dp > cores)
            cmd[n++] = "--oversubscribe";
        if (hostfile) {
            cmd[n++] = "--hostfile";
            cmd[n++] = (char *)hostfile;
        }
        if (survive)
            cmd[n++] = "--enable-recovery";
        snprintf(dps, sizeof dps, "FERRY_DATA_PROCS=%ld", dp);
        cmd[n++] = "-x";
        cmd[n++] = dps;
        if (serve) {
            cmd[n++] = "-x";
            cmd[n++] = "FERRY_DECOUPLE_SERVE=init";
        }
        if (ppn > 0) {
            snprintf(rpn, sizeof rpn, "FERRY_RANKS_PER_NODE=%ld", ppn);
            cmd[n++] = "-x";
            cmd[n++] = rpn;
        }
        if (geteuid() == 0) {
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        }
    } else {
        if (hostfile) {
            cmd[n++] = "-f";
            cmd[n++] = (char *)hostfile;
        }
        if (survive)
            cmd[n++] = "-disable-auto-cleanup";
        snprintf(dps, sizeof dps, "%ld", dp);
        cmd[n++] = "-genv";
        cmd[n++] = "FERRY_DATA_PROCS";
        cmd[n++] = dps;
        if (serve) {
            cmd[n++] = "-genv";
            cmd[n++] = "FERRY_DECOUPLE_SERVE";
            cmd[n++] = "init";
        }
        if (ppn > 0) {
            snprintf(rpn, sizeof rpn, "%ld", ppn);
            cmd[n++] = "-genv";
            cmd[n++] = "FERRY_RANKS_PER_NODE";
            cmd[n++] = rpn;
        }
    }
    for (int i = 0; i < npass; i++)
        cmd[n++] = pass[i];
    for (int i = prog; i < argc; i++)
        cmd[n++] = argv[i];
    cmd[n] = NULL;
    int status = 0;
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
