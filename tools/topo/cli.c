/* Option parsing for ferry-topo. */
#include "cli.h"
#include "util/size.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void opts_defaults(topo_opts *o) {
  memset(o, 0, sizeof *o);
  o->machine = "bgq:512";
  o->ppn = 16;
  o->bytes_per_rank = 1048576.0;
  o->bytes_text = "1MiB";
  o->bytes_is_size = 1;
  o->bytes_opt = "--bytes-per-rank";
  o->ion_bw = -1;
  o->cb_buffer = 16777216.0;     /* ROMIO's cb_buffer_size default */
  o->gw_mem = 1073741824.0;      /* heap a BG/Q rank has at 16 ranks/node */
  o->mem_cap = -1;
  o->slack = 2;
  o->fair_share = 1;
}

/* The one size parser of every tool and hint (util/size.h): 1MB is 1MiB. */
int parse_size(const char *s, double *out) {
  int64_t v;
  if (ferry_size_parse(s, &v, NULL, 0)) return -1;
  *out = (double)v;
  return 0;
}

/* Sizes past 1 TiB per rank or buffer would overflow the byte offsets the
 * patterns compute (ranks x size in 64-bit integers) on the largest
 * machines; none is a plausible I/O request. */
#define SIZE_MAX_BYTES 1099511627776.0

static int want_size(const char *v, double *out, char *err, size_t errlen, const char *key) {
  int64_t b;
  char why[160];
  if (ferry_size_parse(v, &b, why, sizeof why)) {
    snprintf(err, errlen, "bad value for %s: '%s': %s", key, v, why);
    return -2;
  }
  *out = (double)b;
  if (*out <= 0) {
    snprintf(err, errlen, "bad value for %s: '%s': more than 0 bytes", key, v);
    return -2;
  }
  if (*out > SIZE_MAX_BYTES) {
    snprintf(err, errlen, "%s %s: at most 1TiB", key, v);
    return -2;
  }
  return 0;
}

/* A whole number from lo to hi; the reason when it is not. */
static int want_int(const char *v, int lo, int hi, int *out, char *err, size_t errlen, const char *key) {
  char *e;
  long x = strtol(v, &e, 10);
  if (*v == '\0' || *e || x < lo || x > hi) {
    snprintf(err, errlen, "bad value for %s: '%s': a whole number from %d to %d", key, v, lo, hi);
    return -2;
  }
  *out = (int)x;
  return 0;
}

/* A rate in bytes/s: a number, which rates are often written in
 * scientific notation (4e9, the man page's default; 625e6), or a size with
 * a unit (util/size.h, powers of 1024: 4g is 4 GiB/s). Sizes themselves
 * take no exponent: a rate is not a size. */
static int want_rate(const char *v, double *out, char *err, size_t errlen, const char *key) {
  char *e;
  double x = strtod(v, &e);
  if (e == v || *e) {
    int64_t b;
    char why[160];
    if (ferry_size_parse(v, &b, why, sizeof why)) {
      snprintf(err, errlen, "bad value for %s: '%s': bytes per second, a number (4e9) or a size (4g): %s", key, v,
               why);
      return -2;
    }
    x = (double)b;
  }
  if (!isfinite(x) || !(x > 0)) {
    snprintf(err, errlen, "bad value for %s: '%s': bytes per second, more than 0", key, v);
    return -2;
  }
  *out = x;
  return 0;
}

/* Every option of ferry-topo's commands; an option the dispatch below
 * handles must be listed. */
enum { O_LONG = 0x100 };
static const struct option longopts[] = {
  {"coalesce", no_argument, NULL, O_LONG},
  {"json", no_argument, NULL, O_LONG},
  {"markdown", no_argument, NULL, O_LONG},
  {"detail", no_argument, NULL, O_LONG},
  {"no-fair-share", no_argument, NULL, O_LONG},
  {"simulate", no_argument, NULL, O_LONG},
  {"split-messages", no_argument, NULL, O_LONG},
  {"fs", no_argument, NULL, O_LONG},
  {"machine", required_argument, NULL, O_LONG},
  {"ppn", required_argument, NULL, O_LONG},
  {"bytes-per-rank", required_argument, NULL, O_LONG},
  {"pattern", required_argument, NULL, O_LONG},
  {"xfer", required_argument, NULL, O_LONG},
  {"ion-bw", required_argument, NULL, O_LONG},
  {"map", required_argument, NULL, O_LONG},
  {"min-gain", required_argument, NULL, O_LONG},
  {"aggregators", required_argument, NULL, O_LONG},
  {"cb-buffer", required_argument, NULL, O_LONG},
  {"gateway-mem", required_argument, NULL, O_LONG},
  {"mem-cap", required_argument, NULL, O_LONG},
  {"slack", required_argument, NULL, O_LONG},
  {"msg-cost", required_argument, NULL, O_LONG},
  {"top-links", required_argument, NULL, O_LONG},
  {"out", required_argument, NULL, O_LONG},
  {"plane", required_argument, NULL, O_LONG},
  {"at", required_argument, NULL, O_LONG},
  {"script", required_argument, NULL, O_LONG},
  {"assign", required_argument, NULL, O_LONG},
  {"links-csv", required_argument, NULL, O_LONG},
  {"help", no_argument, NULL, 'h'},
  {NULL, 0, NULL, 0},
};

/* The option as typed, without a "=value". */
static void typed(const char *arg, char *out, size_t len) {
  snprintf(out, len, "%.*s", (int)strcspn(arg, "="), arg);
}

