/*
 * Statistics without MPI: timers, strategy recording, the JSON record's
 * escaping and the atomic append, the tables' layout, what learning did as
 * the table, the record and the job report show it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/report.h"
#include "core/stats_internal.h"
#include "core/version.h"
#include "unit/check.h"

static void test_timers(void)
{
    ferry_stats s;
    ferry_stats_init(&s);
    double t0 = ferry_now();
    double t1 = ferry_now();
    CHECK(t1 >= t0);
    usleep(2000);
    double t2 = ferry_stats_phase(&s, FERRY_PHASE_WRITE, t0);
    CHECK(t2 > t0);
    CHECK(s.phase[FERRY_PHASE_WRITE] >= 0.002 && s.phase[FERRY_PHASE_WRITE] < 5.0);
    CHECK(s.phase[FERRY_PHASE_READ] == 0.0);
    double before = s.phase[FERRY_PHASE_WRITE];
    ferry_stats_phase(&s, FERRY_PHASE_WRITE, t2);
    CHECK(s.phase[FERRY_PHASE_WRITE] >= before);
    ferry_stats_phase(&s, FERRY_PHASE_COUNT, t0); /* out of range: ignored */
    ferry_stats_phase(NULL, FERRY_PHASE_OPEN, t0);
    CHECK_STR(ferry_phase_name(FERRY_PHASE_META), "meta");
    CHECK_STR(ferry_phase_name(FERRY_PHASE_WAIT), "wait");
    CHECK_STR(ferry_kind_name(FERRY_KIND_COLL_WRITE), "coll_write");
}

static void test_strategy(void)
{
    ferry_stats s;
    ferry_stats_init(&s);
    ferry_stats_strategy(&s, FERRY_KIND_COLL_WRITE, "twophase", "interleaved pattern");
    ferry_stats_strategy(&s, FERRY_KIND_COLL_WRITE, "local", "many ranks per node");
    CHECK_STR(s.strategy[FERRY_KIND_COLL_WRITE], "local");
    CHECK_STR(s.reason[FERRY_KIND_COLL_WRITE], "many ranks per node");
    CHECK(s.strategy_calls[FERRY_KIND_COLL_WRITE] == 2);
    char longs[400];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    ferry_stats_strategy(&s, FERRY_KIND_IND_READ, longs, longs); /* truncated, terminated */
    CHECK(strlen(s.strategy[FERRY_KIND_IND_READ]) == sizeof s.strategy[0] - 1);
    CHECK(strlen(s.reason[FERRY_KIND_IND_READ]) == FERRY_REASON_LEN - 1);
    ferry_stats_strategy(&s, FERRY_KIND_IND_WRITE, NULL, NULL);
    CHECK(s.strategy_calls[FERRY_KIND_IND_WRITE] == 1);
    ferry_stats_strategy(&s, FERRY_KIND_COUNT, "x", "y"); /* ignored */
}

static ferry_stats_total sample(void)
{
    ferry_stats_total t;
    memset(&t, 0, sizeof t);
    t.ranks = 4;
    t.nodes = 2;
    for (int i = 0; i < ferry_stats_ncounters; i++)
        t.counter[i] = strcmp(ferry_stats_counters[i].name, "bytes_written") == 0 ? 3 * 1024 + 512 : 1000 + i;
    for (int k = 0; k < FERRY_KIND_COUNT; k++)
        t.from_rank[k] = -1;
    t.calls[FERRY_KIND_COLL_WRITE] = 3;
    t.from_rank[FERRY_KIND_COLL_WRITE] = 2;
    snprintf(t.strategy[FERRY_KIND_COLL_WRITE], sizeof t.strategy[0], "twophase");
    snprintf(t.reason[FERRY_KIND_COLL_WRITE], sizeof t.reason[0], "say \"hi\"\\\n\t\x01");
    for (int p = 0; p < FERRY_PHASE_COUNT; p++) {
        t.tmin[p] = 0.25 * p;
        t.tmax[p] = 0.5 * p;
        t.tavg[p] = 0.375 * p;
    }
    return t;
}

