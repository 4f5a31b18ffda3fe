/* One row of `simulate` and `advise`: an assignment and an I/O path for the
 * machine's writers, costed by the floor (ferry_topo_evaluate on the path's
 * flows) and, when asked, simulated on SimGrid. */
#ifndef FERRY_TOPO_IO_ROWS_H
#define FERRY_TOPO_IO_ROWS_H

#include "paths.h"
#include "topology/topology.h"
#include "writers.h"

/* ASSIGN_ADVISED: what ferry_topo_advise picks for the path's requests
 * (the forward strategy's decision). */
#define ASSIGN_ADVISED (-1)

typedef struct {
  const char *name;
  int algo;            /* a ferry_topo_assign_algo, or ASSIGN_ADVISED */
  path_kind path;
  int what_if;         /* a path nobody implements: labelled so */
} io_row_def;

typedef struct {
  const ferry_topo_machine *m;
  const writers_t *w;
  ferry_topo_cost_params cost; /* group_bw, group_msg_cost: file-system runs */
  double gw_mem;       /* the seed's memory cap: heap per bridge rank */
  int mem_cap;         /* < 0: the seed's rule */
  int slack;
  double pull;         /* bytes per RDMA pull */
  int simulate;
  double min_gain;     /* advice threshold; <= 0 => the layer's */
} io_cfg;

typedef struct {
  char name[40];
  char assign[24];
  path_kind path;
  int what_if;
  int moved;
  double avg_hops;
  int max_hops;
  double max_gw_bytes;   /* the busiest gateway's (bridge's) bytes */
  double mean_gw_bytes;  /* bytes over all gateways */
  double max_group_msgs; /* requests at the busiest group (I/O node) */
  double mean_group_msgs;
  double max_group_bytes, mean_group_bytes;
  double transit_msgs;   /* messages passing through gateway nodes */
  double t_floor;
  ferry_topo_binding bind;
  double t_sim;          /* -1 when not simulated */
  double wall;
  long comms;
  double bytes;
  char why[96];          /* advised rows: the advice */
} io_row;

/* simulate's rows, in order; advise's candidates are those not what-if. */
extern const io_row_def io_rows_all[];
extern const int io_nrows;

/* wall_before: seconds the command has run (for its progress lines). */
int io_row_run(const io_cfg *c, const io_row_def *d, double wall_before, io_row *out);
/* Runs rows [0, n) of defs (those `want` accepts, when given) into out;
 * once the whole run passes 10 s of wall time, each row's start is said on
 * stderr (a long row also reports from inside the engine). Returns the
 * number run, or -1. */
int io_rows_run(const io_cfg *c, const char *cmd, const io_row_def *defs, int n,
                int (*want)(const io_row_def *d, const void *arg), const void *arg, io_row *out);
/* The predicted time: simulated when simulated, else the floor. */
double io_row_time(const io_row *r);

#endif
