/*
 * Hints: defaults, every key, every class of bad value, FERRY_HINTS
 * patterns, FERRY_HINTS_FILE, precedence, get_info round trip, digest,
 * display and JSON. Runs as an MPI singleton (MPI_Info needs MPI_Init).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/env_names.h"
#include "core/hints.h"
#include "util/strategy_desc.h"
#include "unit/check.h"

#define KiB ((int64_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

static ferry_hints D; /* defaults */

static const char *tmpdir(void)
{
    const char *t = getenv("FERRY_TEST_TMP");
    return t && *t ? t : "/tmp";
}

static void test_defaults(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    CHECK(h.cb_buffer_size == 16777216);
    CHECK(h.cb_nodes == 0);
    CHECK_STR(h.cb_config_list, "*:1");
    CHECK(h.romio_ds_read == FERRY_TRI_AUTO && h.romio_ds_write == FERRY_TRI_AUTO);
    CHECK(h.ind_rd_buffer_size == 4194304);
    CHECK(h.ind_wr_buffer_size == 524288);
    CHECK(h.romio_no_indep_rw == 0);
    CHECK(h.striping_factor == 0 && h.striping_unit == 0);
    CHECK(h.direct_read == 0 && h.direct_write == 0);
    CHECK(h.write_strategy == FERRY_COLL_AUTO && h.read_strategy == FERRY_COLL_AUTO);
    CHECK(h.ind_write_strategy == FERRY_IND_AUTO && h.ind_read_strategy == FERRY_IND_AUTO);
    CHECK(h.local_aggregators == 1);
    CHECK(h.aggregator_placement == FERRY_PLACE_SPREAD);
    CHECK(h.ds_threshold == 65536);
    for (int i = 0; i < FERRY_HINT_NFIELDS; i++)
        CHECK(h.source[i] == FERRY_HINT_SRC_DEFAULT);
    char v[64];
    CHECK(ferry_hints_get(&h, "romio_cb_write", v, sizeof v) == 1);
    CHECK_STR(v, "automatic");
    CHECK(ferry_hints_get(&h, "no_such_hint", v, sizeof v) == 0);
}

/* set one key on fresh defaults, expect no warning */
static ferry_hints set1(const char *key, const char *value)
{
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    int known = ferry_hints_set(&h, key, value, &w);
    CHECK_MSG(known == 1, "%s is not known", key);
    CHECK_MSG(w.n == 0, "%s=%s warned: %s", key, value, w.n ? w.msg[0] : "");
    return h;
}