static void test_json(void)
{
    ferry_stats_total t = sample();
    /* quote, backslash, newline, control, valid UTF-8 (é), an invalid byte (U+FFFD) */
    const char *name = "/tmp/a\"b\\c\nd\x02\xc3\xa9\xff.h5";
    char *line = ferry_stats_json_record(&t, name, "{\"cb_nodes\":4}", 1700000000LL);
    CHECK(line != NULL);
    if (!line)
        return;
    size_t n = strlen(line);
    CHECK(n > 2 && line[n - 1] == '\n');
    CHECK(strchr(line, '\n') == line + n - 1); /* exactly one line */
    CHECK(strstr(line, "\"file\":\"/tmp/a\\\"b\\\\c\\nd\\u0002\xc3\xa9\xef\xbf\xbd.h5\"") != NULL);
    CHECK(strstr(line, "{\"schema\":1,\"ferry_version\":\"") == line);
    char ver[96];
    snprintf(ver, sizeof ver, "\"ferry_version\":\"%s\",\"mpi\":\"%s\",", ferry_version_number(), ferry_version_flavor());
    CHECK(strstr(line, ver) != NULL);
    CHECK(strcmp(ferry_version_number(), "0.0.0") != 0); /* CMake's project version reached the build */
    CHECK(strstr(line, "\"ranks\":4,\"nodes\":2,") != NULL);
    CHECK(strstr(line, "\"counters\":{\"ind_reads\":1000,\"ind_writes\":1001,") != NULL);
    CHECK(strstr(line, "\"aggregators\":1016") != NULL);
    CHECK(strstr(line, "\"coll_write\":{\"strategy\":\"twophase\",\"reason\":\"say \\\"hi\\\"\\\\\\n\\t\\u0001\","
                       "\"calls\":3,\"rank\":2}") != NULL);
    CHECK(strstr(line, "\"ind_read\":{\"strategy\":\"none\",\"reason\":\"\",\"calls\":0,\"rank\":-1}") != NULL);
    CHECK(strstr(line, "\"timers\":{\"open\":{\"min\":0.0,\"max\":0.0,\"avg\":0.0},\"meta\":{\"min\":0.25,\"max\":0.5,"
                       "\"avg\":0.375}") != NULL);
    CHECK(strstr(line, "\"hints\":{\"cb_nodes\":4},\"time\":1700000000}\n") != NULL);
    /* braces balance outside strings */
    int depth = 0, in = 0, minimum = 0;
    for (const char *p = line; *p; p++) {
        if (in) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                in = 0;
        } else if (*p == '"')
            in = 1;
        else if (*p == '{')
            depth++;
        else if (*p == '}')
            depth--;
        if (depth < minimum)
            minimum = depth;
    }
    CHECK(depth == 0 && minimum == 0 && !in);
    free(line);

    /* hints that are not an object become {}; an object is kept on the record's one line */
    line = ferry_stats_json_record(&t, NULL, "not json", 1);
    CHECK(line && strstr(line, "\"file\":\"\"") && strstr(line, "\"hints\":{},\"time\":1}"));
    free(line);
    line = ferry_stats_json_record(&t, "f", NULL, 1);
    CHECK(line && strstr(line, "\"hints\":{},"));
    free(line);
    line = ferry_stats_json_record(&t, "f", " {\"a\":\n1}", 1);
    CHECK(line && strstr(line, "\"hints\":{\"a\":1},") && strchr(line, '\n') == line + strlen(line) - 1);
    free(line);
}

static void test_append(void)
{
    const char *dir = getenv("FERRY_TEST_TMP");
    char path[512];
    snprintf(path, sizeof path, "%s/stats_append_%d.json", dir && *dir ? dir : "/tmp", (int)getpid());
    unlink(path);
    CHECK(ferry_stats_append(path, "{\"a\":1}\n") == 0);
    CHECK(ferry_stats_append(path, "{\"a\":2}\n") == 0);
    FILE *f = fopen(path, "r");
    char buf[64] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == 16 && strcmp(buf, "{\"a\":1}\n{\"a\":2}\n") == 0);
    unlink(path);
    CHECK(ferry_stats_append("/nonexistent/dir/x.json", "{}\n") < 0);
}

