/* ferry-topo subcommands; each returns the process exit status. */
#ifndef FERRY_TOPO_CMD_H
#define FERRY_TOPO_CMD_H

#include <stdio.h>

#include "cli.h"
#include "io_rows.h"
#include "scenario.h"
#include "writers.h"

int cmd_machines(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_advise(int argc, char **argv);

/* Builds the machine named by o->machine, reporting errors on stderr. */
ferry_topo_machine *cmd_machine(const topo_opts *o);
void cmd_scen_cfg(const topo_opts *o, const ferry_topo_machine *m, scen_cfg *c);
/* Parses options for a subcommand; prints the error. Returns 0 or 2; with
 * --help, prints the command's usage and exits 0. operands: CMD_NO_OPERANDS
 * refuses any (the command takes none), CMD_OPERANDS leaves them to the
 * command. */
enum { CMD_NO_OPERANDS, CMD_OPERANDS };
int cmd_opts(int argc, char **argv, topo_opts *o, int operands);
/* The usage of one command (ferry_topo.c), or of all for an unknown one. */
void topo_usage_of(const char *cmd, FILE *o);

/* simulate and advise: the machine (with --map's bridge map), what each
 * rank writes, and the costs (network only, or --fs). */
typedef struct {
  ferry_topo_machine *m;
  writers_spec spec;
  writers_t w;
  io_cfg cfg;
  int ppn, fs;
  char costs[240];     /* one line saying which costs */
} io_setup;
int io_setup_make(const topo_opts *o, const char *cmd, io_setup *s);
void io_setup_free(io_setup *s);

/* File-system runs (--fs): a GPFS stand-in at each I/O node. The cost per
 * request is fitted so that the default row writes 64 GiB from 4096 nodes
 * at the seed's 0.7 GB/s (tools/topo/calibrate.sh, docs/topology-results.md);
 * the bandwidth is the I/O node's link to the file system, QDR InfiniBand
 * (the seed, section 4), 4X at 32 Gb/s of data. Mira's 240 GB/s over its
 * 384 I/O nodes, 0.625 GB/s each, is the fair share when every job writes
 * (--ion-bw 625e6). */
#define FS_MSG_COST 0.04792
#define FS_ION_BW 4e9

#endif