static int positional(topo_opts *o, const char *a, char *err, size_t errlen) {
  if (o->npositional == 4) {
    snprintf(err, errlen, "too many arguments at '%s'", a);
    return -1;
  }
  o->positional[o->npositional++] = a;
  return 0;
}

int opts_parse(int argc, char **argv, int first, topo_opts *o, char *err, size_t errlen) {
  /* getopt_long over argv[first..]: argv[first - 1] (the command) stands in
   * for the program's name; "-" keeps operands in place, ":" tells a
   * missing value from an unknown option, and the messages are ours. */
  int n = argc - first + 1;
  char **args = argv + first - 1;
  opterr = 0;
  optind = 0;
  int ch, idx;
  while ((ch = getopt_long(n, args, "-:h", longopts, &idx)) != -1) {
    if (ch == 1) {
      if (positional(o, optarg, err, errlen)) return -1;
      continue;
    }
    if (ch == 'h') {
      o->help = 1;
      continue;
    }
    char key[64];
    if (ch != O_LONG) {
      if (optopt > 0 && optopt < O_LONG) snprintf(key, sizeof key, "-%c", optopt);
      else typed(args[optind - 1], key, sizeof key);
      if (ch == ':') snprintf(err, errlen, "option %s needs a value", key);
      else if (optopt == O_LONG) snprintf(err, errlen, "option %s takes no value", key);
      else snprintf(err, errlen, "unknown option %s", key);
      return -1;
    }
    snprintf(key, sizeof key, "--%s", longopts[idx].name);
    const char *val = optarg;
    /* flags */
    if (!strcmp(key, "--coalesce")) { o->coalesce = 1; continue; }
    if (!strcmp(key, "--json")) { o->json = 1; continue; }
    if (!strcmp(key, "--markdown")) { o->markdown = 1; continue; }
    if (!strcmp(key, "--detail")) { o->detail = 1; continue; }
    if (!strcmp(key, "--no-fair-share")) { o->fair_share = 0; continue; }
    if (!strcmp(key, "--simulate")) { o->simulate = 1; continue; }
    if (!strcmp(key, "--split-messages")) { o->split = 1; continue; }
    if (!strcmp(key, "--fs")) { o->fs = 1; continue; }
    int bad = 0;
    if (!strcmp(key, "--machine")) o->machine = val;
    else if (!strcmp(key, "--ppn")) bad = want_int(val, 1, 1024, &o->ppn, err, errlen, key), o->ppn_given = 1;
    else if (!strcmp(key, "--bytes-per-rank") || !strcmp(key, "--pattern")) {
      /* a size, or a spread the commands that take one parse (writers.h) */
      o->bytes_text = val;
      o->bytes_opt = longopts[idx].name[0] == 'p' ? "--pattern" : "--bytes-per-rank";
      o->bytes_is_size = !strchr(val, ':');
      if (o->bytes_is_size) bad = want_size(val, &o->bytes_per_rank, err, errlen, key);
    } else if (!strcmp(key, "--xfer")) bad = want_size(val, &o->xfer, err, errlen, key);
    else if (!strcmp(key, "--ion-bw")) bad = want_rate(val, &o->ion_bw, err, errlen, key);
    else if (!strcmp(key, "--map")) o->map = val;
    else if (!strcmp(key, "--min-gain")) {
      char *e;
      o->min_gain = strtod(val, &e);
      if (e == val || *e || !(o->min_gain >= 0 && o->min_gain < 1)) {
        snprintf(err, errlen, "bad value for %s: '%s': a fraction from 0 to below 1 (0.05: 5 %%)", key, val);
        bad = -2;
      }
    }
    else if (!strcmp(key, "--aggregators")) bad = want_int(val, 1, 1000000000, &o->naggs, err, errlen, key);
    else if (!strcmp(key, "--cb-buffer")) bad = want_size(val, &o->cb_buffer, err, errlen, key);
    else if (!strcmp(key, "--gateway-mem")) bad = want_size(val, &o->gw_mem, err, errlen, key);
    else if (!strcmp(key, "--mem-cap")) bad = want_int(val, 0, 1000000000, &o->mem_cap, err, errlen, key);
    else if (!strcmp(key, "--slack")) bad = want_int(val, 0, 1000000000, &o->slack, err, errlen, key);
    else if (!strcmp(key, "--msg-cost")) {
      char *e;
      o->msg_cost = strtod(val, &e);
      if (e == val || *e || !isfinite(o->msg_cost) || o->msg_cost < 0) {
        snprintf(err, errlen, "bad value for %s: '%s': seconds, a finite number from 0", key, val);
        bad = -2;
      }
      o->msg_cost_given = 1;
    } else if (!strcmp(key, "--top-links")) bad = want_int(val, 0, 1000000000, &o->top_links, err, errlen, key);
    else if (!strcmp(key, "--out")) o->out = val;
    else if (!strcmp(key, "--plane")) o->plane = val;
    else if (!strcmp(key, "--at")) o->at = val;
    else if (!strcmp(key, "--script")) o->script = val;
    else if (!strcmp(key, "--assign")) o->assign = val;
    else if (!strcmp(key, "--links-csv")) o->links_csv = val;
    else {
      snprintf(err, errlen, "unknown option %s", key);
      return -1;
    }
    if (bad == -2) return -1; /* err already says why */
    if (bad) {
      snprintf(err, errlen, "bad value for %s: '%s'", key, val);
      return -1;
    }
  }
  for (int i = optind; i < n; i++)
    if (positional(o, args[i], err, errlen)) return -1;
  return 0;
}
