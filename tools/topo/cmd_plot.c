/* ferry-topo plot: writes the data behind three figures (a torus plane's
 * link loads, a link-load histogram, gateway loads) for default,
 * route-aware, load-aware and refined assignment, then hands it to
 * ferry_topo_plot.py, which draws the PNGs. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "exe_dir.h"
#include "output.h"
#include "util/json.h"
#include "util/size.h"

#ifndef FERRY_TOPO_PLOT_SRC
#define FERRY_TOPO_PLOT_SRC "ferry_topo_plot.py"
#endif

static int dim_of(char c, int nd) {
  if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  int d = c - 'A';
  return (d >= 0 && d < nd) ? d : -1;
}

typedef struct {
  int on, x, y, nd;
  int fixed[FERRY_TOPO_MAX_DIMS];
} plane_t;

static int choose_plane(const ferry_topo_machine *m, const topo_opts *o, plane_t *p) {
  memset(p, 0, sizeof *p);
  if (ferry_topo_kind_of(m) != FERRY_TOPO_TORUS || ferry_topo_ndims(m) < 2) return 0;
  int nd = p->nd = ferry_topo_ndims(m);
  p->on = 1;
  if (o->plane) {
    if (strlen(o->plane) != 3 || o->plane[1] != ',' || (p->x = dim_of(o->plane[0], nd)) < 0 ||
        (p->y = dim_of(o->plane[2], nd)) < 0 || p->x == p->y) {
      fprintf(stderr, "ferry-topo plot: --plane wants two dimension letters, e.g. C,D\n");
      return -1;
    }
  } else {
    /* the two largest dimensions, later ones on ties */
    p->x = p->y = -1;
    for (int i = 0; i < nd; i++)
      if (p->x < 0 || ferry_topo_dim_size(m, i) >= ferry_topo_dim_size(m, p->x)) p->x = i;
    for (int i = 0; i < nd; i++)
      if (i != p->x && (p->y < 0 || ferry_topo_dim_size(m, i) >= ferry_topo_dim_size(m, p->y))) p->y = i;
  }
  if (o->at) {
    const char *s = o->at;
    for (int i = 0; i < nd; i++) {
      char *e;
      long v = strtol(s, &e, 10);
      if (e == s || v < 0 || v >= ferry_topo_dim_size(m, i) || (i < nd - 1 && *e != ',')) {
        fprintf(stderr, "ferry-topo plot: --at wants %d coordinates joined by ','\n", nd);
        return -1;
      }
      p->fixed[i] = (int)v;
      s = e + 1;
    }
  } else {
    /* through gateway 0, so the plane shows a bridge and its tree */
    ferry_topo_coords(m, ferry_topo_gateway_node(m, 0), p->fixed);
  }
  return 0;
}

static int in_plane(const plane_t *p, const int *c) {
  for (int i = 0; i < p->nd; i++)
    if (i != p->x && i != p->y && c[i] != p->fixed[i]) return 0;
  return 1;
}

/* bytes as whole numbers, as the plotting script reads them */
static json_t *bytes_array(const double *v, int n, int skip_idle, int *ok)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        if (!skip_idle || v[i] > 0)
            ferry_json_push(a, ferry_json_fixed(v[i], 0), ok);
    return a;
}

/* the links of the plane shown, [x0, y0, x1, y1, bytes] each */
static json_t *plane_links(const ferry_topo_machine *m, const plane_t *p, const ferry_topo_metrics *mt, int nnet,
                           int *ok)
{
    json_t *all = json_array();
    if (!p->on)
        return all;
    int cf[FERRY_TOPO_MAX_DIMS], ct[FERRY_TOPO_MAX_DIMS];
    for (int l = 0; l < nnet; l++) {
        int a, b;
        if (ferry_topo_link_ends(m, l, &a, &b) <= 0 || a < 0 || b < 0)
            continue;
        ferry_topo_coords(m, a, cf);
        ferry_topo_coords(m, b, ct);
        if (!in_plane(p, cf) || !in_plane(p, ct))
            continue;
        json_t *x =
            json_pack("[i,i,i,i,o]", cf[p->x], cf[p->y], ct[p->x], ct[p->y], ferry_json_fixed(mt->link_bytes[l], 0));
        ferry_json_push(all, x, ok);
    }
    return all;
}