static void test_tables(void)
{
    ferry_stats_total t = sample();
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ferry_stats_print_table(&t, "/data/out.h5", mem);
    ferry_stats_print_timers(&t, "/data/out.h5", mem);
    fclose(mem);
    CHECK(text != NULL);
    if (!text)
        return;
    /* the version and the MPI in every display */
    char head[128];
    snprintf(head, sizeof head, "ferry: statistics for \"/data/out.h5\", ferry %s (%s)\n", ferry_version_number(),
             ferry_version_flavor());
    CHECK(strstr(text, head) == text);
    CHECK(strstr(text, "ranks 4, nodes 2, aggregators 1016 of 4 ranks") != NULL);
    CHECK(strstr(text, "independent calls") != NULL);
    CHECK(strstr(text, "collective calls") != NULL);
    CHECK(strstr(text, "system calls") != NULL);
    CHECK(strstr(text, "average size") != NULL);
    CHECK(strstr(text, "read-modify-write rounds") != NULL);
    CHECK(strstr(text, "gaps") != NULL);
    CHECK(strstr(text, "twophase") != NULL);
    CHECK(strstr(text, "(rank 2)") != NULL);
    CHECK(strstr(text, "3.5 KiB") != NULL);
    snprintf(head, sizeof head, "ferry: timers for \"/data/out.h5\", ferry %s (%s): seconds over 4 ranks\n",
             ferry_version_number(), ferry_version_flavor());
    CHECK(strstr(text, head) != NULL);
    CHECK(strstr(text, "metadata exchange") != NULL);
    CHECK(strstr(text, "3.500000") != NULL); /* wait max: 0.5 * 7 */
    /* aligned: every row of the counter table puts its numbers at the same column */
    const char *a = strstr(text, "  independent calls");
    const char *b = strstr(text, "  collective calls");
    CHECK(a && b);
    if (a && b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        CHECK(ea - a == eb - b);
    }
    if (getenv("FERRY_TEST_VERBOSE"))
        fputs(text, stderr);
    free(text);
}

static int64_t *counter_of(ferry_stats_total *t, const char *name)
{
    for (int i = 0; i < ferry_stats_ncounters; i++)
        if (!strcmp(ferry_stats_counters[i].name, name))
            return &t->counter[i];
    return NULL;
}