static void test_keys(void)
{
    CHECK(set1("cb_buffer_size", "1048576").cb_buffer_size == MiB);
    CHECK(set1("cb_buffer_size", "8m").cb_buffer_size == 8 * MiB);
    CHECK(set1("cb_buffer_size", "8M").cb_buffer_size == 8 * MiB);
    CHECK(set1("cb_buffer_size", "8MiB").cb_buffer_size == 8 * MiB);
    CHECK(set1("cb_buffer_size", "64k").cb_buffer_size == 64 * KiB);
    CHECK(set1("cb_buffer_size", "64K").cb_buffer_size == 64 * KiB);
    CHECK(set1("cb_buffer_size", "64KiB").cb_buffer_size == 64 * KiB);
    CHECK(set1("cb_buffer_size", "2g").cb_buffer_size == 2 * GiB);
    CHECK(set1("cb_buffer_size", "2G").cb_buffer_size == 2 * GiB);
    CHECK(set1("cb_buffer_size", "2GiB").cb_buffer_size == 2 * GiB);
    /* the one size parser (util/size.c): MB is MiB, decimals to the byte */
    CHECK(set1("cb_buffer_size", "8MB").cb_buffer_size == 8 * MiB);
    CHECK(set1("cb_buffer_size", "1.5m").cb_buffer_size == 3 * MiB / 2);
    CHECK(set1("ferry_ds_threshold", "0.5k").ds_threshold == 512);
    CHECK(set1("cb_buffer_size", " 4m ").cb_buffer_size == 4 * MiB);
    CHECK(set1("cb_buffer_size", "1024g").cb_buffer_size == 1024 * GiB); /* 1 TiB: the cap */
    CHECK(set1("cb_nodes", "4").cb_nodes == 4);
    CHECK(set1("cb_nodes", "0").cb_nodes == 0);
    CHECK_STR(set1("cb_config_list", "*:2").cb_config_list, "*:2");
    CHECK_STR(set1("cb_config_list", "*:*").cb_config_list, "*:*");
    CHECK_STR(set1("cb_config_list", "host1:1,*:2").cb_config_list, "host1:1,*:2");
    CHECK_STR(set1("cb_config_list", "box12:30,*:0").cb_config_list, "box12:30,*:0");
    CHECK_STR(set1("cb_config_list", " a.b-c_d:3 , * ").cb_config_list, "a.b-c_d:3,*");
    CHECK_STR(set1("ferry_io_nodes", "ion1,ion2").io_nodes, "ion1,ion2");
    CHECK_STR(set1("ferry_io_nodes", "2").io_nodes, "2");
    CHECK_STR(set1("ferry_io_nodes", "none").io_nodes, "none");
    CHECK((int)set1("ferry_write_strategy", "ionode").write_strategy == ferry_strategy_id(FERRY_STRATEGY_COLLECTIVE, "ionode"));
    CHECK(set1("romio_cb_read", "enable").read_strategy == FERRY_COLL_TWOPHASE);
    CHECK(set1("romio_cb_read", "disable").read_strategy == FERRY_COLL_INDEPENDENT);
    CHECK(set1("romio_cb_write", "enable").write_strategy == FERRY_COLL_TWOPHASE);
    CHECK(set1("romio_cb_write", "DISABLE").write_strategy == FERRY_COLL_INDEPENDENT);
    CHECK(set1("romio_cb_write", "Automatic").write_strategy == FERRY_COLL_AUTO);
    CHECK(set1("romio_ds_read", "disable").romio_ds_read == FERRY_TRI_DISABLE);
    CHECK(set1("romio_ds_read", "enable").romio_ds_read == FERRY_TRI_ENABLE);
    CHECK(set1("romio_ds_write", "Enable").romio_ds_write == FERRY_TRI_ENABLE);
    CHECK(set1("romio_ds_write", "automatic").romio_ds_write == FERRY_TRI_AUTO);
    CHECK(set1("ind_rd_buffer_size", "8m").ind_rd_buffer_size == 8 * MiB);
    CHECK(set1("ind_wr_buffer_size", "1MiB").ind_wr_buffer_size == MiB);
    const char *yes[] = {"true", "TRUE", "enable", "yes", "1", "Yes", "on"};
    const char *no[] = {"false", "disable", "no", "0", "False", "off"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        CHECK(set1("romio_no_indep_rw", yes[i]).romio_no_indep_rw == 1);
        CHECK(set1("direct_read", yes[i]).direct_read == 1);
        CHECK(set1("direct_write", yes[i]).direct_write == 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        ferry_hints h = set1("romio_no_indep_rw", "true");
        ferry_hint_warnings w = {0};
        ferry_hints_set(&h, "romio_no_indep_rw", no[i], &w);
        CHECK(h.romio_no_indep_rw == 0 && w.n == 0);
    }
    CHECK(set1("striping_factor", "8").striping_factor == 8);
    CHECK(set1("striping_unit", "1m").striping_unit == MiB);
    CHECK(set1("striping_unit", "4194304").striping_unit == 4 * MiB);
    CHECK(set1("ferry_write_strategy", "local").write_strategy == FERRY_COLL_LOCAL);
    CHECK(set1("ferry_write_strategy", "TwoPhase").write_strategy == FERRY_COLL_TWOPHASE);
    CHECK(set1("ferry_write_strategy", "independent").write_strategy == FERRY_COLL_INDEPENDENT);
    CHECK(set1("ferry_read_strategy", "local").read_strategy == FERRY_COLL_LOCAL);
    CHECK(set1("ferry_read_strategy", "AUTO").read_strategy == FERRY_COLL_AUTO);
    CHECK(set1("ferry_ind_write_strategy", "sieve").ind_write_strategy == FERRY_IND_SIEVE);
    CHECK(set1("ferry_ind_write_strategy", "forward").ind_write_strategy == FERRY_IND_FORWARD);
    CHECK(set1("ferry_ind_read_strategy", "Direct").ind_read_strategy == FERRY_IND_DIRECT);
    CHECK(set1("ferry_ind_read_strategy", "auto").ind_read_strategy == FERRY_IND_AUTO);
    CHECK(set1("ferry_local_aggregators", "4").local_aggregators == 4);
    CHECK(set1("ferry_local_aggregators", "all").local_aggregators == FERRY_LOCAL_AGG_ALL);
    CHECK(set1("ferry_local_aggregators", "ALL").local_aggregators == FERRY_LOCAL_AGG_ALL);
    CHECK(set1("ferry_aggregator_placement", "topology").aggregator_placement == FERRY_PLACE_TOPOLOGY);
    CHECK(set1("ferry_aggregator_placement", "Spread").aggregator_placement == FERRY_PLACE_SPREAD);
    CHECK(set1("ferry_ds_threshold", "128k").ds_threshold == 128 * KiB);
    CHECK(set1("ferry_ds_threshold", "0").ds_threshold == 0);

    /* unknown keys: 0, no warning, nothing changed */
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    CHECK(ferry_hints_set(&h, "romio_cb_pfr", "enable", &w) == 0);
    CHECK(ferry_hints_set(&h, "", "1", &w) == 0);
    CHECK(ferry_hints_set(&h, NULL, "1", &w) == 0);
    CHECK(w.n == 0 && ferry_hints_equal(&h, &D));
    /* set marks the source as derived */
    ferry_hints_set(&h, "cb_nodes", "3", &w);
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_DERIVED);
    ferry_hints_set_from(&h, "cb_nodes", "2", FERRY_HINT_SRC_INFO, &w);
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_INFO);
    /* aliases share the source of their field */
    ferry_hints_set_from(&h, "romio_cb_write", "enable", FERRY_HINT_SRC_ENV, &w);
    CHECK(ferry_hints_source_of(&h, "ferry_write_strategy") == FERRY_HINT_SRC_ENV);
    CHECK(w.n == 0);
}