static json_t *assignment_json(const ferry_topo_machine *m, const plane_t *p, const scen_row *r,
                               const ferry_topo_metrics *mt, int *ok)
{
    json_t *x = json_object();
    ferry_json_set(x, "name", ferry_json_str(r->name), ok);
    ferry_json_set(x, "max_link_load", ferry_json_fixed(r->max_link_load, 0), ok);
    ferry_json_set(x, "modelled_time_s", ferry_json_real(r->t_model, 9), ok);
    ferry_json_set(x, "avg_hops", ferry_json_fixed(r->avg_hops, 6), ok);
    ferry_json_set(x, "max_link", ferry_json_str(r->max_link), ok);
    int nnet = ferry_topo_links(m) - ferry_topo_gateways(m);
    /* the busiest network link (bridge exit links left out), which the heat
     * map and the histogram both show; ties to the lowest id */
    int top = -1;
    for (int l = 0; l < nnet; l++)
        if (mt->link_bytes[l] > 0 && (top < 0 || mt->link_bytes[l] > mt->link_bytes[top]))
            top = l;
    char tname[96] = "-";
    if (top >= 0)
        ferry_topo_link_name(m, top, tname, sizeof tname);
    ferry_json_set(x, "max_net_link_load", ferry_json_fixed(top >= 0 ? mt->link_bytes[top] : 0.0, 0), ok);
    ferry_json_set(x, "max_net_link", ferry_json_str(tname), ok);
    ferry_json_set(x, "plane_links", plane_links(m, p, mt, nnet, ok), ok);
    ferry_json_set(x, "link_loads", bytes_array(mt->link_bytes, nnet, 1, ok), ok);
    ferry_json_set(x, "gateway_bytes", bytes_array(mt->gw_bytes, mt->ngw, 0, ok), ok);
    ferry_json_set(x, "gateway_msgs", bytes_array(mt->gw_msgs, mt->ngw, 0, ok), ok);
    return x;
}

/* the plane of a torus the heat map shows, with the gateways in it; null
 * on other machines */
static json_t *plane_json(const ferry_topo_machine *m, const plane_t *p, int *ok)
{
    if (!p->on)
        return json_null();
    static const char L[] = "ABCDEFGH";
    json_t *x = json_object();
    ferry_json_set(x, "x_dim", json_stringn(&L[p->x], 1), ok);
    ferry_json_set(x, "y_dim", json_stringn(&L[p->y], 1), ok);
    ferry_json_set(x, "x_size", json_integer(ferry_topo_dim_size(m, p->x)), ok);
    ferry_json_set(x, "y_size", json_integer(ferry_topo_dim_size(m, p->y)), ok);
    json_t *fixed = json_array();
    for (int i = 0; i < p->nd; i++)
        ferry_json_push(fixed, json_integer(p->fixed[i]), ok);
    ferry_json_set(x, "fixed", fixed, ok);
    json_t *gws = json_array();
    int cc[FERRY_TOPO_MAX_DIMS];
    for (int g = 0; g < ferry_topo_gateways(m); g++) {
        ferry_topo_coords(m, ferry_topo_gateway_node(m, g), cc);
        if (in_plane(p, cc))
            ferry_json_push(gws, json_pack("[i,i]", cc[p->x], cc[p->y]), ok);
    }
    ferry_json_set(x, "gateways", gws, ok);
    return x;
}

static const char *find_script(const topo_opts *o, char *buf, size_t len) {
  if (o->script) return o->script;
  const char *env = getenv("FERRY_TOPO_PLOT_SCRIPT");
  if (env && *env) return env;
  const char *beside = ferry_beside_exe("../share/ferry/ferry_topo_plot.py", buf, len);
  if (beside && access(beside, R_OK) == 0) return beside;
  return FERRY_TOPO_PLOT_SRC;
}

