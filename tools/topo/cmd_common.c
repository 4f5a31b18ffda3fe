/* Pieces every subcommand uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util/size.h"

int cmd_opts(int argc, char **argv, topo_opts *o, int operands) {
  char err[256];
  opts_defaults(o);
  if (opts_parse(argc, argv, 2, o, err, sizeof err)) {
    fprintf(stderr, "ferry-topo %s: %s\n", argv[1], err);
    return 2;
  }
  if (o->help) {
    topo_usage_of(argv[1], stdout);
    exit(0);
  }
  if (!o->bytes_is_size && strcmp(argv[1], "simulate") && strcmp(argv[1], "advise")) {
    fprintf(stderr, "ferry-topo %s: %s takes a size here; spreads and runs (%s) are for simulate and advise\n",
            argv[1], o->bytes_opt, o->bytes_text);
    return 2;
  }
  if (!operands && o->npositional) {
    fprintf(stderr, "ferry-topo %s: unexpected argument '%s'\n", argv[1], o->positional[0]);
    return 2;
  }
  return 0;
}

int io_setup_make(const topo_opts *o, const char *cmd, io_setup *s) {
  char err[256], spec[256]; /* ferry_topo_create takes up to 255 characters */
  memset(s, 0, sizeof *s);
  if (o->map) {
    if (strchr(o->map, ',') || snprintf(spec, sizeof spec, "%s,default=map:%s", o->machine, o->map) >= (int)sizeof spec) {
      fprintf(stderr, "ferry-topo %s: --map %s: the path must be short and hold no ','\n", cmd, o->map);
      return -1;
    }
  } else {
    snprintf(spec, sizeof spec, "%s", o->machine);
  }
  if (ferry_topo_create(spec, &s->m, err, sizeof err)) {
    if (o->map) /* the options as typed, not the spec they make */
      fprintf(stderr, "ferry-topo %s: --machine %s --map %s: %s\n", cmd, o->machine, o->map, err);
    else
      fprintf(stderr, "ferry-topo %s: machine '%s': %s\n", cmd, spec, err);
    return -1;
  }
  if (writers_parse(o->bytes_text, &s->spec, err, sizeof err) ||
      writers_build(&s->spec, ferry_topo_compute_nodes(s->m), o->ppn, o->xfer, &s->w, err, sizeof err)) {
    fprintf(stderr, "ferry-topo %s: %s %s\n", cmd, o->bytes_opt, err);
    io_setup_free(s);
    return -1;
  }
  s->ppn = o->ppn;
  s->fs = o->fs;
  io_cfg *c = &s->cfg;
  c->m = s->m;
  c->w = &s->w;
  c->gw_mem = o->gw_mem;
  c->mem_cap = o->mem_cap;
  c->slack = o->slack;
  c->pull = 1048576.0; /* sysiod's RDMA pulls (bgq-driver ServicesConstants.h) */
  c->min_gain = o->min_gain;
  c->cost.group_msg_cost = o->msg_cost_given ? o->msg_cost : o->fs ? FS_MSG_COST : 0;
  c->cost.group_bw = o->ion_bw >= 0 ? o->ion_bw : o->fs ? FS_ION_BW : 0;
  char ion[64] = "not limiting", rate[32];
  if (c->cost.group_bw > 0) {
    /* in the units --ion-bw reads (powers of 1024): 4g shows as 4 GiB/s;
     * a rate that is no whole number of them also as typed (4e9 B/s) */
    ferry_size_format(c->cost.group_bw, FERRY_SIZE_SHORT, rate, sizeof rate);
    if (strchr(rate, '.'))
      snprintf(ion, sizeof ion, "%s/s (%.4g B/s) each", rate, c->cost.group_bw);
    else
      snprintf(ion, sizeof ion, "%s/s each", rate);
  }
  if (o->fs)
    snprintf(s->costs, sizeof s->costs,
             "costs: file system (GPFS stand-in, fitted: %.4g s per request at each %s's server; %s %s)",
             c->cost.group_msg_cost, ferry_topo_group_noun(s->m), ferry_topo_group_noun(s->m), ion);
  else if (c->cost.group_msg_cost > 0)
    snprintf(s->costs, sizeof s->costs, "costs: network, plus %.4g s per request at each %s's server; %s %s",
             c->cost.group_msg_cost, ferry_topo_group_noun(s->m), ferry_topo_group_noun(s->m), ion);
  else
    snprintf(s->costs, sizeof s->costs, "costs: network only (writes end at the %s, as the seed's /dev/null runs; %ss %s)",
             ferry_topo_group_noun(s->m), ferry_topo_group_noun(s->m), ion);
  return 0;
}

void io_setup_free(io_setup *s) {
  writers_free(&s->w);
  ferry_topo_free(s->m);
  s->m = NULL;
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