/* What learning did, as FERRY_STATS, the record and the job report show it. */
static void test_learning(void)
{
    ferry_stats_total t[3];
    memset(t, 0, sizeof t);
    const char *names[3] = {"/scratch/run/ckpt.0001", "/scratch/run/ckpt.0002", "/scratch/run/mesh.dat"};
    for (int i = 0; i < 3; i++) {
        t[i].ranks = 8;
        t[i].nodes = 4;
        *counter_of(&t[i], "bytes_written") = 4 << 20;
        *counter_of(&t[i], "coll_writes") = 80;
        t[i].calls[FERRY_KIND_COLL_WRITE] = 80;
        snprintf(t[i].strategy[FERRY_KIND_COLL_WRITE], sizeof t[i].strategy[0], "twophase");
        t[i].tmax[FERRY_PHASE_WRITE] = 0.5;
        t[i].learn_agreed[1] = 1;
    }
    ferry_learn_summary *l = &t[1].learn[1];
    l->active = 1;
    l->patterns = 1;
    l->calls = 10;
    l->trials = 3;
    l->nopt = 3;
    snprintf(l->opt[0].name, sizeof l->opt[0].name, "local");
    l->opt[0].calls = 1;
    l->opt[0].best = l->opt[0].typical = 0.0216;
    snprintf(l->opt[1].name, sizeof l->opt[1].name, "independent");
    l->opt[1].best = l->opt[1].typical = 0.5;
    l->opt[1].prior = 1;
    snprintf(l->opt[2].name, sizeof l->opt[2].name, "twophase cb_nodes=1");
    l->opt[2].calls = 8;
    l->opt[2].best = 0.012;
    l->opt[2].typical = 0.0125; /* compared by the median of its last calls, not its fastest */
    snprintf(l->rule, sizeof l->rule, "local");
    snprintf(l->chosen, sizeof l->chosen, "twophase cb_nodes=1");
    snprintf(l->first, sizeof l->first, "local");
    snprintf(l->first_why, sizeof l->first_why, "local: 480 B pieces");
    snprintf(l->why, sizeof l->why, "fastest measured: 41.67x faster than independent (3 of 3 options measured)");
    snprintf(l->key.fs, sizeof l->key.fs, "fuse.glusterfs");
    snprintf(l->key.mount, sizeof l->key.mount, "/mnt/\"x\"");
    l->key.write = 1;
    l->key.ranks = 8;
    l->key.nodes = 4;
    l->key.bytes = 4 << 20;
    l->key.pieces = 8192;
    l->key.extent = 4 << 20;
    l->key.span = 32 << 20;

    /* the table's lines */
    char text[2048];
    CHECK(ferry_learn_summary_text(t[1].learn, t[1].learn_agreed, text, sizeof text) > 0);
    CHECK_MSG(strstr(text, "learned for collective writes (4.0 MiB per call in 8192 pieces of 512 B, interleaved, "
                           "8 ranks on 4 nodes):\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "first call: local (local: 480 B pieces)") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "tried local 1 call, 21.60 ms, independent 500.00 ms in an earlier run, "
                           "twophase cb_nodes=1 8 calls, typically 12.50 ms (best 12.00 ms)") != NULL, "%s", text);
    CHECK(strstr(text, "DISAGREED") == NULL);
    t[1].learn_agreed[1] = 0;
    ferry_learn_summary_text(t[1].learn, t[1].learn_agreed, text, sizeof text);
    CHECK(strstr(text, "RANKS DISAGREED") != NULL);
    t[1].learn_agreed[1] = 1;
    /* the record's member, valid JSON with the mount escaped */
    json_t *learn = ferry_learn_summary_object(t[1].learn, t[1].learn_agreed);
    char *json = learn ? json_dumps(learn, JSON_COMPACT) : NULL;
    json_decref(learn);
    CHECK(json && strstr(json, "\"coll_write\":{") && !strstr(json, "coll_read"));
    CHECK_MSG(json && strstr(json, "\"mount\":\"/mnt/\\\"x\\\"\"") && strstr(json, "\"agreed\":true") &&
                  strstr(json, "\"chosen\":\"twophase cb_nodes=1\"") && strstr(json, "\"from_store\":true"),
              "%s", json ? json : "(null)");
    free(json);

    /* the job report: groups by name, the learning, a recommendation with its measurements */
    char *r = ferry_report_text(t, names, 3, 8, "ferry 9.9");
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_MSG(strstr(r, "ferry job report, ferry 9.9: 8 ranks, 3 file opens in 2 groups, 0 B read, 12.0 MiB written") != NULL,
              "%s", r);
    CHECK_MSG(strstr(r, "  ckpt.*                       2     8") != NULL, "%s", r);
    CHECK(strstr(r, "  mesh.dat                     1     8") != NULL);
    CHECK(strstr(r, " write 1.500") != NULL); /* 3 opens of 0.5 s */
    CHECK_MSG(strstr(r, "writes of ckpt.*: twophase cb_nodes=1: fastest measured") != NULL, "%s", r);
    CHECK_MSG(strstr(r, "  - writes of ckpt.* were 1.73x faster with twophase cb_nodes=1 than with local, auto's "
                        "rules' choice (typical call 0.0125 s against 0.0216 s, both measured in this run).") != NULL,
              "%s", r);
    CHECK(strstr(r, "FERRY_HINTS=\"ckpt.*:ferry_write_strategy=twophase:cb_nodes=1\"") != NULL);
    free(r);
    /* no measured gain of 10 %: no recommendation, and the report says why */
    l->opt[0].typical = 0.013;
    r = ferry_report_text(t, names, 3, 8, "ferry 9.9");
    CHECK(r && strstr(r, "none: no measured alternative beat auto's rules by 10% or more") != NULL);
    free(r);
    /* one call, one trial: counted in the singular */
    l->calls = 1;
    l->trials = 1;
    ferry_learn_summary_text(t[1].learn, t[1].learn_agreed, text, sizeof text);
    CHECK_MSG(strstr(text, "    1 call, 1 trial; tried") != NULL, "%s", text);
    r = ferry_report_text(t, names, 3, 8, "ferry 9.9");
    CHECK_MSG(r && strstr(r, "(1 call, 1 trial)") != NULL, "%s", r ? r : "(null)");
    free(r);
    l->calls = 10;
    l->trials = 3;
    /* a job that opened no file says so, not just zeros */
    r = ferry_report_text(t, names, 0, 8, "ferry 9.9");
    CHECK_MSG(r && strstr(r, "0 file opens in 0 groups") && strstr(r, "  none: no file was opened through ferry"),
              "%s", r ? r : "(null)");
    free(r);
}

int main(void)
{
    test_timers();
    test_strategy();
    test_json();
    test_append();
    test_tables();
    test_learning();
    if (check_failures)
        fprintf(stderr, "test_stats: %d checks failed\n", check_failures);
    else
        printf("test_stats: all checks passed\n");
    return check_failures != 0;
}
