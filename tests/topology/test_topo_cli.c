/* ferry-topo end to end: compare --json parsed for the keys and
 * hand-checked values, machines, replay of traces in both layouts, and
 * exit codes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include "topology/tcheck.h"

#ifndef FERRY_TOPO_EXE
#error "FERRY_TOPO_EXE must name the ferry-topo binary"
#endif

/* Runs ferry-topo with args; returns its stdout (malloc'd) and exit code. */
static char *run(const char *args, int *status) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", FERRY_TOPO_EXE, args);
  FILE *p = popen(cmd, "r");
  if (!p) {
    *status = -1;
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += r;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  buf[n] = '\0';
  int st = pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return buf;
}

/* Runs ferry-topo with args; returns its stderr (malloc'd) and exit code. */
static char *run_err(const char *args, int *status) {
  char a[4096];
  snprintf(a, sizeof a, "%s 2>&1 >/dev/null", args);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "%s %s", FERRY_TOPO_EXE, a);
  FILE *p = popen(cmd, "r");
  if (!p) {
    *status = -1;
    return NULL;
  }
  size_t cap = 1 << 14, n = 0, r;
  char *buf = malloc(cap);
  while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) n += r;
  buf[n] = '\0';
  int st = pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return buf;
}

/* ferry-topo ARGS fails with status `want` and says `says` on stderr */
static void says(const char *args, int want, const char *text) {
  int st;
  char *e = run_err(args, &st);
  if (st != want || !e || !strstr(e, text))
    fprintf(stderr, "  ferry-topo %s: status %d (want %d), said: %s  wanted: %s\n", args, st, want, e ? e : "", text);
  CHECK_INT(st, want);
  CHECK(e && strstr(e, text) != NULL);
  free(e);
}

typedef json_t *jv; /* a parsed document (NULL when parsing failed) */

static int parse(const char *args, jv *doc) {
  int st;
  char *out = run(args, &st);
  json_error_t je;
  *doc = (st == 0 && out) ? json_loads(out, 0, &je) : NULL;
  int rc = *doc ? 0 : -1;
  if (rc) fprintf(stderr, "  ferry-topo %s: status %d, output:\n%s\n", args, st, out ? out : "(none)");
  free(out);
  return rc;
}

static const json_t *json_get(const jv *o, const char *k) { return json_object_get(*o, k); }

static double num(const jv *o, const char *k) {
  const json_t *v = json_get(o, k);
  if (!json_is_number(v)) {
    fprintf(stderr, "  missing number '%s'\n", k);
    tc_failures++;
    return -1;
  }
  return json_number_value(v);
}

static const char *str(const jv *o, const char *k) {
  const json_t *v = json_get(o, k);
  return json_is_string(v) ? json_string_value(v) : "";
}

static size_t nitems(const json_t *a) { return json_is_array(a) ? json_array_size(a) : 0; }
/* the i-th item of an array, as a document for num() and str() */
static jv item(const json_t *a, size_t i) { return json_array_get(a, i); }
static void json_free(jv *d) { json_decref(*d); }

/* the row named `name` of a simulate/advise result, or NULL */
static const json_t *row_of(const json_t *res, const char *name) {
  for (size_t i = 0; i < nitems(res); i++)
    if (!strcmp(str(&(jv){item(res, i)}, "row"), name)) return item(res, i);
  fprintf(stderr, "  no row %s\n", name);
  tc_failures++;
  return NULL;
}

static double row_num(const json_t *res, const char *name, const char *key) {
  const json_t *r = row_of(res, name);
  return r ? num(&(jv){(json_t *)r}, key) : -1;
}

#define MIB 1048576.0

