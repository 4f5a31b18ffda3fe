/* ferry-topo simulate: the seed's and ferry's I/O paths run on SimGrid,
 * each with its floor (ferry_topo_evaluate on the same flows) beside it.
 *
 * Rows (docs/topology.md, "I/O paths"):
 *   default                the default assignment, every rank ships its own
 *                          writes (BG/Q's default independent I/O);
 *   route-aware            the seed's walk, the seed's path;
 *   route-aware-coalesced  the seed's walk, moved nodes gathered and written
 *                          as one request (the seed's coalesced mode);
 *   load-aware             load-aware assignment, the seed's path;
 *   load-aware-coalesced   load-aware (knowing moved nodes coalesce), the
 *                          seed's coalesced path;
 *   ferry-forward          ferry's forward strategy on the assignment its
 *                          plan takes from the advice: every node coalesced
 *                          into one message, each piece its own request;
 *   node-request           what-if: every node one request through its
 *                          default bridge.
 * Costs: network only unless --fs (file-system runs: the calibrated
 * per-request cost at each I/O node's server and its share of the file
 * system's bandwidth). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "io_rows.h"
#include "io_output.h"

#define NROWS 8 /* at least io_nrows */

/* --assign: a comma-separated list of row names */
static int row_wanted(const char *list, const char *name);
static int wanted(const io_row_def *d, const void *list) { return !list || row_wanted(list, d->name); }

static int row_wanted(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

/* every name in --assign is a row */
static const char *unknown_row(const char *list) {
  static char bad[64];
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    int ok = 0;
    for (int i = 0; i < io_nrows; i++) ok |= strlen(io_rows_all[i].name) == l && !strncmp(io_rows_all[i].name, p, l);
    if (!ok) {
      snprintf(bad, sizeof bad, "%.*s", (int)(l < 60 ? l : 60), p);
      return bad;
    }
    if (!e) break;
    p = e + 1;
  }
  return NULL;
}

int cmd_simulate(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o, CMD_NO_OPERANDS);
  if (rc) return rc;
  if (o.coalesce || o.split) {
    fprintf(stderr, "ferry-topo simulate: %s: the rows say how each node's writes travel (route-aware-coalesced, "
            "ferry-forward, node-request)\n", o.coalesce ? "--coalesce" : "--split-messages");
    return 2;
  }
  const char *bad = o.assign ? unknown_row(o.assign) : NULL;
  if (bad) {
    fprintf(stderr, "ferry-topo simulate: --assign: no row '%s' (rows:", bad);
    for (int i = 0; i < io_nrows; i++) fprintf(stderr, " %s", io_rows_all[i].name);
    fprintf(stderr, ")\n");
    return 2;
  }
  io_setup s;
  if (io_setup_make(&o, "simulate", &s)) return 1;
  s.cfg.simulate = 1;
  io_row rows[NROWS];
  int status = 1, nr = io_rows_run(&s.cfg, "simulate", io_rows_all, io_nrows < NROWS ? io_nrows : NROWS, wanted,
                                   o.assign, rows);
  if (nr < 0) goto out;
  if (o.json) out_io_json(stdout, &s, rows, nr, NULL);
  else {
    out_io_header(stdout, &s, "simulated on SimGrid");
    out_io_table(stdout, &s, rows, nr);
  }
  status = 0;
out:
  io_setup_free(&s);
  return status;
}
