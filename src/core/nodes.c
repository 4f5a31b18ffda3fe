#include "core/nodes.h"
#include "core/finalize.h"
#include "core/say.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which ranks share a node is a property of the processes, not of a file:
 * one layout per distinct group of ranks, kept until MPI_Finalize. A split
 * per open file would cost a communicator each, and MPICH has 2048 in all
 * (1000 open files ran out). Every rank of a group decides alike: it has an
 * entry for the group exactly when every member built one with it.
 *
 * At MPI_THREAD_MULTIPLE the layout is kept per group and program
 * communicator (its owner): threads may use files of one group at once,
 * each thread over communicators of its own, and the strategies'
 * collectives on a node communicator they shared met each other's
 * (MPI_ERR_TRUNCATE, seen with 4 threads per rank); one per file instead
 * ran MPICH out of communicators with 1000 files open. Such a layout goes
 * when its owner does (ferry_nodes_forget), so a program that makes a
 * communicator per file holds no node communicators for closed files. */
typedef struct node_entry {
    MPI_Group group;
    const void *owner; /* NULL: the group's; else a program communicator's */
    ferry_nodes nodes;
    struct node_entry *next;
} node_entry;
static node_entry *cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void entry_free(node_entry *e)
{
    MPI_Group_free(&e->group);
    if (e->nodes.node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&e->nodes.node_comm);
    free(e->nodes.node_of);
    free(e);
}

static void cache_free(void)
{
    pthread_mutex_lock(&cache_lock);
    while (cache) {
        node_entry *e = cache;
        cache = e->next;
        entry_free(e);
    }
    pthread_mutex_unlock(&cache_lock);
}

void ferry_nodes_forget(const void *owner)
{
    if (!owner)
        return;
    node_entry *gone = NULL;
    pthread_mutex_lock(&cache_lock);
    for (node_entry **p = &cache; *p;) {
        node_entry *e = *p;
        if (e->owner == owner) {
            *p = e->next;
            e->next = gone;
            gone = e;
        } else {
            p = &e->next;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    while (gone) {
        node_entry *e = gone;
        gone = e->next;
        entry_free(e);
    }
}

static node_entry *cache_find(MPI_Group g, const void *owner)
{
    for (node_entry *e = cache; e; e = e->next) {
        int same = MPI_UNEQUAL;
        if (e->owner != owner)
            continue;
        MPI_Group_compare(g, e->group, &same);
        if (same == MPI_IDENT)
            return e;
    }
    return NULL;
}

static pthread_once_t ppn_once = PTHREAD_ONCE_INIT;
static int ppn_value;

/* A whole number from 1 to 2^20; anything else is refused with one
 * warning (world rank 0), and nodes are then the real hosts. */
static void ppn_read(void)
{
    const char *e = getenv("FERRY_RANKS_PER_NODE");
    if (!e || !*e)
        return;
    char *end;
    errno = 0;
    long long k = strtoll(e, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end != e && *end == '\0' && errno == 0 && k >= 1 && k <= (1 << 20)) {
        ppn_value = (int)k;
        return;
    }
    int init = 0, wrank = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0)
        ferry_say(FERRY_WARN,
                  "FERRY_RANKS_PER_NODE=\"%.40s\" ignored: expected a whole number of ranks "
                  "per node from 1 to %d; nodes are the real hosts",
                  e, 1 << 20);
}

int ferry_nodes_virtual_ppn(void)
{
    pthread_once(&ppn_once, ppn_read);
    return ppn_value;
}

/* A key naming my node, equal on every rank of comm that shares it: the
 * lowest rank of comm on that node. */
static int node_key(MPI_Comm comm, MPI_Comm *node_comm, int *virtual_nodes)
{
    int rank, wrank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int ppn = ferry_nodes_virtual_ppn();
    /* an MPMD launch may set it on some ranks only: one way for all */
    int v[2] = {ppn, -ppn}, r[2];
    MPI_Allreduce(v, r, 2, MPI_INT, MPI_MAX, comm);
    if (r[0] != -r[1]) {
        static atomic_int warned;
        if (rank == 0 && !atomic_exchange(&warned, 1))
            ferry_say(FERRY_WARN, "FERRY_RANKS_PER_NODE differs between ranks; nodes are the real hosts");
        ppn = 0;
    }
    *virtual_nodes = ppn > 0;
    if (ppn > 0)
        MPI_Comm_split(comm, wrank / ppn, rank, node_comm);
    else
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node_comm);
    int key = rank;
    MPI_Allreduce(&rank, &key, 1, MPI_INT, MPI_MIN, *node_comm);
    return key;
}