/* one warning, value ignored */
static void bad(const char *key, const char *value)
{
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    int known = ferry_hints_set(&h, key, value, &w);
    CHECK_MSG(known == 1, "%s", key);
    CHECK_MSG(w.n == 1, "%s=\"%.40s\" gave %d warnings", key, value ? value : "(null)", w.n);
    CHECK_MSG(ferry_hints_equal(&h, &D), "%s=\"%.40s\" changed the hints", key, value ? value : "(null)");
    CHECK(ferry_hints_source_of(&h, key) == FERRY_HINT_SRC_DEFAULT);
    if (w.n == 1) {
        CHECK_MSG(strstr(w.msg[0], key) != NULL, "warning does not name %s: %s", key, w.msg[0]);
        CHECK(strnlen(w.msg[0], sizeof w.msg[0]) < sizeof w.msg[0]);
    }
}

static void test_invalid(void)
{
    char longv[600];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    char longlist[300];
    memset(longlist, 'h', sizeof longlist - 1);
    longlist[sizeof longlist - 1] = '\0';

    const char *sizes[] = {"cb_buffer_size", "ind_rd_buffer_size", "ind_wr_buffer_size"};
    for (size_t i = 0; i < 3; i++) {
        const char *k = sizes[i];
        bad(k, "abc");                    /* not numeric */
        bad(k, "-1");                     /* negative */
        bad(k, "-4m");
        bad(k, "0");                      /* zero: meaningless */
        bad(k, "0k");
        bad(k, "2TiB");                   /* > 1 TiB */
        bad(k, "1025g");                  /* > 1 TiB */
        bad(k, "1099511627777");          /* 1 TiB + 1 */
        bad(k, "100000000000000000000");  /* 10^20: strtoll overflow */
        bad(k, "9223372036854775807");    /* INT64_MAX: range */
        bad(k, "9223372036854775807k");   /* overflow in the multiplication */
        bad(k, "17179869184g");           /* 2^34 GiB: overflow in the multiplication */
        bad(k, "16q");                    /* unknown suffix */
        bad(k, "0.3k");                   /* a fraction of a byte */
        bad(k, "1.5");
        bad(k, "0x10");
        bad(k, "+5");
        bad(k, "");
        bad(k, "   ");
        bad(k, "4 m");
        bad(k, longv);                    /* absurdly long */
        bad(k, NULL);
    }
    bad("ferry_ds_threshold", "-5");
    bad("ferry_ds_threshold", "2000g");
    bad("ferry_ds_threshold", "x");
    bad("striping_unit", "-1");
    bad("striping_unit", "2048g");
    bad("cb_nodes", "-4");
    bad("cb_nodes", "4k");                /* ints take no suffix */
    bad("cb_nodes", "99999999999");
    bad("cb_nodes", "four");
    bad("striping_factor", "-1");
    bad("striping_factor", "1000001");
    bad("cb_config_list", "");
    bad("cb_config_list", "*:");
    bad("cb_config_list", ":1");
    bad("cb_config_list", "host 1");
    bad("cb_config_list", "a,,b");
    bad("ferry_io_nodes", "ion1,,ion2");
    bad("ferry_io_nodes", "ion1,");
    bad("ferry_io_nodes", "ion 1");
    bad("ferry_io_nodes", "0");
    bad("ferry_io_nodes", "");
    bad("cb_config_list", "a,");
    bad("cb_config_list", "*:x");
    bad("cb_config_list", "*:-1");
    bad("cb_config_list", "h@st:1");
    bad("cb_config_list", "*:12345678");
    bad("cb_config_list", "*:1:2");
    bad("cb_config_list", longlist);      /* > FERRY_HINT_STR - 1 */
    bad("cb_config_list", longv);
    bad("romio_cb_write", "maybe");
    bad("romio_cb_read", "twophase");     /* ferry's names are not ROMIO's */
    bad("romio_ds_read", "yes");
    bad("romio_ds_write", "");
    bad("romio_no_indep_rw", "maybe");
    bad("romio_no_indep_rw", "2");
    bad("direct_read", "truee");
    bad("direct_write", longv);
    bad("ferry_write_strategy", "fast");
    bad("ferry_write_strategy", "enable");
    bad("ferry_read_strategy", "");
    bad("ferry_ind_write_strategy", "twophase");
    bad("ferry_ind_read_strategy", "sieve2");
    bad("ferry_local_aggregators", "0");
    bad("ferry_local_aggregators", "-1");
    bad("ferry_local_aggregators", "none");
    bad("ferry_local_aggregators", "99999999");
    bad("ferry_aggregator_placement", "random");
    bad("ferry_aggregator_placement", longv);

    /* the warnings are capped and never overflow */
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    for (int i = 0; i < 100; i++)
        ferry_hints_set(&h, "cb_nodes", longv, &w);
    CHECK(w.n == 16);
    CHECK(strstr(w.msg[15], "suppressed") != NULL);
    CHECK(ferry_hints_equal(&h, &D));
    ferry_hints_set(&h, "cb_nodes", "bad", NULL); /* no warnings wanted: fine */
    CHECK(ferry_hints_equal(&h, &D));
}

