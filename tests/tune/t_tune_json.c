/*
 * ferry-tune's dotted-path reading (jansson) and proxy fitting, without MPI:
 * escapes, nesting, errors; records written by hand for shapes whose proxy is known.
 */
#include "tune.h"
#include "unit/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_json(void)
{
    const char *doc = "{\"a\":{\"b\":[1,2,{\"c\":\"x\\u00e9\\n\\\"q\\\"\"}],\"n\":-1.5e3,\"t\":true,\"z\":null},"
                      "\"big\":9007199254740992,\"s\":\"\\ud83d\\ude00\"}";
    char err[128];
    json_t *v = tj_parse(doc, strlen(doc), err, sizeof err);
    CHECK(v != NULL);
    CHECK(tj_num(v, "a.n", 0) == -1500);
    CHECK(tj_num(v, "a.t", 0) == 1);
    CHECK(json_is_null(tj_at(v, "a.z")));
    CHECK(json_array_size(tj_at(v, "a.b")) == 3);
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(tj_at(v, "a.b"), 2), "c")), "x\xc3\xa9\n\"q\""));
    CHECK(!strcmp(tj_str(v, "s", ""), "\xf0\x9f\x98\x80"));
    CHECK(tj_num(v, "big", 0) == 9007199254740992.0);
    CHECK(tj_num(v, "a.missing", 7) == 7);
    CHECK(tj_at(v, "a.n.deeper") == NULL);
    json_decref(v);
    const char *bad[] = {"{", "{\"a\":}", "[1,]", "{\"a\":1} x", "\"open", "{\"a\" 1}", "tru", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(tj_parse(bad[i], strlen(bad[i]), err, sizeof err) == NULL);
        CHECK(err[0] != '\0');
    }
    char deep[300];
    memset(deep, '[', sizeof deep);
    CHECK(tj_parse(deep, sizeof deep, err, sizeof err) == NULL); /* depth limit, no crash */
}

/* a FERRY_STATS_JSON record with the given write counters */
static void record(FILE *f, const char *file, int ranks, int coll, int ind, double bytes, double gaps, double gap_bytes,
                   const char *strategy, const char *reason)
{
    fprintf(f,
            "{\"schema\":1,\"file\":\"%s\",\"ranks\":%d,\"nodes\":1,\"counters\":{\"ind_reads\":0,\"ind_writes\":%d,"
            "\"coll_reads\":0,\"coll_writes\":%d,\"bytes_read\":0,\"bytes_written\":%.0f,\"write_gaps\":%.0f,"
            "\"write_gap_bytes\":%.0f,\"read_gaps\":0,\"read_gap_bytes\":0},\"strategies\":{"
            "\"ind_write\":{\"strategy\":\"%s\",\"reason\":\"\",\"calls\":%d,\"rank\":0},"
            "\"coll_write\":{\"strategy\":\"%s\",\"reason\":\"%s\",\"calls\":%d,\"rank\":0}},"
            "\"hints\":{\"cb_buffer_size\":4194304,\"romio_cb_write\":\"enable\",\"cb_config_list\":\"*:2\","
            "\"ferry_local_aggregators\":2147483647,\"romio_no_indep_rw\":false},\"time\":1}\n",
            file, ranks, ind, coll, bytes, gaps, gap_bytes, ind ? strategy : "none", ind, coll ? strategy : "none",
            reason, coll);
}

static int has_args(const tune_proxy *p, const char *want)
{
    char all[1024] = "";
    for (int i = 0; i < p->nargs; i++) {
        strcat(all, " ");
        strcat(all, p->args[i]);
    }
    if (!strstr(all, want)) {
        fprintf(stderr, "proxy args '%s' lack '%s'\n", all, want);
        return 0;
    }
    return 1;
}

