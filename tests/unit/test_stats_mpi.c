/*
 * ferry_stats_report over 2 (or more) ranks: every rank fills different
 * counters; rank 0 reads back the JSON record and checks the sums, the
 * aggregator count, min/max/avg of the timers, and the strategy taken from
 * the lowest rank that decided each kind. Also ferry_hints_agree.
 */
#include <jansson.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hints.h"
#include "core/stats.h"
#include "unit/check.h"

static int has(const char *text, const char *want)
{
    if (strstr(text, want))
        return 1;
    fprintf(stderr, "record lacks %s\n", want);
    return 0;
}

/* timers[phase][what], or -1 where the record lacks it */
static double timer(json_t *timers, const char *phase, const char *what)
{
    json_t *v = json_object_get(json_object_get(timers, phase), what);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void test_agree(MPI_Comm comm, int rank)
{
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_set(&h, "cb_buffer_size", "8m", &w);     /* same everywhere */
    ferry_hints_set(&h, "direct_read", rank ? "true" : "false", &w); /* local: may differ */
    char v[16];
    snprintf(v, sizeof v, "%d", rank + 1);
    ferry_hints_set(&h, "cb_nodes", v, &w);              /* differs */
    ferry_hints_set(&h, "ferry_write_strategy", rank ? "local" : "twophase", &w); /* differs */
    int reset = ferry_hints_agree(&h, comm, &w);
    CHECK(reset == 2);
    CHECK(w.n == 2);
    CHECK(w.n >= 1 && strstr(w.msg[0], "cb_nodes") != NULL);
    CHECK(w.n >= 2 && strstr(w.msg[1], "ferry_write_strategy") != NULL);
    CHECK(h.cb_nodes == 0 && h.write_strategy == FERRY_COLL_AUTO);
    CHECK(h.cb_buffer_size == 8 << 20);
    CHECK(h.direct_read == (rank ? 1 : 0));
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_DEFAULT);
    /* now every digest is the same */
    uint64_t d = ferry_hints_digest(&h), dmin, dmax;
    MPI_Allreduce(&d, &dmin, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(&d, &dmax, 1, MPI_UINT64_T, MPI_MAX, comm);
    CHECK(dmin == dmax);
    ferry_hint_warnings w2 = {0};
    CHECK(ferry_hints_agree(&h, comm, &w2) == 0 && w2.n == 0);
}

/* FERRY_HINTS_FILE is read by rank 0 only and reaches every rank */
static void test_env_comm(MPI_Comm comm, int rank, const char *dir)
{
    char path[512];
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, comm);
    snprintf(path, sizeof path, "%s/hints_comm_%d.txt", dir, pid);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs("cb_buffer_size 2m\nferry_write_strategy local\nbad line here\n", f);
            fclose(f);
        }
        setenv("FERRY_HINTS_FILE", path, 1);
    } else {
        setenv("FERRY_HINTS_FILE", "/nonexistent/not/read/here", 1);
    }
    setenv("FERRY_HINTS", "*.dat:cb_nodes=3", 1);
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_env_comm(&h, "/x/y.dat", comm, &w);
    CHECK(h.cb_buffer_size == 2 << 20);
    CHECK(h.write_strategy == FERRY_COLL_LOCAL);
    CHECK(h.cb_nodes == 3);
    CHECK(ferry_hints_source_of(&h, "cb_buffer_size") == FERRY_HINT_SRC_FILE);
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_ENV);
    CHECK_MSG(w.n == 1, "%d warnings", w.n); /* the bad line, on every rank */
    unsetenv("FERRY_HINTS");
    unsetenv("FERRY_HINTS_FILE");
    /* no file anywhere: still collective, nothing applied */
    ferry_hint_warnings w2 = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_env_comm(&h, "/x/y.dat", comm, &w2);
    CHECK(w2.n == 0 && h.cb_buffer_size == 16 << 20);
    MPI_Barrier(comm);
    if (rank == 0)
        unlink(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    const char *dir = getenv("FERRY_TEST_TMP");
    if (!dir || !*dir)
        dir = "/tmp";
    test_agree(comm, rank);
    test_env_comm(comm, rank, dir);

    /* one record file per run: rank 0's pid names it */
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, comm);
    char path[512];
    snprintf(path, sizeof path, "%s/stats_mpi_%d.json", dir, pid);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(comm);
    setenv("FERRY_STATS", "1", 1);
    setenv("FERRY_TIMERS", "1", 1);
    setenv("FERRY_STATS_JSON", path, 1);
    CHECK(ferry_stats_enabled());
    CHECK(ferry_env_stats() == 1 && ferry_env_timers() == 1);
    CHECK(ferry_env_stats_json() && strcmp(ferry_env_stats_json(), path) == 0);

    ferry_stats s;
    ferry_stats_init(&s);
    int r = rank;
    s.ind_reads = 1 + r;
    s.ind_writes = 10 * (r + 1);
    s.coll_writes = 3;
    s.bytes_written = 1000 * (r + 1);
    s.bytes_read = 7;
    s.sys_writes = 2 + r;
    s.sys_write_bytes = 4096 * (r + 1);
    s.rmw_count = r;
    s.rmw_bytes = 100 * r;
    s.write_gaps = 1;
    s.write_gap_bytes = 512;
    s.aggregator = r == size - 1 ? 5 : 0; /* non-zero counts as one aggregator */
    s.phase[FERRY_PHASE_OPEN] = 1.0 + r;
    s.phase[FERRY_PHASE_WRITE] = 0.5 * (r + 1);
    if (rank == 0)
        ferry_stats_strategy(&s, FERRY_KIND_COLL_WRITE, "twophase", "interleaved");
    if (rank >= 1) {
        ferry_stats_strategy(&s, FERRY_KIND_COLL_WRITE, "local", "not rank 0's");
        ferry_stats_strategy(&s, FERRY_KIND_IND_WRITE, "sieve", "gap \"small\"");
    }

    ferry_hints h;
    ferry_hints_defaults(&h);
    char hj[4096];
    ferry_hints_to_json(&h, hj, sizeof hj);
    ferry_stats_report(&s, comm, "/data/out \"x\".h5", hj, 1, NULL);
    ferry_stats_report(&s, comm, "/data/second.h5", NULL, 1, NULL);

    if (rank == 0) {
        FILE *f = fopen(path, "r");
        CHECK(f != NULL);
        static char text[1 << 16];
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        char *nl = strchr(text, '\n');
        CHECK(nl != NULL);
        CHECK(nl && strchr(nl + 1, '\n') == text + n - 1); /* two lines, one per report */
        if (nl)
            *nl = '\0';
        char want[256];
        int64_t P = size;
        CHECK(has(text, "\"file\":\"/data/out \\\"x\\\".h5\""));
        snprintf(want, sizeof want, "\"ranks\":%d,\"nodes\":1,", size);
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"ind_reads\":%lld,", (long long)(P * (P + 1) / 2));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"ind_writes\":%lld,", (long long)(10 * P * (P + 1) / 2));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"coll_writes\":%lld,", (long long)(3 * P));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"bytes_read\":%lld,\"bytes_written\":%lld,", (long long)(7 * P),
                 (long long)(1000 * P * (P + 1) / 2));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"sys_writes\":%lld,", (long long)(2 * P + P * (P - 1) / 2));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"rmw_count\":%lld,\"rmw_bytes\":%lld,", (long long)(P * (P - 1) / 2),
                 (long long)(100 * P * (P - 1) / 2));
        CHECK(has(text, want));
        snprintf(want, sizeof want, "\"write_gaps\":%lld,\"write_gap_bytes\":%lld,", (long long)P,
                 (long long)(512 * P));
        CHECK(has(text, want));
        CHECK(has(text, "\"aggregators\":1,"));
        CHECK(has(text, "\"coll_write\":{\"strategy\":\"twophase\",\"reason\":\"interleaved\","));
        snprintf(want, sizeof want, "\"calls\":%d,\"rank\":0}", size);
        CHECK(has(text, want));
        CHECK(has(text, "\"ind_write\":{\"strategy\":\"sieve\",\"reason\":\"gap \\\"small\\\"\","));
        snprintf(want, sizeof want, "\"calls\":%d,\"rank\":1}", size - 1);
        CHECK(has(text, want));
        CHECK(has(text, "\"ind_read\":{\"strategy\":\"none\""));
        /* open: 1..P, write: 0.5..0.5P (numbers, however jansson prints them) */
        json_t *rec = json_loads(text, 0, NULL);
        json_t *timers = json_object_get(rec, "timers");
        CHECK(timer(timers, "open", "min") == 1 && timer(timers, "open", "max") == (double)P &&
              timer(timers, "open", "avg") == (1.0 + P) / 2);
        CHECK(timer(timers, "write", "min") == 0.5 && timer(timers, "write", "max") == 0.5 * P &&
              timer(timers, "write", "avg") == 0.5 * (1.0 + P) / 2);
        CHECK(timer(timers, "read", "min") == 0 && timer(timers, "read", "max") == 0 &&
              timer(timers, "read", "avg") == 0);
        json_decref(rec);
        CHECK(has(text, "\"hints\":{\"cb_buffer_size\":16777216,"));
        CHECK(has(text, "\"time\":"));
        CHECK(text[strlen(text) - 1] == '}');
        CHECK(nl && strstr(nl + 1, "\"file\":\"/data/second.h5\"") && strstr(nl + 1, "\"hints\":{},"));
        unlink(path);
    }

    int fails = check_failures, any = 0;
    MPI_Allreduce(&fails, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rank == 0)
        printf(any ? "test_stats_mpi: checks failed\n" : "test_stats_mpi: all checks passed\n");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return any != 0;
}