static void test_patterns(void)
{
    const char *spec = "*.h5:cb_nodes=4:romio_cb_write=enable,ckpt*:ferry_write_strategy=local";
    ferry_hints h;
    ferry_hint_warnings w = {0};

    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, spec, "/scratch/run/out.h5", &w);
    CHECK(w.n == 0);
    CHECK(h.cb_nodes == 4 && h.write_strategy == FERRY_COLL_TWOPHASE);
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_ENV);

    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, spec, "/scratch/run/ckpt_0001", &w); /* basename */
    CHECK(h.cb_nodes == 0 && h.write_strategy == FERRY_COLL_LOCAL);

    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, spec, "ckpt.h5", &w); /* both, in order */
    CHECK(h.cb_nodes == 4 && h.write_strategy == FERRY_COLL_LOCAL);

    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, spec, "/scratch/ckpt/data.nc", &w); /* no match */
    CHECK(ferry_hints_equal(&h, &D));
    CHECK(w.n == 0);

    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "/scratch/*:cb_nodes=2", "/scratch/a/b.dat", &w); /* full path */
    CHECK(h.cb_nodes == 2);
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "/other/*:cb_nodes=2", "/scratch/a/b.dat", &w);
    CHECK(h.cb_nodes == 0);
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "b.da?:cb_nodes=7,[ab].dat:cb_buffer_size=1m", "/x/b.dat", &w);
    CHECK(h.cb_nodes == 7 && h.cb_buffer_size == MiB);
    CHECK(w.n == 0);

    /* values holding ':' and ',' (cb_config_list) */
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_config_list=host1:1,*:2:cb_nodes=3", "f", &w);
    CHECK_STR(h.cb_config_list, "host1:1,*:2");
    CHECK(h.cb_nodes == 3);
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_nodes=3:ferry_io_nodes=ion1,ion2,*.h5:cb_nodes=6", "o.h5", &w);
    CHECK_STR(h.io_nodes, "ion1,ion2");
    CHECK(h.cb_nodes == 6);
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_config_list=*:*,*.h5:cb_nodes=5", "o.h5", &w);
    CHECK_STR(h.cb_config_list, "*:*");
    CHECK(h.cb_nodes == 5);
    CHECK(w.n == 0);

    /* Cray's tuned string, with keys ferry does not have */
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h,
                               "*:cray_cb_write_lock_mode=2:cray_cb_nodes_multiplier=4:striping_unit="
                               "16777216:striping_factor=8:romio_cb_write=enable:romio_ds_write=disable:"
                               "romio_no_indep_rw=true",
                               "/lus/out", &w);
    CHECK(w.n == 0);
    CHECK(h.striping_unit == 16 * MiB && h.striping_factor == 8 && h.write_strategy == FERRY_COLL_TWOPHASE &&
          h.romio_ds_write == FERRY_TRI_DISABLE && h.romio_no_indep_rw == 1);

    /* malformed: each warns once, applies nothing */
    const char *badspecs[] = {
        "cb_nodes=4",          /* no pattern */
        "*.h5",                /* no hints */
        "*:garbage",           /* not key=value */
        "*:ferry_typo=1",      /* misspelt ferry key */
        "*:cb_nodes=abc",      /* bad value */
        "*:=4",                /* no key */
        ":cb_nodes=4",         /* empty pattern */
    };
    for (size_t i = 0; i < sizeof badspecs / sizeof *badspecs; i++) {
        ferry_hint_warnings w2 = {0};
        ferry_hints_defaults(&h);
        ferry_hints_apply_patterns(&h, badspecs[i], "x.h5", &w2);
        CHECK_MSG(w2.n == 1, "\"%s\" gave %d warnings", badspecs[i], w2.n);
        CHECK_MSG(ferry_hints_equal(&h, &D), "\"%s\" changed the hints", badspecs[i]);
    }
    /* silently ignored */
    const char *quiet[] = {"", ",", ",,,", "*:romio_cb_pfr=enable", "*:", "*:cb_nodes=4:", "nomatch:cb_nodes=4"};
    for (size_t i = 0; i < sizeof quiet / sizeof *quiet; i++) {
        ferry_hint_warnings w2 = {0};
        ferry_hints_defaults(&h);
        ferry_hints_apply_patterns(&h, quiet[i], "x.h5", &w2);
        CHECK_MSG(w2.n == 0, "\"%s\" gave %d warnings: %s", quiet[i], w2.n, w2.n ? w2.msg[0] : "");
    }
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_nodes=4:", "x", &w);
    CHECK(h.cb_nodes == 4);
    /* a bad entry does not spoil the good ones */
    ferry_hint_warnings w3 = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_nodes=x:cb_buffer_size=2m,junk,*:ferry_ds_threshold=1k", "f", &w3);
    CHECK(h.cb_nodes == 0 && h.cb_buffer_size == 2 * MiB && h.ds_threshold == 1024);
    CHECK(w3.n == 2);
    /* NULLs */
    ferry_hints_apply_patterns(&h, NULL, "f", &w3);
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_nodes=9", NULL, NULL);
    CHECK(h.cb_nodes == 9);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_file(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hints_file_%d.txt", tmpdir(), (int)getpid());
    write_file(path, "# a comment\n"
                     "\n"
                     "cb_buffer_size 8m\n"
                     "cb_buffer_size 4m\n"       /* first occurrence wins */
                     "   romio_cb_write\tenable  \r\n"
                     "just_a_key\n"              /* malformed */
                     "cb_nodes 2 extra\n"        /* malformed */
                     "romio_cb_pfr enable\n"     /* ROMIO key ferry lacks: quiet */
                     "ferry_ds_threshold 1k\n"
                     "ind_rd_buffer_size nonsense\n" /* bad value */
                     "ind_rd_buffer_size 2m\n"   /* ... so this one is the first valid */
                     "ferry_write_strategy local"); /* no newline at the end; alias field already set */
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_file(&h, path, &w);
    CHECK(h.cb_buffer_size == 8 * MiB);
    CHECK(h.write_strategy == FERRY_COLL_TWOPHASE);
    CHECK(h.cb_nodes == 0);
    CHECK(h.ds_threshold == 1024);
    CHECK(h.ind_rd_buffer_size == 2 * MiB);
    CHECK_MSG(w.n == 3, "%d warnings", w.n);
    CHECK(ferry_hints_source_of(&h, "cb_buffer_size") == FERRY_HINT_SRC_FILE);
    unlink(path);

    ferry_hint_warnings w2 = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_file(&h, "/nonexistent/ferry/hints", &w2);
    CHECK(w2.n == 1 && ferry_hints_equal(&h, &D));

    /* binary junk and a NUL */
    static const char junk[] = "cb_nodes\0003\n\xff\xfe cb_nodes 5\ncb_nodes 6\n";
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(junk, 1, sizeof junk - 1, f);
        fclose(f);
    }
    /* a NUL byte marks a binary file: refused whole, with one warning
     * (not one warning per junk line) */
    ferry_hint_warnings w3 = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_file(&h, path, &w3);
    CHECK(h.cb_nodes == 0 && w3.n == 1);
    unlink(path);
}

