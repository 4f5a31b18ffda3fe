/*
 * ferry-tune's search space, without MPI: which hints a workload gets, the
 * value ladders built from the defaults a run reported, the rules that reset
 * values that cannot matter, the FERRY_HINTS strings, --only and --exclude.
 */
#include "tune.h"
#include "unit/check.h"
#include "util/size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *defaults_json =
    "{\"cb_buffer_size\":16777216,\"cb_nodes\":0,\"cb_config_list\":\"*:1\",\"romio_cb_read\":\"automatic\","
    "\"romio_cb_write\":\"automatic\",\"romio_ds_read\":\"automatic\",\"romio_ds_write\":\"automatic\","
    "\"ind_rd_buffer_size\":4194304,\"ind_wr_buffer_size\":524288,\"romio_no_indep_rw\":false,"
    "\"striping_factor\":0,\"striping_unit\":0,\"direct_read\":false,\"direct_write\":false,"
    "\"ferry_write_strategy\":\"auto\",\"ferry_read_strategy\":\"auto\",\"ferry_ind_write_strategy\":\"auto\","
    "\"ferry_ind_read_strategy\":\"auto\",\"ferry_local_aggregators\":1,\"ferry_aggregator_placement\":\"spread\","
    "\"ferry_ds_threshold\":65536}";

static void facts_init(tune_facts *f, int ranks, int nodes)
{
    memset(f, 0, sizeof *f);
    f->ranks = ranks, f->nodes = nodes, f->ppn = ranks / nodes;
    char err[128];
    CHECK((f->defaults = tj_parse(defaults_json, strlen(defaults_json), err, sizeof err)) != NULL);
    f->have_defaults = 1;
}

static int dim(const tune_space *s, const char *key)
{
    for (int d = 0; d < s->ndims; d++)
        if (!strcmp(s->dim[d].key, key))
            return d;
    return -1;
}

static int val(const tune_space *s, int d, const char *v)
{
    for (int i = 0; i < s->dim[d].nvals; i++)
        if (s->dim[d].val[i] && !strcmp(s->dim[d].val[i], v))
            return i;
    return -1;
}

/* point with the given key=value settings (NULL-terminated pairs) */
static void point(const tune_space *s, int *v, const char *const *kv)
{
    memset(v, 0, sizeof(int) * TUNE_MAX_DIMS);
    for (; kv[0]; kv += 2) {
        int d = dim(s, kv[0]);
        CHECK(d >= 0);
        if (d < 0)
            continue;
        int i = val(s, d, kv[1]);
        CHECK(i > 0);
        v[d] = i < 0 ? 0 : i;
    }
}

