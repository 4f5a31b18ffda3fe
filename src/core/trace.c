#define _GNU_SOURCE
#include "core/trace.h"
#include "core/machine.h"
#include "core/nodes.h"
#include "util/json.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rec {
    int dst;
    int64_t bytes;
} rec;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rec *recs;
static size_t n, cap;

int ferry_trace_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *p = getenv("FERRY_TRACE");
        on = p && *p;
    }
    return on;
}

static int world_rank_of(MPI_Comm comm, int r)
{
    MPI_Group g, w;
    int out = r;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &r, w, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

void ferry_trace_send(MPI_Comm comm, int dst, int64_t bytes)
{
    if (!ferry_trace_on() || bytes <= 0)
        return;
    int wd = world_rank_of(comm, dst);
    pthread_mutex_lock(&lock);
    if (n == cap) {
        size_t c = cap ? cap * 2 : 256;
        rec *nr = realloc(recs, c * sizeof *nr);
        if (!nr) {
            pthread_mutex_unlock(&lock);
            return;
        }
        recs = nr;
        cap = c;
    }
    recs[n++] = (rec){wd, bytes};
    pthread_mutex_unlock(&lock);
}

void ferry_trace_flush(int64_t write_bytes, int64_t write_calls)
{
    if (!ferry_trace_on())
        return;
    int me = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ppn = ferry_nodes_virtual_ppn();
    pthread_mutex_lock(&lock);
    int ok = 1;
    json_t *t = json_object();
    ferry_json_set(t, "ranks", json_integer(size), &ok);
    if (ppn > 0)
        ferry_json_set(t, "ranks_per_node", json_integer(ppn), &ok);
    /* real coordinates (FERRY_TOPOLOGY=SPEC@MAP): where this rank ran */
    if (ferry_machine_mapped() && ferry_machine_my_node() >= 0) {
        ferry_json_set(t, "rank", json_integer(me), &ok);
        ferry_json_set(t, "node", json_integer(ferry_machine_my_node()), &ok);
    }
    json_t *msgs = json_array();
    for (size_t i = 0; i < n && ok; i++) {
        json_t *m = json_object();
        ferry_json_set(m, "src", json_integer(me), &ok);
        ferry_json_set(m, "dst", json_integer(recs[i].dst), &ok);
        ferry_json_set(m, "bytes", json_integer(recs[i].bytes), &ok);
        ferry_json_push(msgs, m, &ok);
    }
    ferry_json_set(t, "messages", msgs, &ok);
    json_t *writes = json_array();
    if (write_bytes > 0) {
        json_t *w = json_object();
        ferry_json_set(w, "rank", json_integer(me), &ok);
        ferry_json_set(w, "bytes", json_integer(write_bytes), &ok);
        ferry_json_set(w, "calls", json_integer(write_calls), &ok);
        ferry_json_push(writes, w, &ok);
    }
    ferry_json_set(t, "writes", writes, &ok);
    char *txt = ok ? ferry_json_line(t) : NULL;
    json_decref(t);
    if (txt) {
        /* one write of one line: O_APPEND keeps lines from different ranks whole */
        int fd = open(getenv("FERRY_TRACE"), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            ssize_t w = write(fd, txt, strlen(txt));
            (void)w;
            close(fd);
        }
        free(txt);
    }
    n = 0;
    pthread_mutex_unlock(&lock);
}