static void test_precedence(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hints_prec_%d.txt", tmpdir(), (int)getpid());
    write_file(path, "cb_nodes 2\ncb_buffer_size 2m\n");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "cb_buffer_size", "1m");
    MPI_Info_set(info, "ind_rd_buffer_size", "1m");
    MPI_Info_set(info, "romio_ds_read", "disable");
    MPI_Info_set(info, "some_other_key", "x");
    setenv("FERRY_HINTS_FILE", path, 1);
    setenv("FERRY_HINTS", "*.dat:cb_nodes=3", 1);

    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_info(&h, info, &w);
    ferry_hints_apply_env(&h, "/x/y.dat", &w);
    CHECK(w.n == 0);
    CHECK(h.cb_nodes == 3);                     /* env */
    CHECK(h.cb_buffer_size == 2 * MiB);         /* file over info */
    CHECK(h.ind_rd_buffer_size == MiB);         /* info over default */
    CHECK(h.romio_ds_read == FERRY_TRI_DISABLE);
    CHECK(h.ind_wr_buffer_size == 512 * KiB);   /* default */
    CHECK(ferry_hints_source_of(&h, "cb_nodes") == FERRY_HINT_SRC_ENV);
    CHECK(ferry_hints_source_of(&h, "cb_buffer_size") == FERRY_HINT_SRC_FILE);
    CHECK(ferry_hints_source_of(&h, "ind_rd_buffer_size") == FERRY_HINT_SRC_INFO);
    CHECK(ferry_hints_source_of(&h, "ind_wr_buffer_size") == FERRY_HINT_SRC_DEFAULT);

    /* the pattern does not match another file: the file's value stays */
    ferry_hints_defaults(&h);
    ferry_hints_apply_info(&h, info, &w);
    ferry_hints_apply_env(&h, "/x/y.h5", &w);
    CHECK(h.cb_nodes == 2);

    /* display shows values and sources */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ferry_hints_display(&h, "/x/y.h5", mem);
    fclose(mem);
    CHECK(text && strstr(text, "/x/y.h5"));
    CHECK(text && strstr(text, "cb_buffer_size"));
    CHECK(text && strstr(text, "2097152 (2 MiB)"));
    CHECK(text && strstr(text, "ferry_local_aggregators"));
    CHECK(text && strstr(text, " file\n"));
    CHECK(text && strstr(text, " info\n"));
    CHECK(text && strstr(text, " default\n"));
    if (getenv("FERRY_TEST_VERBOSE"))
        fputs(text, stderr);
    free(text);

    unsetenv("FERRY_HINTS_FILE");
    unsetenv("FERRY_HINTS");
    unlink(path);
    MPI_Info_free(&info);
    ferry_hints_apply_info(&h, MPI_INFO_NULL, &w); /* fine */
}