int main(void)
{
    tune_facts f;
    tune_space s;
    tune_space_opts none = {0};
    char err[256], buf[2048];
    int v[TUNE_MAX_DIMS];

    /* 4 ranks on one node, collective writes and reads with holes unknown
     * (auto chose local): strategies, buffers, aggregators, sieving */
    facts_init(&f, 4, 1);
    f.coll_w = f.coll_r = 1;
    f.gaps_w = f.gaps_r = -1;
    f.sieved_w = f.sieved_r = -1; /* the default run never took the independent path */
    snprintf(f.chosen_w, sizeof f.chosen_w, "local");
    snprintf(f.chosen_r, sizeof f.chosen_r, "local");
    CHECK(tune_space_build(&s, &f, &none, err, sizeof err) == 0);
    s.facts = &f;
    CHECK(s.origin_is_default);
    int ws = dim(&s, "ferry_write_strategy"), cbs = dim(&s, "cb_buffer_size"), cbn = dim(&s, "cb_nodes");
    CHECK(ws >= 0 && val(&s, ws, "twophase") > 0 && val(&s, ws, "local") > 0 && val(&s, ws, "independent") > 0);
    CHECK(val(&s, ws, "auto") < 0); /* the default is "not set", never repeated */
    CHECK(cbs >= 0 && val(&s, cbs, "1m") > 0 && val(&s, cbs, "4m") > 0 && val(&s, cbs, "64m") > 0);
    CHECK(val(&s, cbs, "16m") < 0);
    CHECK(cbn >= 0 && val(&s, cbn, "1") > 0 && val(&s, cbn, "2") > 0 && val(&s, cbn, "4") < 0);
    int cbl = dim(&s, "cb_config_list");
    CHECK(cbl >= 0 && val(&s, cbl, "*:2") > 0 && val(&s, cbl, "*:*") > 0 && val(&s, cbl, "*:1") < 0);
    CHECK(dim(&s, "ferry_local_aggregators") >= 0 && dim(&s, "romio_ds_write") >= 0);
    CHECK(dim(&s, "ferry_ind_write_strategy") < 0); /* no independent calls: nothing forwards */
    CHECK(dim(&s, "ferry_aggregator_placement") < 0 && strstr(s.notes, "FERRY_TOPOLOGY"));
    CHECK(dim(&s, "striping_factor") < 0);
    CHECK(s.pb.nanchors == 3);

    /* canon: under twophase, cb_nodes=2 matters only with >= 2 aggregators per node */
    point(&s, v, (const char *const[]){"ferry_write_strategy", "twophase", "cb_nodes", "2", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbn] == 0); /* *:1 on one node: one aggregator anyway */
    point(&s, v, (const char *const[]){"ferry_write_strategy", "twophase", "cb_nodes", "2", "cb_config_list", "*:*", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbn] == val(&s, cbn, "2"));
    /* under auto, which ran local here, cb_nodes cannot matter; cb_buffer_size can */
    point(&s, v, (const char *const[]){"cb_config_list", "*:*", "cb_nodes", "2", "cb_buffer_size", "4m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbn] == 0 && v[cbl] == 0 && v[cbs] == val(&s, cbs, "4m"));
    /* all independent: no collective buffer */
    point(&s, v,
          (const char *const[]){"ferry_write_strategy", "independent", "ferry_read_strategy", "independent",
                                "cb_buffer_size", "4m", "romio_ds_write", "enable", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbs] == 0 && v[dim(&s, "romio_ds_write")] == val(&s, dim(&s, "romio_ds_write"), "enable"));
    /* sieving disabled: its buffer cannot matter; auto's threshold neither for writes */
    point(&s, v,
          (const char *const[]){"ferry_write_strategy", "independent", "romio_ds_write", "disable",
                                "ind_wr_buffer_size", "2m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[dim(&s, "ind_wr_buffer_size")] == 0);
    tune_space_free(&s);

    /* the default run went independent and sieved nothing: disabling sieving
     * is the default again, and under automatic sieving the buffer cannot
     * matter unless the threshold moves */
    f.sieved_w = f.sieved_r = 0;
    snprintf(f.chosen_w, sizeof f.chosen_w, "independent");
    snprintf(f.chosen_r, sizeof f.chosen_r, "independent");
    CHECK(tune_space_build(&s, &f, &none, err, sizeof err) == 0);
    s.facts = &f;
    int dsw = dim(&s, "romio_ds_write"), iwb = dim(&s, "ind_wr_buffer_size"), dst = dim(&s, "ferry_ds_threshold");
    CHECK(val(&s, dsw, "enable") > 0 && val(&s, dsw, "disable") < 0);
    point(&s, v, (const char *const[]){"ind_wr_buffer_size", "2m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[iwb] == 0);
    point(&s, v, (const char *const[]){"ind_wr_buffer_size", "2m", "ferry_ds_threshold", "1m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[iwb] == val(&s, iwb, "2m") && v[dst] == val(&s, dst, "1m"));
    point(&s, v, (const char *const[]){"ind_wr_buffer_size", "2m", "romio_ds_write", "enable", NULL});
    tune_space_canon(&s, v);
    CHECK(v[iwb] == val(&s, iwb, "2m"));
    /* auto ran independent: cb_buffer_size cannot matter under auto */
    point(&s, v, (const char *const[]){"cb_buffer_size", "4m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[dim(&s, "cb_buffer_size")] == 0);

    /* FERRY_HINTS: one glob, cb_config_list last, fixed hints first */
    point(&s, v,
          (const char *const[]){"ferry_write_strategy", "twophase", "cb_config_list", "*:*", "cb_nodes", "2", NULL});
    tune_space_hints(&s, v, "", buf, sizeof buf);
    CHECK(!strcmp(buf, "*:ferry_write_strategy=twophase:cb_nodes=2:cb_config_list=*:*"));
    tune_space_hints(&s, v, "ferry_read_strategy=independent", buf, sizeof buf);
    const char *fixed_first = "*:ferry_read_strategy=independent:ferry_write_strategy=twophase:";
    CHECK(!strncmp(buf, fixed_first, strlen(fixed_first)));
    memset(v, 0, sizeof v);
    tune_space_hints(&s, v, "", buf, sizeof buf);
    CHECK(buf[0] == '\0');
    tune_space_describe(&s, v, buf, sizeof buf);
    CHECK(!strcmp(buf, "defaults"));
    tune_space_free(&s);

    /* auto chose independent for contiguous pieces, no holes: nothing of
     * two-phase or sieving matters under auto; one rank per node: no local */
    tune_facts g;
    facts_init(&g, 4, 4);
    g.coll_w = 1;
    snprintf(g.chosen_w, sizeof g.chosen_w, "independent");
    CHECK(tune_space_build(&s, &g, &none, err, sizeof err) == 0);
    s.facts = &g;
    CHECK(dim(&s, "ferry_read_strategy") < 0 && dim(&s, "romio_ds_write") < 0);
    CHECK(dim(&s, "cb_config_list") < 0 && dim(&s, "ferry_local_aggregators") < 0);
    ws = dim(&s, "ferry_write_strategy"), cbs = dim(&s, "cb_buffer_size");
    CHECK(val(&s, ws, "local") < 0);
    point(&s, v, (const char *const[]){"cb_buffer_size", "4m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbs] == 0);
    point(&s, v, (const char *const[]){"ferry_write_strategy", "twophase", "cb_buffer_size", "4m", NULL});
    tune_space_canon(&s, v);
    CHECK(v[cbs] == val(&s, cbs, "4m"));
    tune_space_free(&s);

    /* --only with values (a forced origin), --only a key, --exclude */
    tune_space_opts o = {0};
    o.only[o.nonly++] = "cb_buffer_size=1m|default|4m";
    o.only[o.nonly++] = "ferry_write_strategy";
    o.only[o.nonly++] = "direct_write=true";
    o.exclude[o.nexclude++] = "ferry_write_strategy";
    CHECK(tune_space_build(&s, &f, &o, err, sizeof err) == 0);
    s.facts = &f;
    CHECK(s.ndims == 2 && dim(&s, "ferry_write_strategy") < 0);
    cbs = dim(&s, "cb_buffer_size");
    CHECK(s.dim[cbs].nvals == 3 && !strcmp(s.dim[cbs].val[0], "1m") && s.dim[cbs].val[1] == NULL);
    CHECK(!s.origin_is_default);
    CHECK(dim(&s, "direct_write") >= 0 && s.dim[dim(&s, "direct_write")].nvals == 1);
    tune_space_free(&s);
    tune_space_opts bad = {0};
    bad.only[bad.nonly++] = "no_such_hint";
    CHECK(tune_space_build(&s, &f, &bad, err, sizeof err) != 0 && strstr(err, "no_such_hint"));
    tune_space_free(&s);

    /* forwarding, once the library reports it: independent writes with
     * holes, and collective writes that auto ran independently, 4 ranks on
     * one node. The collectors matter only under forward; forwarded calls do
     * not sieve, but collective calls served independently still do */
    tune_facts h;
    facts_init(&h, 4, 1);
    h.ind_w = h.coll_w = 1;
    h.gaps_w = 1;
    h.sieved_w = 1;
    h.forward = 1;
    snprintf(h.chosen_w, sizeof h.chosen_w, "independent");
    CHECK(tune_space_build(&s, &h, &none, err, sizeof err) == 0);
    s.facts = &h;
    int iws = dim(&s, "ferry_ind_write_strategy"), fcol = dim(&s, "ferry_forward_collectors");
    int dsw2 = dim(&s, "romio_ds_write"), ws2 = dim(&s, "ferry_write_strategy");
    CHECK(iws >= 0 && val(&s, iws, "forward") > 0);
    CHECK(fcol >= 0 && val(&s, fcol, "0") > 0 && val(&s, fcol, "2") > 0);
    CHECK(dim(&s, "ferry_ind_read_strategy") < 0); /* no reads */
    point(&s, v, (const char *const[]){"ferry_forward_collectors", "0", NULL});
    tune_space_canon(&s, v);
    CHECK(v[fcol] == 0);
    point(&s, v, (const char *const[]){"ferry_ind_write_strategy", "forward", "ferry_forward_collectors", "0",
                                       "romio_ds_write", "enable", NULL});
    tune_space_canon(&s, v);
    CHECK(v[iws] == val(&s, iws, "forward") && v[fcol] == val(&s, fcol, "0"));
    CHECK(v[dsw2] == val(&s, dsw2, "enable")); /* the collective calls still sieve */
    point(&s, v, (const char *const[]){"ferry_write_strategy", "twophase", "ferry_ind_write_strategy", "forward",
                                       "romio_ds_write", "enable", NULL});
    tune_space_canon(&s, v);
    CHECK(v[ws2] > 0 && v[iws] == val(&s, iws, "forward") && v[dsw2] == 0); /* nothing left to sieve */
    tune_space_free(&s);
    /* collective calls alone never forward; one rank per node: nothing to coalesce */
    h.ind_w = 0;
    CHECK(tune_space_build(&s, &h, &none, err, sizeof err) == 0);
    CHECK(dim(&s, "ferry_ind_write_strategy") < 0 && dim(&s, "ferry_forward_collectors") < 0);
    tune_space_free(&s);
    /* independent writes, but the probe saw no forwarding */
    h.ind_w = 1;
    h.forward = 0;
    CHECK(tune_space_build(&s, &h, &none, err, sizeof err) == 0);
    CHECK(dim(&s, "ferry_ind_write_strategy") < 0 && strstr(s.notes, "did not forward"));
    tune_space_free(&s);
    h.forward = 1;
    h.ranks = h.nodes = 4;
    h.ppn = 1;
    CHECK(tune_space_build(&s, &h, &none, err, sizeof err) == 0);
    CHECK(dim(&s, "ferry_ind_write_strategy") >= 0 && dim(&s, "ferry_forward_collectors") < 0);
    tune_space_free(&s);
    json_decref((json_t *)h.defaults);

    /* sizes in hint syntax */
    ferry_size_format((double)(16 << 20), FERRY_SIZE_HINT, buf, sizeof buf);
    CHECK(!strcmp(buf, "16m"));
    ferry_size_format((double)(3 << 10), FERRY_SIZE_HINT, buf, sizeof buf);
    CHECK(!strcmp(buf, "3k"));
    ferry_size_format((double)(1000), FERRY_SIZE_HINT, buf, sizeof buf);
    CHECK(!strcmp(buf, "1000"));
    ferry_size_format((double)((int64_t)2 << 30), FERRY_SIZE_HINT, buf, sizeof buf);
    CHECK(!strcmp(buf, "2g"));

    json_decref((json_t *)f.defaults);
    json_decref((json_t *)g.defaults);
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    else
        printf("t_tune_space: all checks passed\n");
    return check_failures ? 1 : 0;
}
