/* Pieces every subcommand uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int cmd_opts(int argc, char **argv, topo_opts *o) {
  char err[256];
  opts_defaults(o);
  if (opts_parse(argc, argv, 2, o, err, sizeof err)) {
    fprintf(stderr, "ferry-topo %s: %s\n", argv[1], err);
    return 2;
  }
  return 0;
}

ferry_topo_machine *cmd_machine(const topo_opts *o) {
  ferry_topo_machine *m;
  char err[256];
  if (ferry_topo_create(o->machine, &m, err, sizeof err)) {
    fprintf(stderr, "ferry-topo: machine '%s': %s\n", o->machine, err);
    return NULL;
  }
  return m;
}

void cmd_scen_cfg(const topo_opts *o, const ferry_topo_machine *m, scen_cfg *c) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->ppn = o->ppn;
  c->bytes_per_rank = o->bytes_per_rank;
  c->coalesce = o->coalesce;
  c->naggs = o->naggs;
  c->cb_buffer = o->cb_buffer;
  c->gw_mem = o->gw_mem;
  c->mem_cap = o->mem_cap;
  c->slack = o->slack;
  c->cost.hop_latency = 0;
  c->cost.msg_cost = o->msg_cost;
  c->cost.fair_share = o->fair_share;
  c->cost.max_epochs = 0;
  c->simulate = o->simulate;
  c->sim = (sim_params){o->msg_cost, 0, o->split};
}