static int nodes_split(MPI_Comm comm, ferry_nodes *out)
{
    int size;
    MPI_Comm_size(comm, &size);
    out->node_comm = MPI_COMM_NULL;
    out->node_of = malloc((size_t)size * sizeof *out->node_of);
    int *keys = malloc((size_t)size * sizeof *keys);
    int *dense = malloc((size_t)size * sizeof *dense);
    int key = node_key(comm, &out->node_comm, &out->one_host);
    if (!out->node_of || !keys || !dense) {
        free(keys);
        free(dense);
        free(out->node_of);
        out->node_of = NULL;
        return MPI_ERR_NO_MEM;
    }
    MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, comm);
    /* Keys are ranks of comm; number nodes in order of first appearance. */
    for (int i = 0; i < size; i++)
        dense[i] = -1;
    int n = 0;
    for (int i = 0; i < size; i++) {
        if (dense[keys[i]] < 0)
            dense[keys[i]] = n++;
        out->node_of[i] = dense[keys[i]];
    }
    free(keys);
    free(dense);
    int rank;
    MPI_Comm_rank(comm, &rank);
    out->nnodes = n;
    out->my_node = out->node_of[rank];
    MPI_Comm_rank(out->node_comm, &out->node_rank);
    MPI_Comm_size(out->node_comm, &out->node_size);
    return MPI_SUCCESS;
}

/* The caller's copy of a kept layout: its own node_of, the kept node
 * communicator. */
static int copy_out(const node_entry *e, int size, ferry_nodes *out)
{
    *out = e->nodes;
    out->node_of = malloc((size_t)size * sizeof *out->node_of);
    if (!out->node_of)
        return MPI_ERR_NO_MEM;
    memcpy(out->node_of, e->nodes.node_of, (size_t)size * sizeof *out->node_of);
    return MPI_SUCCESS;
}

/* A copy of the cached layout for comm's group (built on first use); the
 * node communicator stays the cache's. */
int ferry_nodes_build(MPI_Comm comm, const void *owner, ferry_nodes *out)
{
    int size, level = MPI_THREAD_SINGLE;
    MPI_Comm_size(comm, &size);
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE)
        owner = NULL;
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    pthread_mutex_lock(&cache_lock);
    node_entry *e = cache_find(g, owner);
    pthread_mutex_unlock(&cache_lock);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) {
            MPI_Group_free(&g);
            return MPI_ERR_NO_MEM;
        }
        int rc = nodes_split(comm, &e->nodes);
        if (rc != MPI_SUCCESS) {
            if (e->nodes.node_comm != MPI_COMM_NULL)
                MPI_Comm_free(&e->nodes.node_comm);
            free(e);
            MPI_Group_free(&g);
            return rc;
        }
        e->group = g;
        e->owner = owner;
        ferry_at_finalize(cache_free);
        pthread_mutex_lock(&cache_lock);
        e->next = cache;
        cache = e;
        pthread_mutex_unlock(&cache_lock);
    } else {
        MPI_Group_free(&g);
    }
    return copy_out(e, size, out);
}

void ferry_nodes_free(ferry_nodes *n)
{
    /* the node communicator belongs to the cache */
    n->node_comm = MPI_COMM_NULL;
    free(n->node_of);
    n->node_of = NULL;
}

int ferry_nodes_build_own(MPI_Comm comm, ferry_nodes *out)
{
    int rc = nodes_split(comm, out);
    if (rc != MPI_SUCCESS && out->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&out->node_comm);
    return rc;
}

void ferry_nodes_free_own(ferry_nodes *n)
{
    if (n->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&n->node_comm);
    free(n->node_of);
    n->node_of = NULL;
}

int ferry_nodes_count(MPI_Comm comm, const void *owner)
{
    ferry_nodes n;
    if (ferry_nodes_build(comm, owner, &n) != MPI_SUCCESS)
        return 1;
    int c = n.nnodes;
    ferry_nodes_free(&n);
    return c;
}
