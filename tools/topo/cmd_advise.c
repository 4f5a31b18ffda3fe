/* ferry-topo advise: which gateway assignment and which aggregation a
 * pattern of writers should use on a machine, the predicted write time and
 * the binding resource of each, and why. Candidates are simulate's rows
 * that someone implements; the floor predicts unless --simulate. A change
 * from the default is advised only when it is predicted --min-gain (2 %)
 * faster. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "io_output.h"
#include "output.h"

#define NCANDS 8 /* at least the rows that are not what-if */

static const char *aggregation(path_kind k) {
  switch (k) {
  case PATH_DIRECT: return "none: every rank ships its own writes";
  case PATH_SEED: return "the seed's: moved ranks send to the new bridge node's cores";
  case PATH_SEED_COALESCED: return "the seed's coalesced: a moved node's ranks as one request";
  case PATH_FORWARD: return "ferry's forward strategy: every node one message to its forwarder";
  default: return "";
  }
}

/* advise's candidates: the rows someone implements */
static int implemented(const io_row_def *d, const void *arg) {
  (void)arg;
  return !d->what_if;
}

/* One line of the verdict; a line cut at the buffer's end stays a line. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

/* How unevenly the default loads the kind of resource that binds it: the
 * busiest over the mean, which no assignment can go below. */
static double imbalance(const io_row *d, const char **what, const char **unit) {
  switch (d->bind.kind) {
  case FERRY_TOPO_BIND_GROUP_MSGS:
    *what = "I/O node", *unit = "requests";
    return d->mean_group_msgs > 0 ? d->max_group_msgs / d->mean_group_msgs : 1;
  case FERRY_TOPO_BIND_GROUP_BYTES:
    *what = "I/O node", *unit = "bytes";
    return d->mean_group_bytes > 0 ? d->max_group_bytes / d->mean_group_bytes : 1;
  default:
    *what = "bridge", *unit = "bytes";
    return d->mean_gw_bytes > 0 ? d->max_gw_bytes / d->mean_gw_bytes : 1;
  }
}

int cmd_advise(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o, CMD_NO_OPERANDS);
  if (rc) return rc;
  io_setup s;
  if (io_setup_make(&o, "advise", &s)) return 1;
  s.cfg.simulate = o.simulate;
  io_row rows[NCANDS];
  int status = 1, nc = io_rows_run(&s.cfg, "advise", io_rows_all, io_nrows < NCANDS ? io_nrows : NCANDS, implemented,
                                   NULL, rows);
  if (nc < 1) goto out;

  double min_gain = o.min_gain > 0 ? o.min_gain : 0.02;
  const io_row *d = &rows[0];
  int best = 0;
  for (int i = 1; i < nc; i++)
    if (io_row_time(&rows[i]) < io_row_time(&rows[best])) best = i;
  double gain = 1 - io_row_time(&rows[best]) / io_row_time(d);
  if (gain < min_gain) best = 0;
  const io_row *b = &rows[best];
  const char *what, *unit;
  double r = imbalance(d, &what, &unit), reach = 1 - 1 / r;
  char bound[128], verdict[640], why[640], paper[640];
  out_io_bound(s.m, &b->bind, bound, sizeof bound);
  if (best) {
    say(verdict, sizeof verdict, "use %s with %s: %.4g s, %.0f %% below the default's %.4g s (%s); bound by %s",
             b->assign, aggregation(b->path), io_row_time(b), 100 * gain, io_row_time(d), b->name, bound);
  } else {
    int alt = 1;
    for (int i = 2; i < nc; i++)
      if (io_row_time(&rows[i]) < io_row_time(&rows[alt])) alt = i;
    say(verdict, sizeof verdict,
             "keep the default: %.4g s, bound by %s; nothing is predicted %.0f %% faster (the best other, %s, %+.1f %%)",
             io_row_time(d), bound, 100 * min_gain, rows[alt].name, 100 * (io_row_time(&rows[alt]) / io_row_time(d) - 1));
  }
  double speedup = io_row_time(d) / io_row_time(b);
  if (!best)
    say(why, sizeof why,
             "why: the default's busiest %s carries %.2fx the mean %s, so balancing can take at most %.0f %% off, "
             "and no path is predicted to gain %.0f %%",
             what, r, unit, 100 * reach, 100 * min_gain);
  else if (b->path == PATH_SEED_COALESCED && gain > reach + min_gain)
    say(why, sizeof why,
             "why: the default's busiest %s carries %.2fx the mean %s (balance alone: at most %.0f %% off); the rest "
             "is the coalescing: each moved node writes as one request (busiest I/O node: %.0f -> %.0f requests)",
             what, r, unit, 100 * reach, d->max_group_msgs, b->max_group_msgs);
  else
    say(why, sizeof why,
             "why: the default's busiest %s carries %.2fx the mean %s; balancing can take at most %.0f %% off, %s "
             "takes %.0f %%",
             what, r, unit, 100 * reach, b->name, 100 * gain);
  say(paper, sizeof paper,
           "the paper's -60 %% needs the default's binding resource loaded at least 2.5x what the chosen path leaves "
           "on its busiest; by balance alone, the default at 2.5x the mean: %s; the best path here gives %.2fx",
           r >= 2.5 ? "this default's imbalance provides it"
           : r < 1.0005 ? "a balanced default (1.00x here) does not provide it"
                        : "this default's imbalance does not provide it",
           speedup);
  if (o.json) {
    json_t *adv = json_pack("{s:s,s:s,s:s,s:b,s:f,s:f,s:f,s:f,s:f,s:s,s:s,s:s}", "row", b->name, "assignment", b->assign,
                            "path", path_name(b->path), "keep_default", best == 0, "time_s", io_row_time(b),
                            "default_time_s", io_row_time(d), "gain", best ? gain : 0.0, "imbalance", r,
                            "max_gain_by_balance", reach, "verdict", verdict, "why", why, "paper", paper);
    out_io_json(stdout, &s, rows, nc, adv);
  } else {
    out_io_header(stdout, &s, o.simulate ? "predicted by SimGrid" : "predicted by the floor (--simulate: SimGrid)");
    out_io_table(stdout, &s, rows, nc);
    printf("advice: %s\n%s\n%s\n", verdict, why, paper);
  }
  status = 0;
out:
  io_setup_free(&s);
  return status;
}