static void compare(void) {
  jv d;
  CHECK_INT(parse("compare --machine bgq:512,default=tile --ppn 16 --bytes-per-rank 1MiB --json", &d), 0);
  CHECK(strcmp(str(&d, "machine"), "bgq:512,default=tile") == 0);
  CHECK_NEAR(num(&d, "nodes"), 512, 0);
  const json_t *res = json_get(&d, "results");
  CHECK(nitems(res) == 7);
  static const char *names[] = {"default",           "route-aware",            "refined",
                                "load-aware",        "collective-default",     "collective-bridge-ring",
                                "collective-topology"};
  static const char *keys[] = {"avg_hops", "max_hops", "max_link_load", "hop_bytes", "max_gateway_msgs",
                               "max_gateway_bytes", "modelled_time_s"};
  for (size_t i = 0; res && i < nitems(res) && i < 7; i++) {
    jv r0 = item(res, i), *r = &r0;
    CHECK(strcmp(str(r, "assignment"), names[i]) == 0);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) CHECK(num(r, keys[k]) >= 0);
    CHECK(num(r, "fair_share_time_s") >= num(r, "modelled_time_s") * (1 - 1e-9));
  }
  if (res && nitems(res) == 7) {
    /* default: 64 nodes of 16 ranks x 1 MiB per bridge; tile 2x2x2x4x2 with
     * the bridge at (0,1,0,1,0): mean distance .5+.5+.5+1+.5 = 3, max 6;
     * the exit link is the bottleneck: 1 GiB / 1.8 GB/s + 6 x 40 ns */
    jv r0 = item(res, 0), *r = &r0;
    CHECK_NEAR(num(r, "avg_hops"), 3.0, 1e-9);
    CHECK_NEAR(num(r, "max_hops"), 6, 0);
    CHECK_NEAR(num(r, "max_gateway_msgs"), 1024, 0);
    CHECK_NEAR(num(r, "max_gateway_bytes"), 1073741824.0, 0);
    CHECK_NEAR(num(r, "max_link_load"), 1073741824.0, 0);
    CHECK_NEAR(num(r, "hop_bytes"), 512 * 16 * 1048576.0 * 3, 0);
    CHECK_NEAR(num(r, "modelled_time_s"), 1073741824.0 / 1.8e9 + 6 * 40e-9, 1e-9);
    /* every row writes the same bytes; the refinement is never worse than
     * route-aware on the bottleneck */
    CHECK(num(&(jv){item(res, 2)}, "max_link_load") <= num(&(jv){item(res, 1)}, "max_link_load"));
    /* load-aware on a balanced default: every bridge at the mean, no move */
    CHECK_NEAR(num(&(jv){item(res, 3)}, "moved_nodes"), 0, 0);
    CHECK_NEAR(num(&(jv){item(res, 3)}, "modelled_time_s"), num(r, "modelled_time_s"), 1e-12);
    /* collective rows: 64 aggregators write 128 MiB each in 16 MiB pieces */
    CHECK_NEAR(num(&(jv){item(res, 4)}, "max_gateway_msgs"), 8 * 8, 0);
  }
  json_free(&d);

  CHECK_INT(parse("compare --machine bgq:512,default=tile --ppn 16 --bytes-per-rank 256KiB --coalesce --json", &d), 0);
  res = json_get(&d, "results");
  if (res && nitems(res) == 7) {
    CHECK_NEAR(num(&(jv){item(res, 0)}, "max_gateway_msgs"), 64, 0);
    CHECK_NEAR(num(&(jv){item(res, 0)}, "max_gateway_bytes"), 64 * 16 * 262144.0, 0);
  }
  CHECK(json_is_true(json_get(&d, "coalesce")));
  json_free(&d);

  CHECK_INT(parse("compare --machine dragonfly:theta --ppn 4 --bytes-per-rank 1MiB --json --no-fair-share", &d), 0);
  res = json_get(&d, "results");
  CHECK(res && nitems(res) == 7);
  CHECK_NEAR(num(&d, "nodes"), 3426, 0);
  json_free(&d);
}

