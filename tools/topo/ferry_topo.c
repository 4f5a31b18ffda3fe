/* ferry-topo: cost I/O patterns and gateway assignments on machine models,
 * replay recorded runs at scale, and plot link loads. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ferry.h"

/* Each command's synopsis, as `ferry-topo --help` lists them all and
 * `ferry-topo COMMAND --help` shows its own. */
static const struct {
  const char *name, *text;
} commands[] = {
  {"machines", "  machines [--json] [--detail]      list machine presets, sizes and gateways;\n"
               "                                    --detail adds each model's description\n"},
  {"compare", "  compare --machine SPEC [--ppn N] [--bytes-per-rank SIZE] [--coalesce] [--json|--markdown]\n"
              "          [--aggregators N] [--cb-buffer SIZE] [--gateway-mem SIZE] [--mem-cap N]\n"
              "          [--slack N] [--msg-cost S] [--no-fair-share] [--detail] [--simulate [--split-messages]]\n"
              "                                    one row per assignment / aggregator placement\n"},
  {"replay", "  replay RUN.json --machine SPEC [--ppn N] [--assign default|route-aware|load-aware|refined|...]\n"
             "          [--json] [--top-links K] [--links-csv FILE] [--simulate [--msg-cost S]]\n"
             "                                    cost a FERRY_TRACE log or FERRY_STATS_JSON record on a model\n"},
  {"simulate", "  simulate --machine SPEC [--ppn N] [--bytes-per-rank WRITERS] [--xfer SIZE] [--fs] [--msg-cost S]\n"
               "          [--ion-bw B/s] [--assign ROW,ROW] [--json]\n"
               "                                    the seed's I/O paths and ferry's, run on SimGrid\n"},
  {"advise", "  advise --machine SPEC [--map FILE] [--ppn N] --pattern WRITERS [--xfer SIZE] [--fs] [--simulate]\n"
             "          [--msg-cost S] [--ion-bw B/s] [--min-gain F] [--json]\n"
             "                                    which assignment and aggregation to use, and why\n"},
  {"plot", "  plot --machine SPEC [--ppn N] [--bytes-per-rank SIZE] [--out DIR] [--plane X,Y]\n"
           "          [--at COORDS] [--script PATH]\n"
           "                                    link heat map, link-load histogram, gateway loads\n"},
};

static const char spec_text[] =
    "SPEC: bgq:512 | bgq:4x4x4x4x2[,mesh=D][,order=EDCBA][,default=pset|tile|nearest|map:FILE]\n"
    "      bgq:mira | torus:8x8x8\n"
    "      dragonfly:theta | dragonfly:edison | fattree:k=16,levels=3 | flat:64\n"
    "      cluster:nodes=4,ions=2[,rate=B/s,iorate=B/s,iosrate=B/s] (scripts/cluster.sh machine)\n";
static const char writers_text[] =
    "WRITERS: SIZE | SIZE:F%xK[@P%] (e.g. 1MiB:25%x4) | trace:RUN.json | record:STATS.json\n";
static const char units_text[] =
    "SIZE: bytes, with k, m, g or t (powers of 1024); B/s: a number (4e9) or a SIZE (4g: 4 GiB/s)\n";

static void usage(FILE *o) {
  fprintf(o, "usage: ferry-topo <command> [options]      (ferry-topo --version: the version;\n"
             "       ferry-topo <command> --help: the command's options)\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) fputs(commands[i].text, o);
  fprintf(o, "%s%s%s", spec_text, writers_text, units_text);
}

void topo_usage_of(const char *cmd, FILE *o) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, cmd)) continue;
    fprintf(o, "usage: ferry-topo %s [options]      (ferry-topo(1) says more)\n%s", cmd, commands[i].text);
    if (strcmp(cmd, "machines")) fputs(spec_text, o);
    if (!strcmp(cmd, "simulate") || !strcmp(cmd, "advise")) fputs(writers_text, o);
    if (strcmp(cmd, "machines")) fputs(units_text, o);
    return;
  }
  usage(o);
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *c = argv[1];
  if (!strcmp(c, "--version")) {
    printf("ferry-topo, %s\n", ferry_version());
    return 0;
  }
  if (!strcmp(c, "machines")) return cmd_machines(argc, argv);
  if (!strcmp(c, "compare")) return cmd_compare(argc, argv);
  if (!strcmp(c, "replay")) return cmd_replay(argc, argv);
  if (!strcmp(c, "plot")) return cmd_plot(argc, argv);
  if (!strcmp(c, "simulate")) return cmd_simulate(argc, argv);
  if (!strcmp(c, "advise")) return cmd_advise(argc, argv);
  fprintf(stderr, "ferry-topo: unknown command '%s'\n", c);
  usage(stderr);
  return 2;
}