static int info_is(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    if (!flag || strcmp(v, want) != 0) {
        fprintf(stderr, "info %s = %s, want %s\n", key, flag ? v : "(unset)", want);
        return 0;
    }
    return 1;
}

static void roundtrip(const ferry_hints *h)
{
    MPI_Info info;
    CHECK(ferry_hints_to_info(h, &info) == MPI_SUCCESS);
    ferry_hints back;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&back);
    ferry_hints_apply_info(&back, info, &w);
    CHECK_MSG(w.n == 0, "%s", w.n ? w.msg[0] : "");
    CHECK(ferry_hints_equal(h, &back));
    CHECK(ferry_hints_digest(h) == ferry_hints_digest(&back));
    MPI_Info_free(&info);
}

static void test_info(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    MPI_Info info;
    CHECK(ferry_hints_to_info(&h, &info) == MPI_SUCCESS);
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 30);
    CHECK(info_is(info, "cb_buffer_size", "16777216"));
    CHECK(info_is(info, "ferry_learn", "auto"));
    CHECK(info_is(info, "ferry_learn_trials", "8"));
    CHECK(info_is(info, "ferry_learn_cache", "default"));
    CHECK(info_is(info, "ferry_io_timeout", "0"));
    CHECK(info_is(info, "cb_nodes", "0"));
    CHECK(info_is(info, "cb_config_list", "*:1"));
    CHECK(info_is(info, "romio_cb_write", "automatic"));
    CHECK(info_is(info, "romio_cb_read", "automatic"));
    CHECK(info_is(info, "romio_ds_read", "automatic"));
    CHECK(info_is(info, "ind_wr_buffer_size", "524288"));
    CHECK(info_is(info, "romio_no_indep_rw", "false"));
    CHECK(info_is(info, "direct_write", "false"));
    CHECK(info_is(info, "ferry_write_strategy", "auto"));
    CHECK(info_is(info, "ferry_ind_read_strategy", "auto"));
    CHECK(info_is(info, "ferry_local_aggregators", "1"));
    CHECK(info_is(info, "ferry_aggregator_placement", "spread"));
    CHECK(info_is(info, "ferry_ds_threshold", "65536"));
    MPI_Info_free(&info);
    roundtrip(&h);

    /* romio_cb_* derived from the strategies */
    static const struct {
        ferry_coll_strategy s;
        const char *romio, *ferry;
    } m[] = {{FERRY_COLL_TWOPHASE, "enable", "twophase"},
             {FERRY_COLL_INDEPENDENT, "disable", "independent"},
             {FERRY_COLL_LOCAL, "automatic", "local"},
             {FERRY_COLL_AUTO, "automatic", "auto"}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            ferry_hints_defaults(&h);
            h.write_strategy = m[i].s;
            h.read_strategy = m[j].s;
            CHECK(ferry_hints_to_info(&h, &info) == MPI_SUCCESS);
            CHECK(info_is(info, "romio_cb_write", m[i].romio));
            CHECK(info_is(info, "ferry_write_strategy", m[i].ferry));
            CHECK(info_is(info, "romio_cb_read", m[j].romio));
            CHECK(info_is(info, "ferry_read_strategy", m[j].ferry));
            MPI_Info_free(&info);
            roundtrip(&h);
        }

    /* everything changed */
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h,
                               "*:cb_buffer_size=32m:cb_nodes=6:cb_config_list=n1:2,*:1:romio_ds_read="
                               "disable:romio_ds_write=enable:ind_rd_buffer_size=1m:ind_wr_buffer_size=2m:"
                               "romio_no_indep_rw=yes:striping_factor=4:striping_unit=1m:direct_read=1:"
                               "direct_write=on:ferry_write_strategy=local:ferry_read_strategy=independent:"
                               "ferry_ind_write_strategy=sieve:ferry_ind_read_strategy=forward:"
                               "ferry_local_aggregators=all:ferry_aggregator_placement=topology:"
                               "ferry_ds_threshold=0",
                               "f", &w);
    CHECK_MSG(w.n == 0, "%s", w.n ? w.msg[0] : "");
    CHECK_STR(h.cb_config_list, "n1:2,*:1");
    CHECK(h.local_aggregators == FERRY_LOCAL_AGG_ALL && h.ds_threshold == 0 && h.direct_write == 1);
    CHECK(!ferry_hints_equal(&h, &D));
    CHECK(ferry_hints_to_info(&h, &info) == MPI_SUCCESS);
    CHECK(info_is(info, "ferry_local_aggregators", "all"));
    CHECK(info_is(info, "romio_no_indep_rw", "true"));
    CHECK(info_is(info, "romio_cb_read", "disable"));
    CHECK(info_is(info, "cb_buffer_size", "33554432"));
    MPI_Info_free(&info);
    roundtrip(&h);

    /* both names in one info: ferry's wins */
    MPI_Info_create(&info);
    MPI_Info_set(info, "ferry_write_strategy", "local");
    MPI_Info_set(info, "romio_cb_write", "enable");
    ferry_hints_defaults(&h);
    ferry_hints_apply_info(&h, info, &w);
    CHECK(h.write_strategy == FERRY_COLL_LOCAL);
    /* bad values in info warn too */
    MPI_Info_set(info, "cb_buffer_size", "lots");
    ferry_hint_warnings w2 = {0};
    ferry_hints_apply_info(&h, info, &w2);
    CHECK(w2.n == 1 && h.cb_buffer_size == 16 * MiB);
    MPI_Info_free(&info);

    CHECK(ferry_hints_coll_of_tri(FERRY_TRI_ENABLE) == FERRY_COLL_TWOPHASE);
    CHECK(ferry_hints_coll_of_tri(FERRY_TRI_DISABLE) == FERRY_COLL_INDEPENDENT);
    CHECK(ferry_hints_coll_of_tri(FERRY_TRI_AUTO) == FERRY_COLL_AUTO);
    CHECK_STR(ferry_coll_strategy_name(FERRY_COLL_TWOPHASE), "twophase");
    CHECK_STR(ferry_ind_strategy_name(FERRY_IND_SIEVE), "sieve");
}

