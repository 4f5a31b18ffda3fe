/* ferry-topo subcommands; each returns the process exit status. */
#ifndef FERRY_TOPO_CMD_H
#define FERRY_TOPO_CMD_H

#include "cli.h"
#include "scenario.h"

int cmd_machines(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_simulate(int argc, char **argv);

/* Builds the machine named by o->machine, reporting errors on stderr. */
ferry_topo_machine *cmd_machine(const topo_opts *o);
void cmd_scen_cfg(const topo_opts *o, const ferry_topo_machine *m, scen_cfg *c);
/* Parses options for a subcommand; prints the error. Returns 0 or 2. */
int cmd_opts(int argc, char **argv, topo_opts *o);

#endif
