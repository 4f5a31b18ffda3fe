/* Command-line options shared by ferry-topo's subcommands. */
#ifndef FERRY_TOPO_CLI_H
#define FERRY_TOPO_CLI_H

#include <stddef.h>

typedef struct {
  const char *machine;
  int ppn;
  int ppn_given;
  double bytes_per_rank;
  const char *bytes_text; /* --bytes-per-rank / --pattern as given: a size or a spread (writers.h) */
  const char *bytes_opt;  /* which of the two it was, as messages name it */
  int bytes_is_size;      /* bytes_text is a plain size (bytes_per_rank holds it) */
  double xfer;            /* bytes per write call; 0 => the base size */
  int fs;                 /* simulate/advise: file-system costs */
  double ion_bw;          /* bytes/s per I/O node; < 0 => the cost mode's */
  const char *map;        /* advise: a bridge map dumped from the machine */
  double min_gain;        /* advise: the least gain that moves anyone */
  int coalesce;
  int json;
  int markdown;
  int detail;
  int naggs;          /* 0 => 8 per gateway */
  double cb_buffer;   /* two-phase buffer: phase-2 write size */
  double gw_mem;      /* forwarder memory for the seed's cap */
  int mem_cap;        /* < 0 => derived from gw_mem as the seed does */
  int slack;
  double msg_cost;
  int msg_cost_given;
  int simulate;       /* replay: also run the flows on SimGrid */
  int split;          /* simulate: one SimGrid communication per message */
  int fair_share;
  int top_links;
  const char *out;
  const char *plane;
  const char *at;
  const char *script;
  const char *assign;
  const char *links_csv;
  const char *positional[4];
  int npositional;
  int help;           /* --help / -h: the command's usage, exit 0 */
} topo_opts;

void opts_defaults(topo_opts *o);
/* Parses argv[first..] with getopt_long: --key value, --key=value, a
 * unique prefix of a key; operands anywhere. */
int opts_parse(int argc, char **argv, int first, topo_opts *o, char *err, size_t errlen);
/* The one size parser (util/size.h): "1MiB", "1MB", "4m", "1.5k", "512";
 * every suffix a power of 1024. */
int parse_size(const char *s, double *out);

#endif
