#include "core/machine.h"
#include "core/nodes.h"
#include "core/say.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static ferry_topo_machine *machine;
static int my_node = -1;
static int mapped;

static int world_rank(void)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* The whole map file as one string, or NULL. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    size_t n = 0, cap = 4096;
    char *txt = malloc(cap);
    while (txt) {
        n += fread(txt + n, 1, cap - n - 1, fp);
        if (n < cap - 1)
            break;
        char *t = realloc(txt, cap * 2);
        if (!t) {
            free(txt);
            txt = NULL;
            break;
        }
        txt = t, cap *= 2;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (txt && bad) {
        free(txt);
        return NULL;
    }
    if (txt)
        txt[n] = 0;
    return txt;
}

/* The node of this host in the map; warns (from this rank: hosts differ) on failure. */
static int mapped_node(const char *spec, const char *path)
{
    char host[256] = "", err[200] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(err, sizeof err, "no host name");
    char *txt = err[0] ? NULL : slurp(path);
    int node = -1;
    if (txt)
        node = ferry_topo_hostmap_node(machine, txt, host, err, sizeof err);
    else if (!err[0])
        snprintf(err, sizeof err, "cannot read %s", path);
    free(txt);
    if (node < 0)
        ferry_say(FERRY_WARN, "FERRY_TOPOLOGY=%s: rank %d on %s has no node: %s", spec, world_rank(), host, err);
    return node;
}

static void load(void)
{
    const char *env = getenv("FERRY_TOPOLOGY");
    if (!env || !*env)
        return;
    char spec[512];
    snprintf(spec, sizeof spec, "%s", env);
    char *at = strchr(spec, '@');
    if (at)
        *at++ = 0;
    char err[200] = "";
    if (ferry_topo_create(spec, &machine, err, sizeof err) != 0) {
        if (world_rank() == 0)
            ferry_say(FERRY_WARN, "FERRY_TOPOLOGY=%s ignored: %s", env, err);
        machine = NULL;
        return;
    }
    if (at) {
        mapped = 1;
        my_node = mapped_node(env, at);
    } else {
        int ppn = ferry_nodes_virtual_ppn();
        my_node = ferry_topo_rank_node(machine, world_rank(), ppn > 0 ? ppn : 1);
    }
}

const ferry_topo_machine *ferry_machine(void)
{
    pthread_once(&once, load);
    return machine;
}

int ferry_machine_my_node(void)
{
    pthread_once(&once, load);
    return my_node;
}

int ferry_machine_mapped(void)
{
    pthread_once(&once, load);
    return mapped && machine;
}

int ferry_machine_comm_nodes(MPI_Comm comm, int *out)
{
    int mine = ferry_machine() ? my_node : -1, lowest = -1;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
    if (lowest < 0 || !out) {
        /* a rank without room still had to join; tell the others in a second round */
        int ok = out != NULL, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
        return -1;
    }
    int ok = 1, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all)
        return -1;
    MPI_Allgather(&mine, 1, MPI_INT, out, 1, MPI_INT, comm);
    return 0;
}