static void test_proxy(void)
{
    char path[] = "/tmp/t_tune_json.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char err[512];
    tune_proxy p;

    /* 4 ranks, 16 independent contiguous writes of 64 KiB each per rank: ior */
    FILE *f = fopen(path, "w");
    record(f, "/x/ckpt", 4, 0, 64, 64.0 * 65536, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.pattern, "ior"));
    CHECK(has_args(&p, "-t 65536 -b 1048576"));
    CHECK(p.ranks == 4 && p.metric == TUNE_METRIC_WRITE && p.score < 1e-9);
    CHECK(strstr(p.record_hints, "cb_buffer_size=4194304") && strstr(p.record_hints, "ferry_local_aggregators=all"));
    CHECK(!strstr(p.record_hints, "romio_cb_write"));
    size_t n = strlen(p.record_hints);
    CHECK(n > 18 && !strcmp(p.record_hints + n - 18, "cb_config_list=*:2")); /* last */
    tune_proxy_free(&p);

    /* one collective call per rank of 10 pieces of 96 bytes, holes 3 pieces
     * wide, served independently (holes counted): tile with 4 tiles across */
    f = fopen(path, "w");
    record(f, "/x/t", 4, 4, 0, 4 * 10 * 96.0, 4 * 9.0, 4 * 9 * 3 * 96.0, "independent", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.pattern, "tile"));
    CHECK(has_args(&p, "--nr-tiles-x 4 --nr-tiles-y 1 --sz-tile-x 12 --sz-tile-y 10 --sz-element 8"));
    CHECK(p.score < 0.2 + 1e-9); /* exact but for the read phase tile adds (the metric ignores it) */
    CHECK(p.metric == TUNE_METRIC_WRITE);
    tune_proxy_free(&p);

    /* the same under local aggregation: holes not counted, auto's reason
     * gives the piece size */
    f = fopen(path, "w");
    record(f, "/x/t", 4, 4, 0, 4 * 10 * 1024.0, 0, 0, "local", "local: 1 KiB pieces, 4 ranks per node merged");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.pattern, "tile") && has_args(&p, "--sz-tile-y 10"));
    CHECK(p.target[0].gaps < 0 && fabs(p.target[0].piece - 1024) < 1e-9);
    tune_proxy_free(&p);

    /* hacc: 9 pieces per rank, 38 bytes per particle; the holes of rank 0
     * are the other rank's variables (36 bytes a particle), rank 1's 34 */
    f = fopen(path, "w");
    record(f, "/x/h", 2, 2, 0, 38.0 * 1000 * 2, 16, 70.0 * 1000, "independent", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.pattern, "hacc") && has_args(&p, "-n 1000"));
    CHECK(p.score < 0.2 + 1e-9);
    tune_proxy_free(&p);

    /* independent noncontiguous calls: a collective pattern served
     * independently, with the strategy fixed */
    f = fopen(path, "w");
    record(f, "/x/i", 4, 0, 4, 4 * 10 * 96.0, 4 * 9.0, 4 * 9 * 3 * 96.0, "sieve", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.pattern, "tile") && strstr(p.fixed, "ferry_write_strategy=independent"));
    tune_proxy_free(&p);

    /* several files: the one that moved the most bytes; --record picks one */
    f = fopen(path, "w");
    record(f, "/x/small", 2, 0, 2, 100, 0, 0, "direct", "");
    record(f, "/x/big", 2, 0, 2, 1 << 20, 0, 0, "direct", "");
    record(f, "/x/big", 2, 0, 2, 1 << 20, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.file, "/x/big") && p.records == 2 && p.target[0].calls == 2);
    tune_proxy_free(&p);
    CHECK(tune_proxy_from_file(path, 1, &p, err, sizeof err) == 0);
    CHECK(!strcmp(p.file, "/x/small") && p.records == 1);
    tune_proxy_free(&p);
    CHECK(tune_proxy_from_file(path, 9, &p, err, sizeof err) != 0);

    /* one record that writes and reads (one open of a file that does both):
     * one record, whatever the directions it gives */
    f = fopen(path, "w");
    fprintf(f, "{\"schema\":1,\"file\":\"/x/rw\",\"ranks\":2,\"nodes\":1,\"counters\":{\"ind_reads\":4,"
               "\"ind_writes\":4,\"coll_reads\":0,\"coll_writes\":0,\"bytes_read\":262144,\"bytes_written\":262144,"
               "\"write_gaps\":0,\"write_gap_bytes\":0,\"read_gaps\":0,\"read_gap_bytes\":0},\"strategies\":{"
               "\"ind_write\":{\"strategy\":\"direct\",\"reason\":\"\",\"calls\":4,\"rank\":0},"
               "\"ind_read\":{\"strategy\":\"direct\",\"reason\":\"\",\"calls\":4,\"rank\":0}},\"time\":1}\n");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0);
    CHECK_MSG(p.records == 1 && p.target[0].present && p.target[1].present, "%d records", p.records);
    tune_proxy_free(&p);

    /* out of range: rejected with the field named, not a proxy that never finishes */
    f = fopen(path, "w");
    record(f, "/x/huge", 100000000, 0, 64, 64.0 * 65536, 0, 0, "direct", "");
    fclose(f);
    err[0] = '\0';
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) != 0 && strstr(err, "\"ranks\" must be a whole number"));
    f = fopen(path, "w");
    record(f, "/x/zero", 0, 0, 64, 64.0 * 65536, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) != 0 && strstr(err, "\"ranks\""));
    f = fopen(path, "w");
    record(f, "/x/neg", 4, 0, 64, -1.0, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) != 0 && strstr(err, "counters.bytes_written"));
    f = fopen(path, "w");
    record(f, "/x/big", 4, 0, 64, 1e30, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) != 0 && strstr(err, "counters.bytes_written"));
    f = fopen(path, "w");
    record(f, "/x/most", 1000000, 0, 64, 64.0 * 65536, 0, 0, "direct", "");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) == 0 && p.ranks == 1000000);
    tune_proxy_free(&p);

    /* not a record */
    f = fopen(path, "w");
    fprintf(f, "{\"hello\":1}\nnot json\n");
    fclose(f);
    CHECK(tune_proxy_from_file(path, 0, &p, err, sizeof err) != 0 && strstr(err, "no ferry statistics record"));
    unlink(path);
}

int main(void)
{
    test_json();
    test_proxy();
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    else
        printf("t_tune_json: all checks passed\n");
    return check_failures ? 1 : 0;
}