static void test_digest(void)
{
    ferry_hints a, b;
    ferry_hints_defaults(&a);
    ferry_hints_defaults(&b);
    uint64_t d0 = ferry_hints_digest(&a);
    CHECK(d0 == ferry_hints_digest(&b));
    CHECK(d0 != 0);
    /* garbage after the string's end and sources do not count */
    memset(b.cb_config_list + 4, 'x', 10);
    b.source[0] = FERRY_HINT_SRC_ENV;
    CHECK(d0 == ferry_hints_digest(&b));
    CHECK(ferry_hints_equal(&a, &b));

    static const struct {
        const char *k, *v;
    } agree[] = {{"cb_buffer_size", "8m"},
                 {"cb_nodes", "2"},
                 {"cb_config_list", "*:2"},
                 {"romio_cb_write", "enable"},
                 {"romio_cb_read", "disable"},
                 {"ferry_write_strategy", "local"},
                 {"ferry_read_strategy", "twophase"},
                 {"ferry_ind_write_strategy", "sieve"},
                 {"ferry_ind_read_strategy", "direct"},
                 {"ferry_local_aggregators", "2"},
                 {"striping_factor", "4"},
                 {"striping_unit", "1m"},
                 {"romio_ds_read", "disable"},
                 {"romio_ds_write", "enable"},
                 {"ferry_ds_threshold", "1k"},
                 {"ferry_aggregator_placement", "topology"},
                 {"romio_no_indep_rw", "true"}};
    uint64_t seen[64];
    int n = 0;
    seen[n++] = d0;
    for (size_t i = 0; i < sizeof agree / sizeof *agree; i++) {
        ferry_hints_defaults(&a);
        ferry_hints_set(&a, agree[i].k, agree[i].v, NULL);
        uint64_t d = ferry_hints_digest(&a);
        CHECK_MSG(d != d0, "digest ignores %s", agree[i].k);
        int dup = 0;
        for (int j = 1; j < n; j++)
            dup |= seen[j] == d && strncmp(agree[i].k, "romio_cb", 8) != 0;
        CHECK(!dup);
        if (n < 64)
            seen[n++] = d;
    }
    /* local ones do not */
    const char *local[][2] = {{"direct_read", "true"}, {"direct_write", "true"},
                              {"ind_rd_buffer_size", "1m"}, {"ind_wr_buffer_size", "1m"}};
    for (int i = 0; i < 4; i++) {
        ferry_hints_defaults(&a);
        ferry_hints_set(&a, local[i][0], local[i][1], NULL);
        CHECK_MSG(ferry_hints_digest(&a) == d0, "digest counts %s", local[i][0]);
    }
}

static void test_json(void)
{
    ferry_hints h;
    ferry_hints_defaults(&h);
    char buf[4096];
    int n = ferry_hints_to_json(&h, buf, sizeof buf);
    CHECK(n == (int)strlen(buf));
    CHECK(buf[0] == '{' && buf[n - 1] == '}');
    CHECK(strstr(buf, "\"cb_buffer_size\":16777216,") != NULL);
    CHECK(strstr(buf, "\"cb_config_list\":\"*:1\"") != NULL);
    CHECK(strstr(buf, "\"romio_cb_write\":\"automatic\"") != NULL);
    CHECK(strstr(buf, "\"romio_no_indep_rw\":false") != NULL);
    CHECK(strstr(buf, "\"ferry_local_aggregators\":1,") != NULL);
    CHECK(strstr(buf, "\"ferry_ds_threshold\":65536,") != NULL);
    CHECK(strstr(buf, "\"ferry_forward_collectors\":1,") != NULL);
    CHECK(strstr(buf, "\"ferry_forward_assign\":\"auto\",") != NULL);
    CHECK(strstr(buf, "\"ferry_forward_errors\":\"call\",") != NULL);
    CHECK(strstr(buf, "\"ferry_cache_coherent\":\"automatic\",") != NULL);
    CHECK(strstr(buf, "\"ferry_learn\":\"auto\",\"ferry_learn_trials\":8,\"ferry_learn_cache\":\"default\"}") != NULL);
    h.local_aggregators = FERRY_LOCAL_AGG_ALL;
    n = ferry_hints_to_json(&h, buf, sizeof buf);
    CHECK(strstr(buf, "\"ferry_local_aggregators\":2147483647") != NULL);
    char small[10];
    memset(small, 'z', sizeof small);
    int n2 = ferry_hints_to_json(&h, small, sizeof small);
    CHECK(n2 == n);
    CHECK(small[9] == '\0' && strncmp(small, buf, 9) == 0);
    CHECK(ferry_hints_to_json(&h, NULL, 0) == n);
}