static int run_python(const char *script, const char *data, const char *dir) {
  const char *py = getenv("FERRY_PYTHON");
  if (!py || !*py) py = "python3";
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execlp(py, py, script, data, dir, (char *)NULL);
    fprintf(stderr, "ferry-topo plot: cannot run %s: %s\n", py, strerror(errno));
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int cmd_plot(int argc, char **argv) {
  topo_opts o;
  int rc = cmd_opts(argc, argv, &o, CMD_OPERANDS);
  if (rc) return rc;
  ferry_topo_machine *m = cmd_machine(&o);
  if (!m) return 1;
  plane_t p;
  if (choose_plane(m, &o, &p)) {
    ferry_topo_free(m);
    return 2;
  }
  const char *dir = o.out ? o.out : "ferry-topo-plots";
  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "ferry-topo plot: cannot create %s: %s\n", dir, strerror(errno));
    ferry_topo_free(m);
    return 1;
  }
  scen_cfg c;
  cmd_scen_cfg(&o, m, &c);
  c.cost.fair_share = 0;
  char data[PATH_MAX];
  snprintf(data, sizeof data, "%s/plotdata.json", dir);
  FILE *f = fopen(data, "w");
  if (!f) {
    fprintf(stderr, "ferry-topo plot: cannot write %s\n", data);
    ferry_topo_free(m);
    return 1;
  }
  char bpr[32];
  ferry_size_format(o.bytes_per_rank, FERRY_SIZE_EXACT, bpr, sizeof bpr);
  int ok = 1;
  json_t *doc = json_object();
  ferry_json_set(doc, "machine", ferry_json_str(ferry_topo_spec(m)), &ok);
  ferry_json_set(doc, "description", ferry_json_str(ferry_topo_describe(m)), &ok);
  ferry_json_set(doc, "ppn", json_integer(o.ppn), &ok);
  ferry_json_set(doc, "bytes_per_rank", ferry_json_fixed(o.bytes_per_rank, 0), &ok);
  ferry_json_set(doc, "bytes_per_rank_text", ferry_json_str(bpr), &ok);
  ferry_json_set(doc, "coalesce", json_boolean(o.coalesce), &ok);
  ferry_json_set(doc, "plane", plane_json(m, &p, &ok), &ok);
  json_t *assignments = json_array();
  static const ferry_topo_assign_algo algos[] = {FERRY_TOPO_ASSIGN_DEFAULT, FERRY_TOPO_ASSIGN_ROUTE_AWARE,
                                                 FERRY_TOPO_ASSIGN_LOAD_AWARE, FERRY_TOPO_ASSIGN_REFINED};
  for (int i = 0; i < 4; i++) {
    scen_row r;
    ferry_topo_metrics mt;
    if ((rc = scen_independent(&c, algos[i], &r, NULL, &mt))) {
      fprintf(stderr, "ferry-topo plot: costing failed (%d)\n", rc);
      json_decref(assignments);
      json_decref(doc);
      fclose(f);
      ferry_topo_free(m);
      return 1;
    }
    ferry_json_push(assignments, assignment_json(m, &p, &r, &mt, &ok), &ok);
    ferry_topo_metrics_free(&mt);
  }
  ferry_json_set(doc, "assignments", assignments, &ok);
  int bad = out_json_done(doc, ok, f);
  if (fclose(f) || bad) {
    fprintf(stderr, "ferry-topo plot: cannot write %s\n", data);
    ferry_topo_free(m);
    return 1;
  }
  ferry_topo_free(m);
  char sbuf[PATH_MAX];
  const char *script = find_script(&o, sbuf, sizeof sbuf);
  rc = run_python(script, data, dir);
  if (rc != 0) {
    fprintf(stderr, "ferry-topo plot: %s failed (status %d); the data is in %s\n", script, rc, data);
    return 1;
  }
  return 0;
}