static void machines(void) {
  jv d;
  CHECK_INT(parse("machines --json", &d), 0);
  const json_t *ms = json_get(&d, "machines");
  int found = 0;
  for (size_t i = 0; ms && i < nitems(ms); i++)
    if (strcmp(str(&(jv){item(ms, i)}, "spec"), "bgq:mira") == 0) {
      found = 1;
      CHECK_NEAR(num(&(jv){item(ms, i)}, "nodes"), 49152, 0);
      CHECK_NEAR(num(&(jv){item(ms, i)}, "gateways"), 768, 0);
    }
  CHECK(found);
  json_free(&d);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

static void replay(void) {
  const char *tmp = getenv("FERRY_TEST_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  char one[512], lines[512], args[1400];
  int st0;
  snprintf(one, sizeof one, "%s/topo_trace_%d.json", tmp, (int)getpid());
  snprintf(lines, sizeof lines, "%s/topo_trace_%d.jsonl", tmp, (int)getpid());
  /* bgq:32 (2x2x2x2x2), 16 ranks per node: ranks 0-15 on node 0, 16-31 on
   * node 1, one E+ hop apart. The single bridge is node (0,1,0,1,0) = 10,
   * two hops from node 0. */
  write_file(one,
             "{\"ranks\":32,\"ranks_per_node\":16,\"messages\":[{\"src\":0,\"dst\":16,\"bytes\":100},"
             "{\"src\":1,\"dst\":17,\"bytes\":50,\"tag\":7}],\"writes\":[{\"rank\":0,\"bytes\":1000}]}\n");
  write_file(lines,
             "{\"ranks\":32,\"ranks_per_node\":16,\"messages\":[{\"src\":0,\"dst\":16,\"bytes\":100}]}\n"
             "{\"ranks\":32,\"ranks_per_node\":16,\"messages\":[{\"src\":1,\"dst\":17,\"bytes\":50}],"
             "\"writes\":[{\"rank\":0,\"bytes\":1000}]}\n");
  const char *files[] = {one, lines};
  for (int i = 0; i < 2; i++) {
    jv d;
    snprintf(args, sizeof args, "replay %s --machine bgq:32 --json", files[i]);
    CHECK_INT(parse(args, &d), 0);
    CHECK_NEAR(num(&d, "messages"), 2, 0);
    CHECK_NEAR(num(&d, "writes"), 1, 0);
    CHECK_NEAR(num(&d, "node_pairs"), 1, 0);
    CHECK_NEAR(num(&d, "ranks_per_node"), 16, 0);
    const json_t *res = json_get(&d, "results");
    CHECK(res && nitems(res) == 1);
    if (res && nitems(res) == 1) {
      jv r0 = item(res, 0), *r = &r0;
      CHECK_NEAR(num(r, "hop_bytes"), 150 * 1 + 1000 * 2, 0);
      CHECK_NEAR(num(r, "max_hops"), 2, 0);
      CHECK_NEAR(num(r, "max_gateway_bytes"), 1000, 0);
      CHECK_NEAR(num(r, "max_gateway_msgs"), 1, 0);
      CHECK_NEAR(num(r, "max_link_load"), 1000, 0);
      CHECK_NEAR(num(r, "avg_hops"), 2150.0 / 1150.0, 1e-6);
    }
    json_free(&d);
  }
  /* the same trace through SimGrid: two flows that share no link, so the
   * simulated time is the floor (1000 B over the busiest link plus the
   * longest route's latency) */
  {
    jv d;
    snprintf(args, sizeof args, "replay %s --machine bgq:32 --json --simulate", one);
    CHECK_INT(parse(args, &d), 0);
    const json_t *res = json_get(&d, "results");
    if (nitems(res) == 1) {
      jv r0 = item(res, 0);
      CHECK_NEAR(num(&d, "simulated_time_s") / num(&r0, "modelled_time_s"), 1.0, 0.01);
    } else {
      CHECK(0);
    }
    json_free(&d);
  }
  /* real coordinates recorded by the run (FERRY_TOPOLOGY=SPEC@MAP): rank 0
   * on node 0, rank 1 on the bridge (node 10, two hops away), whose own
   * write crosses no link; --ppn asks for blocks instead */
  write_file(lines,
             "{\"ranks\":2,\"rank\":0,\"node\":0,\"messages\":[{\"src\":0,\"dst\":1,\"bytes\":100}]}\n"
             "{\"ranks\":2,\"rank\":1,\"node\":10,\"messages\":[],\"writes\":[{\"rank\":1,\"bytes\":1000}]}\n");
  jv d;
  snprintf(args, sizeof args, "replay %s --machine bgq:32 --json", lines);
  CHECK_INT(parse(args, &d), 0);
  const json_t *res = json_get(&d, "results");
  CHECK(res && nitems(res) == 1);
  if (res && nitems(res) == 1) {
    CHECK_NEAR(num(&(jv){item(res, 0)}, "hop_bytes"), 200, 0);
    CHECK_NEAR(num(&(jv){item(res, 0)}, "max_gateway_bytes"), 1000, 0);
  }
  json_free(&d);
  snprintf(args, sizeof args, "replay %s --machine bgq:32 --ppn 1 --json", lines);
  CHECK_INT(parse(args, &d), 0);
  res = json_get(&d, "results");
  if (res && nitems(res) == 1) CHECK(num(&(jv){item(res, 0)}, "hop_bytes") != 200);
  json_free(&d);
  write_file(lines, "{\"ranks\":2,\"rank\":0,\"messages\":[]}\n");
  snprintf(args, sizeof args, "replay %s --machine bgq:32", lines);
  free(run(args, &st0));
  CHECK_INT(st0, 1); /* a rank without its node */

  /* too many ranks for the machine, a broken trace */
  int st;
  snprintf(args, sizeof args, "replay %s --machine flat:8 --ppn 1", one);
  free(run(args, &st));
  CHECK_INT(st, 1);
  write_file(lines, "{\"ranks\":2,\"messages\":[{\"src\":0,\"dst\":5,\"bytes\":1}]}\n");
  snprintf(args, sizeof args, "replay %s --machine bgq:32", lines);
  free(run(args, &st));
  CHECK_INT(st, 1);

  /* A run's FERRY_STATS_JSON record (replay used to cost it as 0 bytes):
   * 32 ranks on 2 nodes wrote 32 MiB in 64 calls, so each rank 1 MiB in 2
   * requests through bgq:32's one bridge (node 10, 2 hops from node 0, 3
   * from node 1): 64 requests, 32 MiB at the bridge. A trace's "calls"
   * count as requests too. */
  write_file(lines, "{\"schema\":1,\"file\":\"/x/out\",\"ranks\":32,\"nodes\":2,\"counters\":{\"bytes_written\":33554432,"
                    "\"ind_writes\":64,\"coll_writes\":0,\"sys_writes\":64},\"time\":1}\n");
  snprintf(args, sizeof args, "replay %s --machine bgq:32 --json", lines);
  CHECK_INT(parse(args, &d), 0);
  res = json_get(&d, "results");
  if (nitems(res) == 1) {
    jv r0 = item(res, 0);
    CHECK_NEAR(num(&r0, "max_gateway_bytes"), 32 * 1048576.0, 0);
    CHECK_NEAR(num(&r0, "max_gateway_msgs"), 64, 0);
    CHECK_NEAR(num(&r0, "hop_bytes"), 16 * 1048576.0 * 2 + 16 * 1048576.0 * 3, 0);
  } else {
    CHECK(0);
  }
  CHECK_NEAR(num(&d, "ranks_per_node"), 16, 0);
  json_free(&d);
  write_file(lines, "{\"ranks\":32,\"ranks_per_node\":16,\"writes\":[{\"rank\":0,\"bytes\":4096,\"calls\":4}]}\n");
  snprintf(args, sizeof args, "replay %s --machine bgq:32 --json", lines);
  CHECK_INT(parse(args, &d), 0);
  res = json_get(&d, "results");
  if (nitems(res) == 1) CHECK_NEAR(num(&(jv){item(res, 0)}, "max_gateway_msgs"), 4, 0);
  json_free(&d);

  /* the same record and trace as simulate's writers, laid over the
   * machine's ranks in proportion: ring of 8 at 1 rank per node; the
   * record's 32 ranks are too many, a 4-rank record gives each 1 MiB */
  snprintf(args, sizeof args, "simulate --machine torus:8,gwnodes=4 --ppn 1 --bytes-per-rank record:%s --assign default", lines);
  free(run(args, &st));
  CHECK_INT(st, 1); /* a trace without a record */
  write_file(lines, "{\"schema\":1,\"ranks\":4,\"nodes\":4,\"counters\":{\"bytes_written\":4194304,\"ind_writes\":4}}\n");
  snprintf(args, sizeof args, "simulate --machine torus:8,gwnodes=4 --ppn 1 --bytes-per-rank record:%s --assign default --json", lines);
  CHECK_INT(parse(args, &d), 0);
  jv w = (json_t *)json_get(&d, "writers");
  CHECK_NEAR(num(&w, "total_bytes"), 8 * 1048576.0, 0);
  CHECK_NEAR(num(&w, "run_ranks"), 4, 0);
  json_free(&d);
  /* run ranks 0-3 wrote 4, 1, 1, 1 MiB: machine ranks 0-1 take rank 0's */
  write_file(lines, "{\"ranks\":4,\"writes\":[{\"rank\":0,\"bytes\":4194304},{\"rank\":1,\"bytes\":1048576},"
                    "{\"rank\":2,\"bytes\":1048576},{\"rank\":3,\"bytes\":1048576}]}\n");
  snprintf(args, sizeof args, "simulate --machine torus:8,gwnodes=4 --ppn 1 --bytes-per-rank trace:%s --assign default --json", lines);
  CHECK_INT(parse(args, &d), 0);
  w = (json_t *)json_get(&d, "writers");
  CHECK_NEAR(num(&w, "total_bytes"), 14 * 1048576.0, 0);
  res = json_get(&d, "results");
  /* gateway 0 serves nodes 0-3: 4 + 4 + 1 + 1 MiB */
  CHECK_NEAR(row_num(res, "default", "max_bridge_bytes"), 10 * 1048576.0, 0);
  json_free(&d);
  remove(one);
  remove(lines);
}

/* plot's data file, with a stand-in script so the test needs no matplotlib */
static void plot(void) {
  const char *tmp = getenv("FERRY_TEST_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  char dir[512], script[600], args[1400], data[700];
  snprintf(dir, sizeof dir, "%s/topo_plot_%d", tmp, (int)getpid());
  snprintf(script, sizeof script, "%s.py", dir);
  write_file(script, "import sys, json\njson.load(open(sys.argv[1]))\n");
  snprintf(args, sizeof args, "plot --machine bgq:512,default=tile --ppn 16 --bytes-per-rank 1MiB --out %s --script %s", dir, script);
  int st;
  free(run(args, &st));
  CHECK_INT(st, 0);
  snprintf(data, sizeof data, "%s/plotdata.json", dir);
  json_error_t je;
  jv d = json_load_file(data, 0, &je);
  CHECK(d != NULL);
  if (d) {
    jv pl = (json_t *)json_get(&d, "plane");
    CHECK(pl && strcmp(str(&pl, "x_dim"), "D") == 0 && strcmp(str(&pl, "y_dim"), "C") == 0);
    const json_t *as = json_get(&d, "assignments");
    CHECK(nitems(as) == 4);
    for (size_t i = 0; i < nitems(as); i++) {
      jv a = item(as, i);
      /* the heat map's title and the histogram's legend name the same
       * link: the busiest network link, not the bridge exit that binds */
      double top = 0;
      const json_t *ll = json_get(&a, "link_loads");
      for (size_t k = 0; k < nitems(ll); k++)
        if (json_number_value(json_array_get(ll, k)) > top) top = json_number_value(json_array_get(ll, k));
      CHECK_NEAR(num(&a, "max_net_link_load"), top, 0);
      CHECK(num(&a, "max_net_link_load") < num(&a, "max_link_load"));
      const json_t *links = json_get(&a, "link_loads"), *gb = json_get(&a, "gateway_bytes"),
                   *plk = json_get(&a, "plane_links");
      CHECK(nitems(gb) == 8 && nitems(plk) > 0);
      /* network link bytes add up to hop-bytes: 512 nodes x 16 MiB x 3 hops
       * for every assignment here (moves are between equally far bridges) */
      double sum = 0, gsum = 0;
      for (size_t k = 0; k < nitems(links); k++) sum += json_number_value(json_array_get(links, k));
      for (size_t k = 0; k < nitems(gb); k++) gsum += json_number_value(json_array_get(gb, k));
      CHECK_NEAR(sum, 512 * 16 * 1048576.0 * 3, 0);
      CHECK_NEAR(gsum, 512 * 16 * 1048576.0, 0);
    }
    json_free(&d);
  }
  remove(data);
  remove(script);
  rmdir(dir);
}

static void errors(void) {
  int st;
  free(run("frobnicate", &st));
  CHECK_INT(st, 2);
  free(run("compare --machine bgq:500", &st));
  CHECK_INT(st, 1);
  free(run("compare --bytes-per-rank lots", &st));
  CHECK_INT(st, 2);
  /* sizes that overflow the byte offsets, non-finite or negative costs
   * clear errors, never a run with zero rows */
  char *bad = run("compare --bytes-per-rank 99999999999999999999", &st);
  CHECK_INT(st, 2);
  CHECK(bad && bad[0] == '\0');
  free(bad);
  static const char *bad_opts[] = {"--msg-cost nan", "--msg-cost inf", "--msg-cost -1", "--msg-cost ''",
                                   "--bytes-per-rank inf", "--bytes-per-rank 2TiB", "--ppn 5000"};
  for (size_t i = 0; i < sizeof bad_opts / sizeof bad_opts[0]; i++) {
    char a[128];
    snprintf(a, sizeof a, "compare --machine bgq:32 %s", bad_opts[i]);
    free(run(a, &st));
    if (st != 2) fprintf(stderr, "  ferry-topo %s: status %d\n", a, st);
    CHECK_INT(st, 2);
  }
  /* inside the old documented range but hours of work: now a clear error */
  free(run("compare --machine fattree:k=256,levels=3", &st));
  CHECK_INT(st, 1);
  char *out = run("compare --machine bgq:128 --ppn 4", &st);
  CHECK_INT(st, 0);
  CHECK(out && strstr(out, "modelled_time_s") && strstr(out, "collective-topology"));
  /* bytes in readable units: a bridge's 64 nodes x 4 ranks x 1 MiB */
  CHECK(out && strstr(out, " 256 MiB ") && !strstr(out, "268435456"));
  free(out);
}


/* simulate end to end on a ring worked out by hand (test_topo_advise has
 * its assignments): ring of 8, gateways at nodes 0 and 4, one rank per
 * node, nodes 1-3 writing 4 MiB, the others 1 MiB; 2 GB/s links.
 *  - default: gateway 0's link carries 13 MiB, always busy: 13 MiB / 2 GB/s.
 *  - route-aware (the seed's walk moves 2, 3 to gateway 1 and 6, 7 to 0,
 *    the seed's path): 2 and 3 send 4 MiB each by MPI to node 4, sharing
 *    the link 3->4 (8 MiB / 2 GB/s); node 4 has written its own 1 MiB and
 *    node 5 its 1 MiB meanwhile, then ships the 8 MiB one write after
 *    another: 16 MiB / 2 GB/s in all, though its link carries only 10 MiB
 *    (the floor's 10 MiB / 2 GB/s).
 *  - load-aware (node 3 to gateway 1): 3's 4 MiB arrive at node 4 while 4,
 *    5, 6, 7 write their 1 MiB each; gateway 1's link is busy throughout
 *    (8 MiB), gateway 0's carries 9 MiB: 9 MiB / 2 GB/s.
 *  - ferry-forward on the advised assignment (load-aware): nodes 1 and 2
 *    send their 4 MiB to the forwarder on node 0 over the link 1->0
 *    (8 MiB / 2 GB/s), which then writes them: 16 MiB / 2 GB/s. */
static void simulate(void) {
  jv d;
  const char *ring = "--machine torus:8,gwnodes=4 --ppn 1 --bytes-per-rank 1MiB:37.5%x4@12.5%";
  char args[512];
  snprintf(args, sizeof args, "simulate %s --json", ring);
  CHECK_INT(parse(args, &d), 0);
  const json_t *res = json_get(&d, "results");
  CHECK_INT(nitems(res), 7);
  CHECK(strcmp(str(&(jv){(json_t *)json_get(&d, "costs")}, "mode"), "network") == 0);
  CHECK_NEAR(num(&(jv){(json_t *)json_get(&d, "writers")}, "total_bytes"), 17 * MIB, 0);
  CHECK_NEAR(row_num(res, "default", "simulated_time_s"), 13 * MIB / 2e9, 2e-6);
  CHECK_NEAR(row_num(res, "default", "floor_time_s"), 13 * MIB / 2e9 + 3 * 40e-9, 1e-12);
  CHECK_NEAR(row_num(res, "route-aware", "simulated_time_s"), 16 * MIB / 2e9, 2e-6);
  CHECK_NEAR(row_num(res, "route-aware", "floor_time_s"), 10 * MIB / 2e9 + 2 * 40e-9, 1e-12);
  CHECK_NEAR(row_num(res, "route-aware", "moved_nodes"), 4, 0);
  CHECK_NEAR(row_num(res, "load-aware", "simulated_time_s"), 9 * MIB / 2e9, 2e-6);
  CHECK_NEAR(row_num(res, "load-aware", "moved_nodes"), 1, 0);
  CHECK_NEAR(row_num(res, "ferry-forward", "simulated_time_s"), 16 * MIB / 2e9, 2e-6);
  const json_t *ff = row_of(res, "ferry-forward");
  if (ff) {
    CHECK(strcmp(str(&(jv){(json_t *)ff}, "assignment"), "load-aware") == 0);
    CHECK(strcmp(str(&(jv){(json_t *)ff}, "path"), "forward") == 0);
  }
  const json_t *nr = row_of(res, "node-request");
  if (nr) CHECK(json_is_true(json_object_get(nr, "what_if")));
  /* requests (1 MiB calls): gateway 1 gets 4, 5 and the moved 2, 3: 1 + 1
   * + 4 + 4; gateway 0 gets 0, 1 and the moved 6, 7: 1 + 4 + 1 + 1. The
   * coalesced path sends one request per moved node: 4 and 7. */
  CHECK_NEAR(row_num(res, "route-aware", "max_ion_requests"), 10, 0);
  CHECK_NEAR(row_num(res, "route-aware-coalesced", "max_ion_requests"), 7, 0);
  json_free(&d);

  /* One shipped write at a time per node, each paying its route's latency
   * for the request, the pull's request and data, and the reply: 16 ranks
   * writing 8 B each from node 3, three hops plus the bridge link from
   * gateway 0, take 16 x 4 x (3 + 1) x 40 ns one after another, then its
   * 128 B cross the bridge link alone (the nearer nodes are done): 64 ns,
   * plus the 1 ns every transfer carries to set its share. */
  CHECK_INT(parse("simulate --machine torus:8,gwnodes=4 --ppn 16 --bytes-per-rank 8 --assign default --json", &d), 0);
  res = json_get(&d, "results");
  CHECK_NEAR(row_num(res, "default", "simulated_time_s"), 16 * 4 * 4 * 40e-9 + 128 / 2e9 + 1e-9, 2e-12);
  json_free(&d);

  /* file-system costs: one 1 MiB write per node, 0.1 s per request at each
   * gateway group's server, 4 GB/s per group (QDR InfiniBand) and 2 GB/s
   * links: the four writes of group 0 cross its gateway's link together
   * (4 MiB / 2 GB/s), then the server serves them: 4 x 0.1 s */
  CHECK_INT(parse("simulate --machine torus:8,gwnodes=4 --ppn 1 --fs --msg-cost 0.1 --assign default --json", &d), 0);
  res = json_get(&d, "results");
  CHECK_INT(nitems(res), 1);
  CHECK(strcmp(str(&(jv){(json_t *)json_get(&d, "costs")}, "mode"), "file-system") == 0);
  CHECK_NEAR(num(&(jv){(json_t *)json_get(&d, "costs")}, "ion_bw"), 4e9, 1e-3);
  CHECK_NEAR(row_num(res, "default", "simulated_time_s"), 0.4 + 4 * MIB / 2e9, 1e-5);
  CHECK_NEAR(row_num(res, "default", "floor_time_s"), 0.4 + 3 * 40e-9, 1e-12);
  json_free(&d);

  /* balanced BG/Q midplane, network only: the bridge links bind at the
   * mean, so load-aware moves nobody and the default's time is the floor */
  CHECK_INT(parse("simulate --machine bgq:512,default=tile --ppn 16 --assign default,load-aware --json", &d), 0);
  res = json_get(&d, "results");
  CHECK_INT(nitems(res), 2);
  CHECK_NEAR(row_num(res, "default", "simulated_time_s") / (1073741824.0 / 1.8e9), 1, 1e-4);
  CHECK_NEAR(row_num(res, "load-aware", "moved_nodes"), 0, 0);
  json_free(&d);

  /* compare --simulate: SimGrid beside the floor on every row; the floor
   * is a lower bound, and the per-request cost adds to the transfer
   * (1024 x 1 ms after 0.597 s) where the floor takes the larger */
  CHECK_INT(parse("compare --machine bgq:512,default=tile --simulate --msg-cost 1e-3 --json", &d), 0);
  res = json_get(&d, "results");
  CHECK(nitems(res) == 7);
  for (size_t i = 0; i < nitems(res); i++) {
    jv r = item(res, i);
    CHECK(num(&r, "simulated_time_s") >= num(&r, "modelled_time_s") * (1 - 1e-6));
  }
  if (nitems(res) == 7) {
    jv r0 = item(res, 0);
    CHECK_NEAR(num(&r0, "modelled_time_s"), 1.024 + 6 * 40e-9, 1e-9);
    CHECK_NEAR(num(&r0, "simulated_time_s") / (1073741824.0 / 1.8e9 + 1.024), 1.0, 0.01);
  }
  json_free(&d);
  int st;
  free(run("simulate --machine bgq:32 --assign nothing", &st));
  CHECK_INT(st, 2);
  free(run("simulate --machine bgq:32 --bytes-per-rank 1MiB:25%y4", &st));
  CHECK_INT(st, 1);
  free(run("compare --machine bgq:32 --bytes-per-rank 1MiB:25%x4", &st));
  CHECK_INT(st, 2);
}

/* advise: the verdicts on the ring above (floor: default 13 MiB, seed's
 * walk 10, load-aware 9 on the busiest gateway link: load-aware, 31 %),
 * evenly loaded (keep the default, and the sentence on the paper's -60 %),
 * and a machine's dumped bridge map that sends every node to gateway 0. */
static void advise(void) {
  const char *tmp = getenv("FERRY_TEST_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  jv d;
  CHECK_INT(parse("advise --machine torus:8,gwnodes=4 --ppn 1 --pattern 1MiB:37.5%x4@12.5% --json", &d), 0);
  jv a = (json_t *)json_get(&d, "advice");
  CHECK(strcmp(str(&a, "row"), "load-aware") == 0);
  CHECK(json_is_false(json_object_get(a, "keep_default")));
  double td = 13 * MIB / 2e9 + 3 * 40e-9, tl = 9 * MIB / 2e9 + 3 * 40e-9;
  CHECK_NEAR(num(&a, "gain"), 1 - tl / td, 1e-9);
  CHECK_NEAR(num(&a, "imbalance"), 13.0 / 8.5, 1e-9);
  CHECK(strncmp(str(&a, "verdict"), "use load-aware with the seed's", 30) == 0);
  CHECK(strstr(str(&a, "paper"), "does not provide it") != NULL);
  json_free(&d);
  /* with SimGrid's times: load-aware still (9 MiB against 13) */
  CHECK_INT(parse("advise --machine torus:8,gwnodes=4 --ppn 1 --pattern 1MiB:37.5%x4@12.5% --simulate --json", &d), 0);
  a = (json_t *)json_get(&d, "advice");
  CHECK(strcmp(str(&a, "row"), "load-aware") == 0);
  CHECK_NEAR(num(&a, "time_s"), 9 * MIB / 2e9, 2e-6);
  json_free(&d);

  CHECK_INT(parse("advise --machine torus:8,gwnodes=4 --ppn 1 --pattern 1MiB --json", &d), 0);
  a = (json_t *)json_get(&d, "advice");
  CHECK(json_is_true(json_object_get(a, "keep_default")));
  CHECK(strcmp(str(&a, "row"), "default") == 0);
  CHECK_NEAR(num(&a, "imbalance"), 1, 1e-12);
  CHECK(strncmp(str(&a, "verdict"), "keep the default", 16) == 0);
  CHECK(strstr(str(&a, "paper"), "a balanced default (1.00x here) does not provide it") != NULL);
  json_free(&d);

  /* a dumped map sending all nodes to gateway 0 (node 4 is gateway 1 and
   * keeps itself): 7 MiB against 1; load-aware balances 4 and 4 */
  char map[512], args[1200];
  snprintf(map, sizeof map, "%s/topo_map_%d", tmp, (int)getpid());
  write_file(map, "0\n0\n0\n0\n4\n0\n0\n0\n");
  snprintf(args, sizeof args, "advise --machine torus:8,gwnodes=4 --map %s --ppn 1 --pattern 1MiB --json", map);
  CHECK_INT(parse(args, &d), 0);
  a = (json_t *)json_get(&d, "advice");
  CHECK(strcmp(str(&a, "row"), "load-aware") == 0);
  CHECK_NEAR(num(&a, "default_time_s"), 7 * MIB / 2e9 + 3 * 40e-9, 1e-12);
  CHECK_NEAR(num(&a, "time_s") - 4 * MIB / 2e9, 0, 4 * 40e-9);
  json_free(&d);
  unlink(map);
}

/* Every command answers --help (and -h) with its own usage on stdout,
 * exit 0; bad input names the option as typed and says why. */
static void help_and_reasons(void) {
  static const char *const cmds[] = {"machines", "compare", "replay", "simulate", "advise", "plot"};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    char a[64], want[64];
    int st;
    snprintf(a, sizeof a, "%s %s", cmds[i], i % 2 ? "-h" : "--help");
    char *out = run(a, &st);
    snprintf(want, sizeof want, "usage: ferry-topo %s ", cmds[i]);
    if (st != 0 || !out || strncmp(out, want, strlen(want)))
      fprintf(stderr, "  ferry-topo %s: status %d, output: %s\n", a, st, out ? out : "");
    CHECK_INT(st, 0);
    CHECK(out && !strncmp(out, want, strlen(want)));
    free(out);
  }
  int st;
  char *m = run("machines --help", &st);
  CHECK(m && strstr(m, "--detail adds each model's description"));
  free(m);

  const char *tmp = getenv("FERRY_TEST_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  char notjson[512], norun[512], missing[512], a[1400];
  snprintf(notjson, sizeof notjson, "%s/topo_notjson_%d.json", tmp, (int)getpid());
  snprintf(norun, sizeof norun, "%s/topo_norun_%d.json", tmp, (int)getpid());
  snprintf(missing, sizeof missing, "%s/topo_missing_%d.json", tmp, (int)getpid());
  write_file(notjson, "my notes\n");
  write_file(norun, "{\"note\":1}\n");
  says("advise --machine bgq:32 --pattern 1MiB:125%x4", 1,
       "--pattern '1MiB:125%x4': F, the share of nodes that write more, is '125%': a percentage from 0% to 100%");
  says("simulate --machine bgq:32 --bytes-per-rank 1MiB:25%x4@90%", 1,
       "--bytes-per-rank '1MiB:25%x4@90%': the block runs past the last node");
  snprintf(a, sizeof a, "advise --machine bgq:32 --pattern record:%s", notjson);
  says(a, 1, "--pattern record:");
  says(a, 1, ": line 1: invalid token near 'my' (not JSON)");
  snprintf(a, sizeof a, "advise --machine bgq:32 --pattern record:%s", norun);
  says(a, 1, ": no FERRY_STATS_JSON record in it");
  snprintf(a, sizeof a, "advise --machine bgq:32 --pattern trace:%s", missing);
  says(a, 1, ": cannot read it: No such file or directory");
  snprintf(a, sizeof a, "replay %s --machine bgq:32", norun);
  says(a, 1, ": no messages, writes or FERRY_STATS_JSON records in it");
  snprintf(a, sizeof a, "replay %s --machine bgq:32", missing);
  says(a, 1, ": cannot read it: No such file or directory");
  snprintf(a, sizeof a, "advise --machine torus:8,gwnodes=4 --map %s --pattern 1MiB", missing);
  says(a, 1, "--map");
  says(a, 1, "cannot open it: No such file or directory");
  says("compare --machine bgq:32 --ppn 0", 2, "bad value for --ppn: '0': a whole number from 1 to 1024");
  says("compare --machine bgq:32 --min-gain 2", 2, "bad value for --min-gain: '2': a fraction from 0 to below 1");
  says("compare --machine bgq:32 --pattern 1MiB:25%x4", 2, "--pattern takes a size here");
  unlink(notjson);
  unlink(norun);

  /* --ion-bw: the man page's own default as typed there (4e9), and a size
   * in the units sizes have (4g: 4 GiB/s, shown so) */
  jv d;
  CHECK_INT(parse("simulate --machine torus:8,gwnodes=4 --ppn 1 --fs --ion-bw 4e9 --assign default --json", &d), 0);
  CHECK_NEAR(num(&(jv){(json_t *)json_get(&d, "costs")}, "ion_bw"), 4e9, 0);
  json_free(&d);
  CHECK_INT(parse("simulate --machine torus:8,gwnodes=4 --ppn 1 --fs --ion-bw 4g --assign default --json", &d), 0);
  CHECK_NEAR(num(&(jv){(json_t *)json_get(&d, "costs")}, "ion_bw"), 4294967296.0, 0);
  CHECK(strstr(str(&(jv){(json_t *)json_get(&d, "costs")}, "text"), "4 GiB/s each") != NULL);
  json_free(&d);
}

/* Machines whose gateways are service nodes (LNET routers, I/O nodes) run
 * every row, the seed's moved paths included: a moved node ships from the
 * gateway node itself, which has no default gateway of its own. The
 * emulated cluster's balanced default at its rates: 4 nodes of 2 ranks
 * writing 1 MiB each, each node's link (1 MB/s) binds: 2 MiB / 1 MB/s. */
static void service_gateways(void) {
  jv d;
  CHECK_INT(parse("simulate --machine cluster:nodes=4,ions=2,rate=1e6,iorate=2e6,iosrate=4e6 --ppn 2 "
                  "--bytes-per-rank 1MiB --json",
                  &d),
            0);
  const json_t *res = json_get(&d, "results");
  CHECK_INT(nitems(res), 7);
  CHECK_NEAR(row_num(res, "default", "floor_time_s"), 2 * MIB / 1e6, 1e-3);
  CHECK(row_num(res, "route-aware", "simulated_time_s") > 0);
  json_free(&d);
  CHECK_INT(parse("simulate --machine fattree:k=16,levels=2 --ppn 2 --bytes-per-rank 1MiB --assign route-aware "
                  "--json",
                  &d),
            0);
  CHECK_INT(nitems(json_get(&d, "results")), 1);
  json_free(&d);
}

int main(void) {
  help_and_reasons();
  service_gateways();
  compare();
  simulate();
  advise();
  machines();
  replay();
  plot();
  errors();
  return tc_done("test_topo_cli");
}