/* Random input must never crash (ASan/UBSan builds check the bounds). */
static void test_random(void)
{
    static const char alphabet[] = "*:,=?[]!.-_/ \tabcdefghkmgi0123456789AGKM\xff";
    static const char *keys[] = {"cb_nodes=",           "cb_buffer_size=", "cb_config_list=",
                                 "romio_cb_write=",     "ferry_local_aggregators=", "ferry_ds_threshold=",
                                 "ferry_write_strategy=", "striping_unit="};
    uint64_t x = 88172645463325252ULL;
    char spec[700];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = 0, want = (size_t)(iter % 600);
        while (len < want) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (x % 9 == 0) {
                const char *k = keys[(x >> 8) % 8];
                size_t kl = strlen(k);
                if (len + kl >= want)
                    break;
                memcpy(spec + len, k, kl);
                len += kl;
            } else {
                spec[len++] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
            }
        }
        spec[len] = '\0';
        ferry_hints h;
        ferry_hint_warnings w = {0};
        ferry_hints_defaults(&h);
        ferry_hints_apply_patterns(&h, spec, "/a/b.h5", &w);
        CHECK(w.n >= 0 && w.n <= 16);
        const char *eq = strchr(spec, '=');
        ferry_hints_set(&h, "cb_config_list", eq ? eq + 1 : spec, &w);
        ferry_hints_set(&h, "cb_buffer_size", spec, &w);
        ferry_hints_set(&h, "ferry_local_aggregators", spec, &w);
        /* whatever got in, the round trip holds */
        char json[8192];
        CHECK(ferry_hints_to_json(&h, json, sizeof json) < (int)sizeof json);
        if (iter % 500 == 0)
            roundtrip(&h);
    }
}

/* Warnings carry no "ferry: " of their own (the printer adds "ferry:
 * warning: FILE: "); a key or a variable one or two edits from a known one
 * gets "did you mean". */
static void test_messages(void)
{
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    ferry_hints_apply_patterns(&h, "*:cb_buffer_size=16q:cb_ndoes=2:ferry_write_stratgy=local:romio_cb_pfr=enable",
                               "x", &w);
    CHECK_MSG(w.n == 3, "%d warnings", w.n);
    for (int i = 0; i < w.n; i++)
        CHECK_MSG(strncmp(w.msg[i], "ferry:", 6) != 0, "prefixed: %s", w.msg[i]);
    CHECK_STR(w.msg[0], "FERRY_HINTS: hint cb_buffer_size=\"16q\" ignored: unknown unit 'q' (k, m, g or t, alone "
                        "or with B or iB; all powers of 1024)");
    CHECK_STR(w.msg[1], "FERRY_HINTS: unknown hint \"cb_ndoes\" ignored; did you mean cb_nodes?");
    CHECK_STR(w.msg[2], "FERRY_HINTS: unknown hint \"ferry_write_stratgy\" ignored; did you mean "
                        "ferry_write_strategy?");
    char *env[] = {"FERRY_STAT=1", "FERRY_HINTS=*:cb_nodes=2", "FERRY_HINT_FILE=/x", "FERRY_TEST_TMP=/tmp",
                   "FERRY_TIMERS=1", "PATH=/bin", "FERRY_DECOUPLE_CHUNKS=1m", NULL};
    char text[1024];
    CHECK(ferry_env_misspelt(env, text, sizeof text) == 3);
    CHECK_STR(text, "ferry: warning: FERRY_STAT is not a variable ferry reads; did you mean FERRY_STATS?\n"
                    "ferry: warning: FERRY_HINT_FILE is not a variable ferry reads; did you mean FERRY_HINTS_FILE?\n"
                    "ferry: warning: FERRY_DECOUPLE_CHUNKS is not a variable ferry reads; did you mean "
                    "FERRY_DECOUPLE_CHUNK?\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ferry_hints_defaults(&D);
    unsetenv("FERRY_HINTS");
    unsetenv("FERRY_HINTS_FILE");
    test_defaults();
    test_keys();
    test_invalid();
    test_patterns();
    test_file();
    test_precedence();
    test_info();
    test_digest();
    test_json();
    test_random();
    test_messages();
    MPI_Finalize();
    if (check_failures)
        fprintf(stderr, "test_hints: %d checks failed\n", check_failures);
    else
        printf("test_hints: all checks passed\n");
    return check_failures != 0;
}
